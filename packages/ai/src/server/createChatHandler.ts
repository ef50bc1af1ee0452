import type { AnyTool } from '../tools/types.ts'
import { resolveConfig, type ChatConfig, type ChatHandlerOptions, type ContextOption, type ToolsContext } from './config.ts'
import { attachmentResponse } from './attachments.ts'
import { HttpError, errorResponse, jsonResponse } from './errors.ts'
import { capabilitiesOf } from './capabilities.ts'
import { withFrontendTools } from './frontendTools.ts'
import { parseChatRequest, readJsonBody, type ParsedRequest } from './requests.ts'
import { answerUIMessageRequest, asUIMessageStream } from './aisdk/uiMessageChat.ts'
import { isUIMessageRequest } from './aisdk/uiMessageRequest.ts'
import { toUIThread } from './aisdk/uiThread.ts'
import { replayResponse } from './events.ts'
import { isRunning, loadHead, loadMessages, snapshot } from './thread.ts'
import { resume, startTurn, stopRun, takeOverLostRun } from './turns.ts'

/** A Fetch API handler: works with any server that speaks `Request`/`Response` (and with `toNodeHandler`). */
export type ChatHandler = (request: Request) => Promise<Response>

/**
 * The chat endpoint. `POST { threadId?, message }` starts a turn and `POST { threadId, resume }`
 * answers interrupts; both stream AG-UI events as Server-Sent Events. `GET ?threadId=` returns
 * the thread. Refusals are JSON `{ error: { code, message, path? } }`.
 *
 * A turn, top to bottom: `turns.ts` claims the thread and starts the run; `run.ts` drives it
 * (`modelStep.ts` streams the model, `toolCalls.ts` plans, runs and settles the calls,
 * `interrupts.ts` pauses and checks answers); `events.ts` writes every event; `thread.ts` reads and
 * writes the thread through the `ThreadStore`.
 */
// `TContext` is inferred from `context` and must satisfy every tool's `contextSchema`: a handler
// whose context lacks a tool's key does not compile.
export function createChatHandler<
  const TTools extends readonly AnyTool[] = readonly AnyTool[],
  TContext extends ToolsContext<TTools> = ToolsContext<TTools>,
>(options: ChatHandlerOptions<TContext, TTools> & ContextOption<TTools>): ChatHandler {
  const config = resolveConfig(options)
  return async (request) => {
    try {
      if (request.method === 'POST') return await post(config, request)
      if (request.method === 'GET') return await get(config, request)
      throw new HttpError(405, 'METHOD_NOT_ALLOWED', `Use POST to chat and GET to read a thread, not ${request.method}`)
    } catch (error) {
      return errorResponse(error)
    }
  }
}

async function post(config: ChatConfig, request: Request): Promise<Response> {
  const raw = await readJsonBody(request, config.limits.maxBodyBytes)
  // The AI SDK's `useChat` (aisdk/): its body becomes a ParsedRequest, its answer a UI message stream.
  if (isUIMessageRequest(raw)) return answerUIMessageRequest(config, request, raw, (body) => handle(config, request, body))
  return handle(config, request, parseChatRequest(raw))
}

function handle(config: ChatConfig, request: Request, body: ParsedRequest): Promise<Response> {
  if ('stop' in body) return stopRun(config, request, body)
  const scoped = body.declaredTools ? withFrontendTools(config, body.declaredTools) : config
  return 'resume' in body ? resume(scoped, request, body) : startTurn(scoped, request, body)
}

/**
 * `GET ?threadId=`: the thread. `&limit=N` returns only its last N stored messages, and
 * `&before=I` those before index I, so a long thread can be read a page at a time.
 */
async function get(config: ChatConfig, request: Request): Promise<Response> {
  const params = new URL(request.url).searchParams
  const threadId = params.get('threadId')
  if (!threadId && params.has('capabilities')) return jsonResponse(200, capabilitiesOf(config))
  if (!threadId) throw new HttpError(400, 'INVALID_REQUEST', 'Pass the thread to read as `?threadId=`', 'threadId')
  // The AI SDK's reconnect (`useChat({ resume: true })`) reads the same events as a UI message stream.
  const aiSdk = params.get('format') === 'ai-sdk'
  if (wantsEventStream(request) || (aiSdk && params.has('stream'))) {
    const events = await attach(config, request, threadId, params)
    return aiSdk ? asUIMessageStream(config, request, events) : events
  }
  const limit = indexParam(params, 'limit')
  const before = indexParam(params, 'before')
  const head = await loadHead(config, request, threadId, 'read')
  const attachmentId = params.get('attachmentId')
  if (attachmentId) return attachmentResponse(config.attachments, head.id, attachmentId)
  if (aiSdk) {
    const thread = snapshot(head, await loadMessages(config.store, head), config.limits.runLeaseMs, config.tools)
    return jsonResponse(200, toUIThread(thread, { endpoint: new URL(request.url).pathname, isServerTool: (name) => config.tools.get(name)?.side === 'server' }))
  }
  if (limit === undefined && before === undefined) {
    return jsonResponse(200, snapshot(head, await loadMessages(config.store, head), config.limits.runLeaseMs, config.tools))
  }
  const to = Math.min(before ?? head.messageCount, head.messageCount)
  const from = Math.max(0, to - (limit ?? to))
  const messages = to > from ? await config.store.messages(head.id, from, to) : []
  const window = { from, total: head.messageCount }
  return jsonResponse(200, snapshot(head, messages, config.limits.runLeaseMs, config.tools, { window, withStep: to === head.messageCount }))
}

function wantsEventStream(request: Request): boolean {
  return /\btext\/event-stream\b/i.test(request.headers.get('accept') ?? '')
}

/**
 * `GET ?threadId=` with `Accept: text/event-stream`: (re)attaches to a run's events. With
 * `Last-Event-ID: <runId>:<seq>` (or `&runId=&after=`), the events after that one, then the live
 * ones; without, the thread's active run from its start, or 204 when none streams. 404
 * `RUN_NOT_FOUND` when the run's events are no longer kept: read the thread instead.
 */
async function attach(config: ChatConfig, request: Request, threadId: string, params: URLSearchParams): Promise<Response> {
  const head = await loadHead(config, request, threadId, 'read')
  const from = replayPoint(request, params)
  const active = isRunning(head, config.limits.runLeaseMs) ? head.activeRun?.runId : undefined
  const runId = from?.runId ?? active
  if (runId === undefined) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } })
  const runs = {
    isLive: async (id: string) => {
      const current = await config.store.head(threadId)
      return current !== undefined && current.activeRun?.runId === id && isRunning(current, config.limits.runLeaseMs)
    },
    takeOver: (id: string) => takeOverLostRun(config, request, threadId, id),
  }
  // Run ids are not guessable, but a run of another thread must not be read through this one: the
  // run's first event, RUN_STARTED, must name this thread, whatever position the reader resumes
  // from (a read after it would not show it). The thread's active run is its own.
  if (runId !== active) {
    const logged = await config.events.read(runId, 0)
    if (logged === undefined || !belongsTo(logged.events, threadId)) {
      throw new HttpError(404, 'RUN_NOT_FOUND', `No events of run "${runId}" are kept; read the thread instead`, 'runId')
    }
  }
  return replayResponse(config.events, { runId, after: from?.after ?? 0 }, request.signal, runs)
}

/** Whether logged events are of this thread: every run's first event, RUN_STARTED, names it. */
function belongsTo(events: readonly { readonly seq: number; readonly data: string }[], threadId: string): boolean {
  const started = events[0]
  if (started?.seq !== 1) return false
  return (JSON.parse(started.data) as { threadId?: string }).threadId === threadId
}

function replayPoint(request: Request, params: URLSearchParams): { runId: string; after: number } | undefined {
  const lastEventId = request.headers.get('last-event-id')
  if (lastEventId) {
    const match = /^(run_[\w-]{1,64}):(\d{1,9})$/.exec(lastEventId)
    if (!match) throw new HttpError(400, 'INVALID_REQUEST', '`Last-Event-ID` must be `<runId>:<seq>` as the stream sent it', 'Last-Event-ID')
    return { runId: match[1]!, after: Number(match[2]) }
  }
  const runId = params.get('runId')
  if (runId === null) return undefined
  if (!/^run_[\w-]{1,64}$/.test(runId)) throw new HttpError(400, 'INVALID_REQUEST', '`runId` is not a run id', 'runId')
  return { runId, after: indexParam(params, 'after') ?? 0 }
}

function indexParam(params: URLSearchParams, name: string): number | undefined {
  const value = params.get(name)
  if (value === null) return undefined
  if (!/^\d{1,9}$/.test(value)) throw new HttpError(400, 'INVALID_REQUEST', `\`${name}\` must be a non-negative integer`, name)
  return Number(value)
}
