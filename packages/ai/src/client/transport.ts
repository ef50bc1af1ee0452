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
    throw new ChatError('NETWORK', `The request failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
  if (response.ok) return response
  throw await errorFrom(response)
}

/** The server's `ErrorBody` as a `ChatError`; anything else (a proxy's HTML page, say) by its status. */
async function errorFrom(response: Response): Promise<ChatError> {
  const text = await response.text().catch(() => '')
  const error = parseErrorBody(text)
  if (error) return new ChatError(error.code, error.message, { status: response.status, ...(error.path ? { path: error.path } : {}) })
  const code: ChatErrorCode = response.status >= 500 ? 'INTERNAL' : 'BAD_RESPONSE'
  return new ChatError(code, `The server answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`, {
    status: response.status,
  })
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
