import { HttpError } from '../errors.ts'
import type { ErrorBody, ErrorCode } from '../../protocol/errors.ts'

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

/** Any failure before the event stream starts becomes a JSON error response; unknown ones are a 500 without details. */
export function errorResponse(error: unknown): Response {
  if (error instanceof HttpError) {
    const headers: Record<string, string> = error.status === 405 ? { allow: 'GET, POST' } : {}
    return jsonResponse(error.status, errorBody(error.code, error.message, error.path), headers)
  }
  console.error('[toolgate] chat handler failed:', error)
  return jsonResponse(500, errorBody('INTERNAL', 'The chat handler failed; see the server log'))
}
