import { errorResponse } from './http/responses.ts'
import { echoed } from '../util/capText.ts'
import type { AnyTool } from '../tools/types.ts'
import { resolveConfig } from './config.ts'
import type { ChatConfig, ChatHandlerOptions, ContextOption, ToolsContext } from './options.ts'
import { HttpError, threadNotFound } from './errors.ts'
import type { DecisionRecord, Grant } from '../protocol/decisions.ts'
import { verifiedDecisions } from './decisions/records.ts'
import { loadMessages } from './thread/thread.ts'
import { review } from './claim/reviews.ts'
import { decide, type DecideInput, type DecideResult } from './claim/decide.ts'
import { withFrontendTools } from './agui/frontendTools.ts'
import { rejoinRun } from './agui/rejoin.ts'
import { answeredElsewhere } from './agui/staleAnswer.ts'
import { parsePostRequest, readJsonBody, type AguiFields, type ParsedRequest } from './http/requests.ts'
import type { ResumeRequest } from '../protocol/requests.ts'
import { answerUIMessageRequest } from './aisdk/uiMessageChat.ts'
import { isUIMessageRequest } from './aisdk/uiMessageRequest.ts'
import { startTurn } from './claim/startTurn.ts'
import { resume } from './claim/resume.ts'
import { stopRun } from './claim/stop.ts'
import { revoke, revokeGrantOf } from './claim/grantRevocation.ts'
import { read } from './http/reads.ts'
import { requestHeader, takesNodeRequests } from './http/nodeRequest.ts'
import { answerTanStack, isTanStackRequest } from './tanstack/tanStackChat.ts'

/** A Fetch API handler: works with any server that speaks `Request`/`Response` (and with `toNodeHandler`). */
export type ChatHandler = (request: Request) => Promise<Response>

/** The server API of a handler, for what happens outside a request: the gate's records and grants. */
export interface ChatRecords {
  /** The thread's decision records, oldest first, checked against their MACs (digests without a secret), the head and the calls the thread shows (throws `DECISION_RECORD_ALTERED`). */
  decisions(threadId: string): Promise<readonly DecisionRecord[]>
  /** The thread's grants in force (expired ones included until revoked; they cover nothing). */
  grants(threadId: string): Promise<readonly Grant[]>
  /** Revokes a grant (throws `GRANT_NOT_FOUND`): later calls it covered ask again. */
  revokeGrant(threadId: string, grantId: string): Promise<void>
  /**
   * Decides an approval from the app's own backend (a Slack button, an email reply): recorded with
   * channel `api`, under the same reviewer rules as the chat; the run resumes detached once the
   * step is complete. Throws the `HttpError` a chat answer would get.
   */
  decide(input: DecideInput): Promise<DecideResult>
}

/**
 * The chat endpoint. `POST { threadId?, message }` starts a turn and `POST { threadId, resume }`
 * answers interrupts; both stream AG-UI events as Server-Sent Events. `GET ?threadId=` returns
 * the thread. Refusals are JSON `{ error: { code, message, path? } }`.
 *
 * A turn, top to bottom: `http/requests.ts` checks the body; `claim/startTurn.ts` (or `resume.ts`) claims the thread
 * (one compare-and-set of a change from `thread/transitions.ts`) and ends in `run/startRun.ts`;
 * `run/driveRun.ts` drives the run (`modelStep.ts` streams the model, `toolCalls.ts` plans, settles
 * and runs the calls); `events/runEvents.ts` writes every event. GETs are `http/reads.ts`.
 */
// `TContext` is inferred from `context` and must satisfy every tool's `contextSchema`: a handler
// whose context lacks a tool's key does not compile.
export function createChatHandler<
  const TTools extends readonly AnyTool[] = readonly AnyTool[],
  TContext extends ToolsContext<TTools> = ToolsContext<TTools>,
>(options: ChatHandlerOptions<TContext, TTools> & ContextOption<TTools>): ChatHandler & ChatRecords {
  const config = resolveConfig(options)
  return Object.assign(requestHandler(config), {
    decisions: async (threadId: string) => {
      const head = await config.store.head(threadId)
      if (!head) throw threadNotFound(threadId)
      return verifiedDecisions(config, head, await loadMessages(config.store, head))
    },
    grants: async (threadId: string) => {
      const head = await config.store.head(threadId)
      if (!head) throw threadNotFound(threadId)
      return head.grants ?? []
    },
    revokeGrant: (threadId: string, grantId: string) => revoke(config, threadId, grantId),
    decide: (input: DecideInput) => decide(config, input),
  })
}

function requestHandler(config: ChatConfig) {
  const { telemetry } = config
  if (!telemetry) return takesNodeRequests((request: Request) => handle(config, request))
  return takesNodeRequests(async (request: Request) => {
    // Its trace context is read header by header: under `toNodeHandler` the request's `Headers` are never built for it.
    telemetry.requestStarted(request, (name) => requestHeader(request, name))
    const response = await handle(config, request)
    telemetry.requestEnded(request, response.status, response.status >= 400 ? await errorCodeOf(response) : undefined)
    return response
  })
}

/**
 * Not async: an async function's frame (a few hundred bytes held while it waits) for every request
 * would only re-throw into `errorResponse`, which the answer's own promise can do.
 */
function handle(config: ChatConfig, request: Request): Promise<Response> {
  try {
    return answerOf(config, request).catch(errorResponse)
  } catch (error) {
    return Promise.resolve(errorResponse(error))
  }
}

function answerOf(config: ChatConfig, request: Request): Promise<Response> {
  // TanStack AI's `useChat` (tanstack/), chosen by `?client=tanstack`: same runs, its shapes.
  if (isTanStackRequest(request)) return answerTanStack(config, request, post)
  if (request.method === 'POST') return post(config, request)
  if (request.method === 'GET') return read(config, request)
  throw new HttpError(405, 'METHOD_NOT_ALLOWED', `Use POST to chat and GET to read a thread, not ${echoed(request.method)}`)
}

/** The `code` of a JSON refusal, read from a copy so the response goes out whole. */
async function errorCodeOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } }
    return typeof body.error?.code === 'string' ? body.error.code : undefined
  } catch {
    return undefined
  }
}

async function post(config: ChatConfig, request: Request): Promise<Response> {
  const raw = await readJsonBody(request, config.limits.maxBodyBytes)
  // The AI SDK's `useChat` (aisdk/): its body becomes a ParsedRequest, its answer a UI message stream
  // (the run tells its events in that dialect: events/eventFrames.ts).
  // `return await`: a promise returned unawaited from an async function settles it through an extra promise job, two microtask turns later.
  if (isUIMessageRequest(raw)) return await answerUIMessageRequest(config, request, raw, (body) => answer(config, request, body))
  return await answer(config, request, parsePostRequest(raw))
}


/**
 * Not async: each branch hands on the promise of the function that answers, one promise and one
 * await fewer per request. (A throw here is `post`'s to turn into its refusal, as it awaits this.)
 */
function answer(config: ChatConfig, request: Request, body: ParsedRequest): Promise<Response> {
  if ('review' in body) return review(config, request, body)
  if ('revokeGrant' in body) return revokeGrantOf(config, request, body)
  const kind = 'stop' in body ? 'stop' : 'resume' in body ? 'resume' : 'message'
  config.telemetry?.describeRequest(request, { kind, threadId: body.threadId })
  if ('stop' in body) return stopRun(config, request, body)
  const scoped = body.declaredTools ? withFrontendTools(config, body.declaredTools) : config
  if (!('resume' in body)) return startTurn(scoped, request, body)
  return body.agui ? followOrResume(scoped, request, body) : resume(scoped, request, body)
}

/** An AG-UI client connecting while a run holds the thread (a page reloaded mid-run) follows the run; a stale tab's answer gets the thread as it stands. */
async function followOrResume(config: ChatConfig, request: Request, body: ResumeRequest & AguiFields): Promise<Response> {
  return (await rejoinRun(config, request, body)) ?? (await answeredElsewhere(config, request, body, () => resume(config, request, body)))
}
