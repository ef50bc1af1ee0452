import { ToolgateError } from '../errors.ts'
import type { ErrorBody, ErrorCode } from '../protocol/errors.ts'
import { jsonResponse } from './jsonResponse.ts'

/** A refusal the handler answers with `status` and a JSON `ErrorBody`; `code` is stable. */
export class HttpError extends ToolgateError {
  declare readonly code: ErrorCode
  readonly status: number
  readonly path: string | undefined

  constructor(status: number, code: ErrorCode, message: string, path?: string) {
    super(code, message)
    this.status = status
    this.path = path
  }
}

export function errorBody(code: ErrorCode, message: string, path?: string): ErrorBody {
  return { error: path === undefined ? { code, message } : { code, message, path } }
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
