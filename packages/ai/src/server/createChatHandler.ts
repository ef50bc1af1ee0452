import { resolveConfig, type ChatConfig, type ChatHandlerOptions } from './config.ts'
import { HttpError, errorResponse, jsonResponse } from './errors.ts'
import { parseChatRequest, readJsonBody } from './requests.ts'
import { loadHead, loadMessages, snapshot } from './thread.ts'
import { resume, startTurn } from './turns.ts'

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
export function createChatHandler<TContext = undefined>(options: ChatHandlerOptions<TContext>): ChatHandler {
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
  const body = parseChatRequest(await readJsonBody(request, config.limits.maxBodyBytes))
  return 'resume' in body ? resume(config, request, body) : startTurn(config, request, body)
}

async function get(config: ChatConfig, request: Request): Promise<Response> {
  const threadId = new URL(request.url).searchParams.get('threadId')
  if (!threadId) throw new HttpError(400, 'INVALID_REQUEST', 'Pass the thread to read as `?threadId=`', 'threadId')
  const head = await loadHead(config, request, threadId, 'read')
  const messages = await loadMessages(config.store, head)
  return jsonResponse(200, snapshot(head, messages, config.limits.runLeaseMs, config.tools))
}
