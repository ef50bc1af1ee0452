import { ToolgateError } from '../errors.ts'

export type ModelProviderErrorCode =
  /** The provider answered with an HTTP error status (401, 429, 500, ...). */
  | 'PROVIDER_HTTP_ERROR'
  /** The stream broke: an error event, a chunk that is not JSON, or an end before the model finished. */
  | 'PROVIDER_STREAM_ERROR'
  /** The provider could not be reached at all (DNS, refused connection, TLS). */
  | 'PROVIDER_NETWORK_ERROR'
  /** The request took longer than the adapter's `timeout`. */
  | 'PROVIDER_TIMEOUT'

/**
 * A model provider refused or broke a request. The message carries the provider's own words
 * (`OpenAI answered 429: Rate limit reached ...`), for server logs: they may name internal hosts
 * or hint at a key. The chat runtime reports the failure to the browser as `MODEL_ERROR` with
 * only `status` and `type` (`The model provider failed (HTTP 429, rate_limit_error)`).
 */
export class ModelProviderError extends ToolgateError {
  declare readonly code: ModelProviderErrorCode
  /** `OpenAI` or `Anthropic`. */
  readonly provider: string
  /** The HTTP status (`PROVIDER_HTTP_ERROR` only). */
  readonly status: number | undefined
  /** The provider's error type or code, e.g. `rate_limit_error`, `invalid_api_key`. */
  readonly type: string | undefined
  /** The provider's id for the request (`x-request-id`, `request-id`), to quote to its support. */
  readonly requestId: string | undefined
  /** How long the provider asked to wait before trying again, in milliseconds (`retry-after`). */
  readonly retryAfterMs: number | undefined
  /** How many attempts were made, retries included. */
  readonly attempts: number

  constructor(
    code: ModelProviderErrorCode,
    provider: string,
    message: string,
    details: { status?: number; type?: string | undefined; requestId?: string | undefined; retryAfterMs?: number | undefined; attempts?: number; cause?: unknown } = {},
  ) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause })
    this.provider = provider
    this.status = details.status
    this.type = details.type
    this.requestId = details.requestId
    this.retryAfterMs = details.retryAfterMs
    this.attempts = details.attempts ?? 1
  }
}
