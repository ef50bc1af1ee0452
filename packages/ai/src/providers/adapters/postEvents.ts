import { ModelProviderError } from '../../model/ModelProviderError.ts'
import { readSseData } from '../../util/readSseData.ts'
import { httpError, networkError, type PostOptions } from './providerErrors.ts'

/**
 * POSTs a provider's streaming request with `fetch` (the app's, else the global one) and resolves
 * to the `data` of each event of its answer, or throws the provider's error. The client on every
 * runtime but Node (`package.json` `imports`: `#post-events`): Workers, Edge, Bun, Deno, browsers.
 * Providers may close the stream without the last blank line, so a cut-off event still counts. An
 * abort rejects with the signal's reason, as a `ChatModel` must, rather than ending quietly.
 */
export async function postEvents(options: PostOptions): Promise<AsyncIterable<string>> {
  const { provider, signal } = options
  const fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  let response: Response
  try {
    response = await fetcher(options.url, { method: 'POST', headers: options.headers, body: JSON.stringify(options.body), signal })
  } catch (error) {
    if (signal.aborted) throw error
    throw networkError(provider, error)
  }
  if (!response.ok) {
    const text = await response.text().catch(() => '')
    throw httpError(provider, { status: response.status, statusText: response.statusText, text, header: (name) => response.headers.get(name) })
  }
  if (!response.body) throw new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} answered ${response.status} without a body`)
  return eventData(response.body, signal)
}

async function* eventData(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<string, void, undefined> {
  for await (const [data] of readSseData(body, signal, { flushAtEnd: true })) {
    signal.throwIfAborted()
    yield data
  }
  signal.throwIfAborted()
}
