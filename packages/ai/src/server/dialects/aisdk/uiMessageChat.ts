import type { ChatConfig } from '../../options.ts'
import { HttpError } from '../../errors.ts'
import type { AguiInput } from '../agui/runAgentInput.ts'
import type { AiSdkThread } from '../../../protocol/aiSdk.ts'
import type { ThreadSnapshot } from '../../../protocol/thread.ts'
import { toAiSdkThread } from './uiThread.ts'
import { atRequestPath, parseUIMessageRequest } from './uiMessageRequest.ts'
import { uiMessageFrames, uiMessageStreamResponse, type UIMessageStreamOptions } from './uiMessageStream.ts'
import { answerTold } from '../../events/eventFrames.ts'
import type { ReadFormat } from '../../edge/reads.ts'
import { refuseStaleAnswers } from '../agui/staleRefusals.ts'

/**
 * Answers the AI SDK's chat request: the body becomes what the handler takes from any client (a
 * new message, or answers), `post` handles it as it would an AG-UI request, and the run's events
 * come back as a UI message stream. Refusals stay JSON errors, with paths into `messages`.
 */
export function answerUIMessageRequest(
  config: ChatConfig,
  request: Request,
  body: Record<string, unknown>,
  post: (parsed: AguiInput) => Promise<Response>,
): Promise<Response> {
  const chat = parseUIMessageRequest(body)
  refuseStaleAnswers(request)
  return answerTold(
    request,
    uiMessageFrames({ ...uiStreamOptions(config, request, chat.knownCalls), givenOutputs: chat.outputs }),
    async () => {
      try {
        return await post(chat.parsed)
      } catch (error) {
        throw error instanceof HttpError ? atRequestPath(error, chat) : error
      }
    },
    (response) => asUIMessageStream(config, request, response, chat.knownCalls),
  )
}

/**
 * `GET ?threadId=&format=ai-sdk` (edge/reads.ts): the snapshot as `useChat({ messages })` takes it,
 * and with `&stream` or `Accept: text/event-stream` the run as a UI message stream (a reconnect).
 */
export function aiSdkReads(config: ChatConfig, request: Request): ReadFormat {
  return { events: (attach) => uiMessageStreamOf(config, request, attach), thread: (snapshot) => uiThreadOf(config, request, snapshot) }
}

function uiThreadOf(config: ChatConfig, request: Request, snapshot: ThreadSnapshot): AiSdkThread {
  return toAiSdkThread(snapshot, { endpoint: new URL(request.url).pathname, isServerTool: (name) => config.tools.get(name)?.side === 'server' })
}

/**
 * `GET ?threadId=&format=ai-sdk&stream`, `useChat({ resume: true })`'s first request on every
 * mount: the thread's run under way as a UI message stream, else `204`. A new chat's id names no
 * thread yet (its first message creates it), and that too is "no stream": the AI SDK takes `204`
 * as nothing to resume and stays `ready`, where an error would leave it in `error`.
 */
export async function uiMessageStreamOf(config: ChatConfig, request: Request, attach: () => Promise<Response>): Promise<Response> {
  try {
    return asUIMessageStream(config, request, await attach())
  } catch (error) {
    if (error instanceof HttpError && error.code === 'THREAD_NOT_FOUND') return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } })
    throw error
  }
}

/**
 * A run's AG-UI event stream (a POST's, or a reattaching GET's) as a UI message stream; any other
 * response (a JSON refusal, `204` when no run streams) as it is.
 */
export function asUIMessageStream(config: ChatConfig, request: Request, response: Response, knownCalls: ReadonlyMap<string, string | undefined> = new Map()): Response {
  if (!response.body || !/^text\/event-stream\b/.test(response.headers.get('content-type') ?? '')) return response
  return uiMessageStreamResponse(response.body, uiStreamOptions(config, request, knownCalls))
}

function uiStreamOptions(config: ChatConfig, request: Request, knownCalls: ReadonlyMap<string, string | undefined>): UIMessageStreamOptions {
  return { isServerTool: (name) => config.tools.get(name)?.side === 'server', knownCalls, endpoint: new URL(request.url).pathname }
}
