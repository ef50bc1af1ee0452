import { loadAuthorized } from './authorizeThread.ts'
import { resolveConfig, type ChatConfig, type ChatHandlerOptions } from './config.ts'
import { HttpError, errorResponse } from './errors.ts'
import { jsonResponse } from './jsonResponse.ts'
import { parseChatRequest } from './parseRequest.ts'
import { readJsonBody } from './readJsonBody.ts'
import { resume } from './resume.ts'
import { snapshot } from './snapshot.ts'
import { startTurn } from './startTurn.ts'

/** A Fetch API handler: works with any server that speaks `Request`/`Response` (and with `toNodeHandler`). */
export type ChatHandler = (request: Request) => Promise<Response>

/**
 * The chat endpoint. `POST { threadId?, message }` starts a turn and `POST { threadId, resume }`
 * answers interrupts; both stream AG-UI events as Server-Sent Events. `GET ?threadId=` returns
 * the thread. Refusals are JSON `{ error: { code, message, path? } }`.
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
  const { thread } = await loadAuthorized(config, request, threadId, 'read')
  return jsonResponse(200, snapshot(thread, config.limits.runLeaseMs, config.toolset))
}
