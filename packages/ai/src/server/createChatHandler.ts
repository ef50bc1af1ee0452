import { errorResponse, jsonResponse } from './edge/responses.ts'
import { echoed } from '../util/capText.ts'
import type { AnyTool } from '../tools/types.ts'
import { resolveConfig } from './config.ts'
import type { ChatConfig, ChatHandlerOptions, ContextOption, ToolsContext } from './options.ts'
import { HttpError, threadNotFound } from './errors.ts'
import type { DecisionRecord, Grant } from '../protocol/decisions.ts'
import { verifiedDecisions } from './decisions/records.ts'
import { loadMessages } from './thread/thread.ts'
import { review } from './claim/reviews.ts'
import { decide, type DecideInput, type DecideResult } from './decide.ts'
import { answerAgui } from './dialects/agui/aguiChat.ts'
import { isRunAgentInput, parseRunAgentInput, type AguiInput } from './dialects/agui/runAgentInput.ts'
import { parsePostRequest, readJsonBody } from './edge/requests.ts'
import type { PostRequest, ResumeAccepted } from '../protocol/requests.ts'
import { startRun, type ClaimedRun } from './run/startRun.ts'
import type { Resumed } from './claim/intent.ts'
import { toWire } from './thread/step.ts'
import { aiSdkReads, answerUIMessageRequest } from './dialects/aisdk/uiMessageChat.ts'
import { isUIMessageRequest } from './dialects/aisdk/uiMessageRequest.ts'
import { startTurn } from './claim/startTurn.ts'
import { resume } from './claim/resume.ts'
import { stopRun } from './claim/stop.ts'
import { appCall } from './claim/appCall.ts'
import { revoke, revokeGrantOf } from './claim/grantRevocation.ts'
import { read } from './edge/reads.ts'
import { takesNodeRequests } from './edge/node/nodeRequest.ts'
import { requestHeader } from './appRequest.ts'
import { answerTanStack, isTanStackRequest } from './dialects/tanstack/tanStackChat.ts'
import { answerPreOne, isPreOneClient } from './dialects/agui/protocolVersion.ts'
import { answerMcpProxy, isProxiedMcpRequest } from './dialects/agui/mcpAppProxy.ts'

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
 * A turn, top to bottom: `edge/requests.ts` reads the body and a dialect (`dialects/`, else the
 * compact protocol) parses it into an intent; `claim/startTurn.ts` (or `resume.ts`) claims the thread
 * (one compare-and-set of a change from `thread/transitions.ts`) and returns the claimed run, which `run/startRun.ts` starts;
 * `run/driveRun.ts` drives the run (`modelStep.ts` streams the model, `toolCalls.ts` plans, settles
 * and runs the calls); `events/runEvents.ts` writes every event. GETs are `edge/reads.ts`.
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
  // TanStack AI's `useChat` (dialects/tanstack/), chosen by `?client=tanstack`: same runs, its shapes.
  if (isTanStackRequest(request)) return answerTanStack(config, request, post)
  if (request.method === 'POST') return post(config, request)
  // The AI SDK's reads are told in its shapes (dialects/aisdk/); a `?format=` no dialect knows is read as none.
  if (request.method === 'GET') return read(config, request, aiSdkReads(config, request))
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

/**
 * A POST, routed: its dialect (the AI SDK's body, AG-UI's `RunAgentInput`, else the compact
 * protocol) parses it into an intent; a claim (claim/) turns that into data: a run, which
 * run/startRun.ts starts and streams, answers accepted, or a refusal (thrown). The AG-UI dialect
 * answers its own intents (dialects/agui/aguiChat.ts); the AI SDK's tells the same run in its stream.
 */
async function post(config: ChatConfig, request: Request): Promise<Response> {
  const raw = await readJsonBody(request, config.limits.maxBodyBytes)
  // `return await`: a promise returned unawaited from an async function settles it through an extra promise job, two microtask turns later.
  if (isUIMessageRequest(raw)) return await answerUIMessageRequest(config, request, raw, (input) => answer(config, request, input))
  if (!isRunAgentInput(raw)) return answered(config, await claim(config, request, parsePostRequest(raw)))
  // An MCP App's request, sent back through CopilotKit's host (dialects/agui/mcpAppProxy.ts).
  if (isProxiedMcpRequest(raw)) return await answerMcpProxy(config, request, raw)
  const input = parseRunAgentInput(raw)
  // An AG-UI client before 1.0 (no `protocolVersion`) is answered in the shapes it accepts (dialects/agui/protocolVersion.ts); TanStack's dialect has its own.
  if (isPreOneClient(input) && !isTanStackRequest(request)) return await answerPreOne(request, () => answer(config, request, input))
  return answered(config, await claim(config, request, input))
}

async function answer(config: ChatConfig, request: Request, body: PostRequest | AguiInput): Promise<Response> {
  return answered(config, await claim(config, request, body))
}

/**
 * The intent, claimed. Not async: each branch hands on the promise of the function that claims, one
 * promise fewer per request (a throw here is the caller's to turn into its refusal, as it awaits this).
 */
function claim(config: ChatConfig, request: Request, body: PostRequest | AguiInput): Promise<Response | ClaimedRun | Resumed> {
  if ('review' in body) return review(config, request, body).then(ok)
  if ('revokeGrant' in body) return revokeGrantOf(config, request, body).then(ok)
  if ('appCall' in body) return appCall(config, request, body)
  const kind = 'stop' in body ? 'stop' : 'resume' in body ? 'resume' : 'message'
  config.telemetry?.describeRequest(request, { kind, threadId: body.threadId })
  if ('stop' in body) return stopRun(config, request, body).then(ok)
  if ('agui' in body) return answerAgui(config, request, body)
  if (!('resume' in body)) return startTurn(config, request, body)
  return resume(config, request, body)
}

/** The response to a claim: its run's stream, or 202 with what still waits. */
function answered(config: ChatConfig, claimed: Response | ClaimedRun | Resumed): Response {
  if (claimed instanceof Response) return claimed
  if ('start' in claimed) return startRun(config, claimed)
  if ('run' in claimed) return startRun(config, claimed.run)
  if (!('accepted' in claimed)) throw new Error('A resume with answers answers something')
  const accepted: ResumeAccepted = { threadId: claimed.accepted.threadId, interrupts: claimed.accepted.waiting.map((interrupt) => toWire(interrupt, config.tools)) }
  return jsonResponse(202, accepted)
}

function ok(body: unknown): Response {
  return jsonResponse(200, body)
}
