import type { Fetch } from '../../util/Fetch.ts'
import { isRecord } from '../../util/isRecord.ts'
import { readSseData } from '../../util/readSseData.ts'
import { ModelProviderError } from '../../model/ModelProviderError.ts'

export interface PostOptions {
  /** `OpenAI`, `Anthropic`: names the provider in errors. */
  readonly provider: string
  readonly fetch: Fetch | undefined
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: unknown
  readonly signal: AbortSignal
}

/** POSTs a streaming request; resolves to the event stream, or throws the provider's error. */
export async function postForStream(options: PostOptions): Promise<ReadableStream<Uint8Array>> {
  const { provider, signal } = options
  const fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  let response: Response
  try {
    response = await fetcher(options.url, {
      method: 'POST',
      headers: mergeHeaders({ 'content-type': 'application/json', accept: 'text/event-stream' }, options.headers),
      body: JSON.stringify(options.body),
      signal,
    })
  } catch (error) {
    if (signal.aborted) throw error
    throw new ModelProviderError('PROVIDER_NETWORK_ERROR', provider, `${provider} could not be reached: ${describe(error)}`, { cause: error })
  }
  if (!response.ok) throw await httpError(provider, response)
  if (!response.body) throw new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} answered ${response.status} without a body`)
  return response.body
}

/**
 * The `data` of each event of a provider's stream. Providers may close the stream without the last
 * blank line, so a cut-off event still counts. An abort rejects with the signal's reason, as a
 * `ChatModel` must, rather than ending the stream quietly: no event is passed on after it.
 */
export async function* readEventData(stream: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<string, void, undefined> {
  for await (const data of readSseData(stream, signal, { flushAtEnd: true })) {
    signal.throwIfAborted()
    yield data
  }
  signal.throwIfAborted()
}

/** OpenAI sends `{ error: { message, type, code } }`, Anthropic `{ type: 'error', error: { type, message } }`. */
async function httpError(provider: string, response: Response): Promise<ModelProviderError> {
  const text = await response.text().catch(() => '')
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  const error = isRecord(body) ? (isRecord(body.error) ? body.error : typeof body.error === 'string' ? { message: body.error } : body) : {}
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : text.trim().slice(0, 300) || response.statusText
  const type = typeof error.type === 'string' ? error.type : typeof error.code === 'string' ? error.code : undefined
  return new ModelProviderError('PROVIDER_HTTP_ERROR', provider, `${provider} answered ${response.status}: ${message || 'no message'}`, {
    status: response.status,
    type,
  })
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

/** Reading the stream failed (the connection broke): a stream error, unless the run was aborted. */
export function readError(provider: string, error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || error instanceof ModelProviderError) return error
  return new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} stream broke: ${describe(error)}`, { cause: error })
}

export function endedEarly(provider: string): ModelProviderError {
  return new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} stream ended before the model finished`)
}

/** `fetch failed (connect ECONNREFUSED 127.0.0.1:9)`: undici hides the reason in `cause`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? error.cause.message : undefined
  return cause && cause !== error.message ? `${error.message} (${cause})` : error.message
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
