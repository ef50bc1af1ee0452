import { HttpError, STORE_UNAVAILABLE } from '../errors.ts'
import { capText } from '../../util/capText.ts'
import type { ErrorBody, ErrorCode } from '../../protocol/errors.ts'
import { isStoreError } from '../stores/storeError.ts'

export function errorBody(code: ErrorCode, message: string, path?: string): ErrorBody {
  return { error: path === undefined ? { code, message } : { code, message, path } }
}

/** A JSON answer that no cache keeps: threads and errors change from one request to the next. */
export function jsonResponse(status: number, body: unknown, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  })
}

/** Seconds a client waits before retrying after a store failure: about what a store takes to restart or fail over. */
const STORE_RETRY_AFTER_S = 2

/** Seconds a client waits before retrying when the server runs as many runs as it may: about a turn's length. */
const BUSY_RETRY_AFTER_S = 1

/** The most of a refusal's message and `path` an error body carries. */
const MAX_MESSAGE_CHARS = 1000
const MAX_PATH_CHARS = 200

/** Any failure before the event stream starts becomes a JSON error response; unknown ones are a 500 without details. */
export function errorResponse(error: unknown): Response {
  if (error instanceof HttpError) {
    const headers: Record<string, string> = error.status === 405 ? { allow: 'GET, POST' } : error.status === 429 ? { 'retry-after': String(BUSY_RETRY_AFTER_S) } : {}
    // However a refusal was worded, its body never carries more than a bounded prefix of what it refuses (a value, a key in a path).
    return jsonResponse(error.status, errorBody(error.code, capText(error.message, MAX_MESSAGE_CHARS), error.path === undefined ? undefined : capText(error.path, MAX_PATH_CHARS)), headers)
  }
  if (isStoreError(error)) {
    // One line: the message names the store, the operation and the failure's class or code; a driver's stack says nothing more, once per request of an outage.
    console.error(`[toolgate] ${error.message}: answered 503 STORE_ERROR`)
    return jsonResponse(503, errorBody('STORE_ERROR', STORE_UNAVAILABLE), { 'retry-after': String(STORE_RETRY_AFTER_S) })
  }
  console.error('[toolgate] chat handler failed:', error)
  return jsonResponse(500, errorBody('INTERNAL', 'The chat handler failed; see the server log'))
}
