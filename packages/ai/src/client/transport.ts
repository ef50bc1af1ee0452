import type { ErrorBody } from '../protocol/errors.ts'
import type { ToolInterrupt } from '../protocol/interrupts.ts'
import type { ChatRequest } from '../protocol/requests.ts'
import type { ThreadSnapshot } from '../protocol/thread.ts'
import { ChatError, type ChatErrorCode } from './chatError.ts'
import type { Fetch } from '../util/Fetch.ts'
import { isRecord } from '../util/isRecord.ts'
import { isToolInterrupt } from './guards.ts'
import { untilAborted } from './untilAborted.ts'

/** POSTs a turn or a resume; resolves with a successful response, else throws a `ChatError`. */
export function postChat(fetch: Fetch, endpoint: string, body: ChatRequest, signal: AbortSignal): Promise<Response> {
  const init: RequestInit = {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json' },
    body: JSON.stringify(body),
    signal,
  }
  return send(fetch, endpoint, init, signal)
}

/** GETs a thread's snapshot. */
export async function getThread(fetch: Fetch, endpoint: string, threadId: string, signal: AbortSignal): Promise<ThreadSnapshot> {
  const url = `${endpoint}${endpoint.includes('?') ? '&' : '?'}threadId=${encodeURIComponent(threadId)}`
  const response = await send(fetch, url, { method: 'GET', headers: { accept: 'application/json' }, signal }, signal)
  const snapshot = await readJson(response, signal)
  if (!isThreadSnapshot(snapshot)) throw new ChatError('BAD_RESPONSE', 'The server sent a thread that is not a ThreadSnapshot')
  return snapshot
}

/** Reads a POST's JSON answer, a 202: the answers are stored and others of the batch are still missing. */
export async function readAccepted(response: Response, signal: AbortSignal): Promise<{ readonly threadId: string | undefined; readonly interrupts: readonly ToolInterrupt[] }> {
  const body = await readJson(response, signal)
  if (!isRecord(body) || !Array.isArray(body.interrupts) || !body.interrupts.every(isToolInterrupt)) {
    throw new ChatError('BAD_RESPONSE', 'The server sent JSON that is neither an event stream nor ResumeAccepted')
  }
  return { threadId: typeof body.threadId === 'string' ? body.threadId : undefined, interrupts: body.interrupts }
}

/**
 * GETs the rest of a run as an event stream: the events after `after`, then the live ones. `gone`
 * when the server keeps no events of it (204: no run streams; 404: unknown or expired).
 */
export async function attachRun(
  fetch: Fetch,
  endpoint: string,
  threadId: string,
  from: { readonly runId: string; readonly after: number },
  signal: AbortSignal,
): Promise<Response | 'gone'> {
  const query = `threadId=${encodeURIComponent(threadId)}&runId=${encodeURIComponent(from.runId)}&after=${from.after}`
  const url = `${endpoint}${endpoint.includes('?') ? '&' : '?'}${query}`
  try {
    const response = await send(fetch, url, { method: 'GET', headers: { accept: 'text/event-stream' }, signal }, signal)
    if (response.status === 204) return 'gone'
    return response
  } catch (error) {
    if (error instanceof ChatError && error.code === 'RUN_NOT_FOUND') return 'gone'
    throw error
  }
}

export async function readJson(response: Response, signal: AbortSignal): Promise<unknown> {
  try {
    return await untilAborted(response.json(), signal)
  } catch (error) {
    if (signal.aborted) throw error
    throw new ChatError('BAD_RESPONSE', `The server sent a response that is not JSON (HTTP ${response.status})`, { cause: error })
  }
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

/**
 * The server's `ErrorBody` as a `ChatError`. Anything else did not come from the chat handler (it
 * always answers an `ErrorBody`), so it is classified by status and says what to check, never
 * `INTERNAL`, whose details would be in an `onError` that was never called.
 */
async function errorFrom(response: Response, request: string): Promise<ChatError> {
  const text = await response.text().catch(() => '')
  const error = parseErrorBody(text)
  if (error) return new ChatError(error.code, error.message, { status: response.status, ...(error.path ? { path: error.path } : {}) })
  const { status } = response
  const answered = `${request} answered HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''}`
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

function isThreadSnapshot(value: unknown): value is ThreadSnapshot {
  return (
    isRecord(value) &&
    typeof value.threadId === 'string' &&
    Array.isArray(value.messages) &&
    value.messages.every(isRecord) &&
    Array.isArray(value.interrupts) &&
    value.interrupts.every(isToolInterrupt)
  )
}
