import { postEvents } from '#post-events'
import { InvalidOptionError } from '../../errors.ts'
import type { ModelChunk } from '../../model/chatModel.ts'
import type { Fetch } from '../../util/Fetch.ts'
import { isRecord } from '../../util/isRecord.ts'
import { backoff, sleep } from '../../util/retry.ts'
import { ModelProviderError } from '../../model/ModelProviderError.ts'
import type { PostOptions } from './providerErrors.ts'

export { readError } from './providerErrors.ts'
export type { PostOptions } from './providerErrors.ts'

/** How every adapter calls its provider: retries, timeout. */
export interface CallOptions {
  /**
   * Retries of a request that failed before the model sent anything: HTTP 408, 409, 429 and 5xx,
   * provider "overloaded" errors, network errors and timeouts. Waits `retry-after` when the
   * provider says (up to a minute; longer is not retried), else backs off exponentially from
   * half a second, with jitter, up to 8 s. A stream that already yielded is never retried: the
   * runtime has passed its text on. Default 2.
   */
  readonly maxRetries?: number
  /** Milliseconds one attempt may take, streaming included. Default 600 000 (10 minutes). */
  readonly timeout?: number
  /** Default: the global `fetch`. */
  readonly fetch?: Fetch
}

/** Checks the options every adapter shares (its `model` among them); throws `InvalidOptionError` naming the bad one. */
export function checkCallOptions(adapter: string, options: CallOptions & { readonly model: string }): void {
  if (!isRecord(options) || typeof options.model !== 'string' || options.model === '') throw new InvalidOptionError(adapter, 'model', 'must be a non-empty string')
  const { maxRetries, timeout } = options
  if (maxRetries !== undefined && (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 10)) {
    throw new InvalidOptionError(adapter, 'maxRetries', 'must be an integer from 0 to 10')
  }
  if (timeout !== undefined && (!Number.isFinite(timeout) || timeout <= 0)) throw new InvalidOptionError(adapter, 'timeout', 'must be a positive number of milliseconds')
}

/** Where an adapter's credentials go, for the warning when it is given none. */
export interface KeyRequirement {
  /** The environment variable people keep the key in. */
  readonly env: string
  /** The header the key is sent in, which `headers` may set instead. */
  readonly header: string
  /** The provider's own host: another `baseURL` (a local or compatible server) may need no key. */
  readonly baseURL: string
}

const warnedWithoutKey = new Set<string>()

/**
 * One line at construction when every call is certain to fail with 401: no `apiKey`, no key
 * header, the provider's own host and the global `fetch` (a custom `fetch` may add credentials; a
 * test that passes one is never warned). Once per adapter and process.
 */
export function warnWithoutKey(
  adapter: string,
  options: { readonly apiKey?: string | undefined; readonly baseURL?: string | undefined; readonly headers?: Readonly<Record<string, string>> | undefined; readonly fetch?: unknown },
  key: KeyRequirement,
): void {
  if (options.apiKey || options.fetch || (options.baseURL && trimSlash(options.baseURL) !== key.baseURL)) return
  if (Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === key.header)) return
  if (warnedWithoutKey.has(adapter)) return
  warnedWithoutKey.add(adapter)
  console.warn(`[toolgate] ${adapter} has no API key, so every call to ${key.baseURL} will fail with 401: set ${key.env} and pass \`apiKey: process.env.${key.env}\`.`)
}

const MAX_RETRY_AFTER_MS = 60_000
const INITIAL_DELAY_MS = 500
const MAX_DELAY_MS = 8_000

/** One attempt: resolves the provider's stream of chunks, on a signal that also fires on timeout. */
export type Attempt = (signal: AbortSignal) => AsyncIterable<ModelChunk>

/**
 * Runs `attempt` with the shared call policy (see `CallOptions`): a timeout per attempt, retries
 * until the first chunk, and errors that never quote the API key. An abort of `signal` rejects
 * with the signal's reason at once, even mid-backoff.
 */
export async function* callWithRetries(provider: string, options: CallOptions & { readonly apiKey?: string | undefined }, signal: AbortSignal, attempt: Attempt): AsyncGenerator<ModelChunk> {
  const maxRetries = options.maxRetries ?? 2
  const timeout = options.timeout ?? 600_000
  for (let attempts = 1; ; attempts++) {
    const timer = new AbortController()
    const handle = setTimeout(() => timer.abort(new DOMException('The model call timed out', 'TimeoutError')), timeout)
    const attemptSignal = AbortSignal.any([signal, timer.signal])
    let yielded = false
    try {
      for await (const chunk of attempt(attemptSignal)) {
        yielded = true
        yield chunk
      }
      return
    } catch (thrown) {
      signal.throwIfAborted()
      let error = thrown
      if (timer.signal.aborted) error = new ModelProviderError('PROVIDER_TIMEOUT', provider, `${provider} did not finish within ${timeout} ms`)
      error = withAttempts(redact(error, options.apiKey), attempts)
      if (yielded || attempts > maxRetries || !isRetryable(error)) throw error
      const wait = retryDelay(error as ModelProviderError, attempts)
      if (wait === undefined) throw error
      await sleep(wait, signal)
    } finally {
      clearTimeout(handle)
    }
  }
}

function isRetryable(error: unknown): error is ModelProviderError {
  if (!(error instanceof ModelProviderError)) return false
  if (error.code === 'PROVIDER_NETWORK_ERROR' || error.code === 'PROVIDER_TIMEOUT') return true
  const status = error.status
  if (status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500)) return true
  // Anthropic sends `overloaded_error` (HTTP 529, or as an event before the first token); others say "overloaded" or "unavailable".
  return error.type !== undefined && /overloaded|rate_limit|unavailable|resource_exhausted|server_error|api_error/i.test(error.type)
}

const exponential = backoff(INITIAL_DELAY_MS, MAX_DELAY_MS)

/** `retry-after` when given (undefined when it asks for too long), else exponential backoff with jitter. */
function retryDelay(error: ModelProviderError, attempts: number): number | undefined {
  if (error.retryAfterMs !== undefined) return error.retryAfterMs <= MAX_RETRY_AFTER_MS ? error.retryAfterMs : undefined
  return exponential(attempts) * (1 - Math.random() * 0.25)
}

function withAttempts(error: unknown, attempts: number): unknown {
  if (!(error instanceof ModelProviderError) || attempts === 1) return error
  return new ModelProviderError(error.code, error.provider, `${error.message} (after ${attempts} attempts)`, {
    status: error.status,
    type: error.type,
    requestId: error.requestId,
    retryAfterMs: error.retryAfterMs,
    attempts,
    cause: error.cause,
  })
}

/** Providers sometimes echo the key they refused ("Incorrect API key provided: sk-..."): it never reaches a log from us. */
function redact(error: unknown, apiKey: string | undefined): unknown {
  if (!apiKey || apiKey.length < 4 || !(error instanceof ModelProviderError) || !error.message.includes(apiKey)) return error
  return new ModelProviderError(error.code, error.provider, error.message.split(apiKey).join('[redacted]'), {
    status: error.status,
    type: error.type,
    requestId: error.requestId,
    retryAfterMs: error.retryAfterMs,
    attempts: error.attempts,
  })
}

/**
 * POSTs a provider's streaming request and resolves to the `data` of each event of its answer, or
 * throws the provider's error. The HTTP client is the runtime's fastest (`#post-events`, by export
 * condition: `node:http` with a keep-alive agent on Node, `fetch` everywhere else), or the app's
 * own `fetch` when it gives one. An abort rejects with the signal's reason, as a `ChatModel` must:
 * no event is passed on after it.
 */
export function postForEvents(options: PostOptions): Promise<AsyncIterable<string>> {
  return postEvents({ ...options, headers: mergeHeaders({ 'content-type': 'application/json', accept: 'text/event-stream' }, options.headers) })
}

/** An error event inside a stream (both providers use `{ error: { type, message } }`). */
export function streamError(provider: string, error: unknown): ModelProviderError {
  const record = isRecord(error) ? error : {}
  const message = typeof record.message === 'string' ? record.message : JSON.stringify(error)
  const type = typeof record.type === 'string' ? record.type : typeof record.code === 'string' ? record.code : undefined
  return new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} stream failed: ${message}`, { type })
}

/** Parses one event's JSON; a broken chunk fails the stream rather than being skipped. */
export function parseEvent(provider: string, data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data)
    if (isRecord(value)) return value
  } catch {
    // reported below
  }
  throw new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} sent an event that is not a JSON object: ${data.slice(0, 200)}`)
}

export function endedEarly(provider: string): ModelProviderError {
  return new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} stream ended before the model finished`)
}

/** Header names are case-insensitive: `Authorization` given by the app replaces our `authorization`. */
export function mergeHeaders(...layers: (Readonly<Record<string, string>> | undefined)[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const layer of layers) for (const [name, value] of Object.entries(layer ?? {})) out[name.toLowerCase()] = value
  return out
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '')
}
