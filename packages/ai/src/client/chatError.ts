import { ToolgateError } from '../errors.ts'
import type { ErrorCode } from '../protocol/errors.ts'

/**
 * Why a request failed, as `ChatState.error`. `code` is the server's stable `ErrorCode`, or one of
 * the client's own:
 * - `NETWORK`: the request failed or the connection broke before the run finished.
 * - `BAD_RESPONSE`: the server answered something that is not the protocol (malformed events, HTML,
 *   a 404 from a server with no chat handler at that URL, ...); the message names the URL.
 * - `UNREACHABLE`: a proxy answered 502, 503 or 504 for the chat server behind it, which is down.
 */
export type ChatErrorCode = ErrorCode | 'NETWORK' | 'BAD_RESPONSE' | 'UNREACHABLE'

export class ChatError extends ToolgateError {
  declare readonly code: ChatErrorCode
  /** The HTTP status, when the server answered with an error response. */
  readonly status: number | undefined
  /** Where in the request body the problem is, when the server said. */
  readonly path: string | undefined

  constructor(code: ChatErrorCode, message: string, options?: { status?: number; path?: string; cause?: unknown }) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.status = options?.status
    this.path = options?.path
  }
}
