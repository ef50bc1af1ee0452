import type { ErrorBody } from '../../protocol/errors.ts'
import { isRecord } from '../../util/isRecord.ts'
import { ChatError, type ChatErrorCode } from '../chatError.ts'

/** A request that got no answer at all (the server down, a wrong URL, CORS refused). */
export function networkError(error: unknown, method: string, url: string): ChatError {
  const reason = error instanceof Error ? error.message : String(error)
  return new ChatError('NETWORK', `${requested(method, url)} failed: ${reason}. Check that the chat server runs at that URL (from another origin, it must answer CORS).`, { cause: error })
}

/** `POST http://localhost:5173/api/chat`: the method and the URL as the page resolved it. */
function requested(method: string, url: string): string {
  let absolute = url
  try {
    absolute = new URL(url, globalThis.location?.href).href
  } catch {
    // no page to resolve against (Node, a worker without location): the URL as given
  }
  return `${method} ${absolute}`
}

/**
 * The server's `ErrorBody` as a `ChatError`. Anything else did not come from the chat handler (it
 * always answers an `ErrorBody`), so it is classified by status and says what to check, never
 * `INTERNAL`, whose details would be in an `onError` that was never called.
 */
export function errorFrom(status: number, statusText: string, text: string, method: string, url: string): ChatError {
  const request = requested(method, url)
  const error = parseErrorBody(text)
  if (error) return new ChatError(error.code, error.message, { status, ...(error.path ? { path: error.path } : {}) })
  const answered = `${request} answered HTTP ${status}${statusText ? ` ${statusText}` : ''}`
  const [code, message]: [ChatErrorCode, string] =
    status === 502 || status === 503 || status === 504
      ? ['UNREACHABLE', `${answered}: the server behind the proxy did not answer. Start the chat server, or check the proxy's target (Vite's server.proxy, nginx, ...).`]
      : status === 404 || status === 405
        ? ['BAD_RESPONSE', `${answered}: no chat handler serves that URL. Check \`endpoint\`; a page on a dev server (Vite) needs a proxy to the chat server (server.proxy: { '/api': 'http://127.0.0.1:3000' }), or an absolute \`endpoint\` and CORS on the server.`]
        : ['BAD_RESPONSE', `${answered}, not in the chat protocol: something other than the chat handler answered (a proxy, a framework's error page?).`]
  return new ChatError(code, message, { status })
}

function parseErrorBody(text: string): ErrorBody['error'] | undefined {
  try {
    const body: unknown = JSON.parse(text)
    const error = isRecord(body) ? body.error : undefined
    if (isRecord(error) && typeof error.code === 'string' && typeof error.message === 'string') return error as ErrorBody['error']
  } catch {
    // not JSON: fall through
  }
  return undefined
}
