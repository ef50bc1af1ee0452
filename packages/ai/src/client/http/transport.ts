import type { PostRequest } from '../../protocol/requests.ts'
import { ChatError } from '../chatError.ts'
import type { Fetch } from '../../util/Fetch.ts'
import { failedResponse } from '../chunks/index.ts'
import { untilAborted } from '../../util/untilAborted.ts'

/** POSTs a turn or a resume; resolves with a successful response, else throws a `ChatError`. */
export function postChat(fetch: Fetch, endpoint: string, body: PostRequest, signal: AbortSignal): Promise<Response> {
  const init: RequestInit = {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json' },
    body: JSON.stringify(body),
    signal,
  }
  return send(fetch, endpoint, init, signal)
}

export function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
}

// A custom fetch may ignore the signal; racing it makes `stop()` take effect all the same.
export async function send(fetch: Fetch, url: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
  let response: Response
  try {
    response = await untilAborted(fetch(url, init), signal)
  } catch (error) {
    if (signal.aborted) throw error
    const reason = error instanceof Error ? error.message : String(error)
    throw new ChatError('NETWORK', `${requested(init, url)} failed: ${reason}. Check that the chat server runs at that URL (from another origin, it must answer CORS).`, { cause: error })
  }
  if (response.ok) return response
  throw await errorFrom(response, requested(init, url))
}

/** `POST http://localhost:5173/api/chat`: the method and the URL as the page resolved it. */
function requested(init: RequestInit, url: string): string {
  let absolute = url
  try {
    absolute = new URL(url, globalThis.location?.href).href
  } catch {
    // no page to resolve against (Node, a worker without location): the URL as given
  }
  return `${init.method ?? 'GET'} ${absolute}`
}

// Reading a failed response is a chunk loaded when a request fails (`chunks/`); if even that cannot load, the status alone is reported.
async function errorFrom(response: Response, request: string): Promise<ChatError> {
  const text = await response.text().catch(() => '')
  const { status, statusText } = response
  try {
    return (await failedResponse.load()).errorFrom(status, statusText, text, request)
  } catch {
    return new ChatError(status === 502 || status === 503 || status === 504 ? 'UNREACHABLE' : 'BAD_RESPONSE', `${request} answered HTTP ${status}`, { status })
  }
}
