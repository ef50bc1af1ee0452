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
  const method = init.method ?? 'GET'
  let response: Response
  try {
    response = await untilAborted(fetch(url, init), signal)
  } catch (error) {
    if (signal.aborted) throw error
    throw await explain((chunk) => chunk.networkError(error, method, url), () => new ChatError('NETWORK', `${method} ${url} failed`, { cause: error }))
  }
  if (response.ok) return response
  const text = await response.text().catch(() => '')
  const { status, statusText } = response
  throw await explain(
    (chunk) => chunk.errorFrom(status, statusText, text, method, url),
    () => new ChatError(status === 502 || status === 503 || status === 504 ? 'UNREACHABLE' : 'BAD_RESPONSE', `${method} ${url} answered HTTP ${status}`, { status }),
  )
}

// A failed request is told in words by a chunk loaded when one fails (`chunks/`); if even that cannot load, `bare` says what is known.
async function explain(words: (chunk: Awaited<ReturnType<typeof failedResponse.load>>) => ChatError, bare: () => ChatError): Promise<ChatError> {
  try {
    return words(await failedResponse.load())
  } catch {
    return bare()
  }
}
