import type { Fetch } from '../../util/Fetch.ts'
import { isRecord } from '../../util/isRecord.ts'
import { ModelProviderError } from '../../model/ModelProviderError.ts'

/** What an error answer is read from, whichever HTTP client got it. */
export interface ErrorAnswer {
  readonly status: number
  readonly statusText: string
  readonly text: string
  /** A response header, by lower-case name. */
  readonly header: (name: string) => string | null | undefined
}

/** OpenAI sends `{ error: { message, type, code } }`, Anthropic `{ type: 'error', error: { type, message } }`. */
export function httpError(provider: string, { status, statusText, text, header }: ErrorAnswer): ModelProviderError {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  // Gemini answers a list of one `{ error: { code, message, status } }`.
  const root = Array.isArray(body) && body.length > 0 ? body[0] : body
  const error = isRecord(root) ? (isRecord(root.error) ? root.error : typeof root.error === 'string' ? { message: root.error } : root) : {}
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : text.trim().slice(0, 300) || statusText
  const type = typeof error.type === 'string' ? error.type : typeof error.code === 'string' ? error.code : typeof error.status === 'string' ? error.status : undefined
  const requestId = header('x-request-id') ?? header('request-id') ?? undefined
  return new ModelProviderError('PROVIDER_HTTP_ERROR', provider, `${provider} answered ${status}: ${message || 'no message'}${requestId ? ` (request ${requestId})` : ''}`, {
    status,
    type,
    requestId,
    retryAfterMs: retryAfterOf(header),
  })
}

/** `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date. */
function retryAfterOf(header: ErrorAnswer['header']): number | undefined {
  const ms = Number.parseFloat(header('retry-after-ms') ?? '')
  if (Number.isFinite(ms) && ms >= 0) return ms
  const value = header('retry-after')
  if (value === null || value === undefined) return undefined
  const seconds = Number(value)
  if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/** The provider could not be reached (nothing was answered). */
export function networkError(provider: string, error: unknown): ModelProviderError {
  return new ModelProviderError('PROVIDER_NETWORK_ERROR', provider, `${provider} could not be reached: ${describe(error)}`, { cause: error })
}

/** Reading the stream failed (the connection broke): a stream error, unless the run was aborted. */
export function readError(provider: string, error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || error instanceof ModelProviderError) return error
  return new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} stream broke: ${describe(error)}`, { cause: error })
}

/** `fetch failed (connect ECONNREFUSED 127.0.0.1:9)`: undici hides the reason in `cause`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? error.cause.message : undefined
  return cause && cause !== error.message ? `${error.message} (${cause})` : error.message
}

/** What every transport is given: one streaming POST of a provider's request. */
export interface PostOptions {
  /** `OpenAI`, `Anthropic`: names the provider in errors. */
  readonly provider: string
  /** The app's own `fetch` (always used when given); else the runtime's fastest client. */
  readonly fetch: Fetch | undefined
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: unknown
  readonly signal: AbortSignal
}
