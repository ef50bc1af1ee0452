import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { sseParser } from '../../util/readSseData.ts'
import { postEvents as fetchPostEvents } from './postEvents.ts'
import { httpError, networkError, readError, type PostOptions } from './providerErrors.ts'

// On Node (`package.json` `imports`: `#post-events`, condition `node`), a provider's request goes
// out on `node:http`/`node:https` with a keep-alive agent, and its answer is parsed as it arrives on
// the socket: no undici `Request`/`Response`, no web stream between the socket and the parser, each
// chunk decoded once. A turn's two model calls then cost about half the client CPU they cost through
// `fetch` (bench/server.bench.ts, the model over HTTP). An app's own `fetch` is still used when given.

/** Connections kept open between calls: a turn's next model call, and the next turn's, skip the TCP and TLS handshakes. */
export const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) }

/** Events parsed but not yet read beyond which the socket is paused (back-pressure on a slow reader). */
const HIGH_WATER = 256

/** Where undici keeps the dispatcher `fetch` uses (`setGlobalDispatcher`): the default one is an `Agent`. */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')

export function postEvents(options: PostOptions): Promise<AsyncIterable<string>> {
  if (options.fetch || fetchIsRouted()) return fetchPostEvents(options)
  const { signal } = options
  signal.throwIfAborted()
  const body = JSON.stringify(options.body)
  return send(options, body, true)
}

/**
 * An app that routed `fetch` elsewhere (`setGlobalDispatcher` with a `ProxyAgent`, an
 * `EnvHttpProxyAgent`, a test's `MockAgent`) meant its provider calls too: they keep going through `fetch`.
 */
function fetchIsRouted(): boolean {
  const dispatcher = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER]
  return dispatcher !== undefined && (dispatcher as object | null)?.constructor?.name !== 'Agent'
}

function send(options: PostOptions, body: string, mayRetryStale: boolean): Promise<AsyncIterable<string>> {
  const { provider, signal } = options
  let url: URL
  try {
    url = new URL(options.url)
  } catch (error) {
    return Promise.reject(networkError(provider, error))
  }
  const secure = url.protocol === 'https:'
  if (!secure && url.protocol !== 'http:') return Promise.reject(networkError(provider, new TypeError(`unsupported protocol ${url.protocol}`)))
  return new Promise((resolve, reject) => {
    const request: ClientRequest = (secure ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      headers: { ...options.headers, 'content-length': Buffer.byteLength(body) },
    })
    const abort = () => request.destroy(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    if (signal.aborted) abort()
    const fail = (error: unknown) => {
      signal.removeEventListener('abort', abort)
      if (signal.aborted) return reject(signal.reason)
      // A kept-alive socket the server closed just as it was reused: sent again at once, on a new one (Node's advice for `reusedSocket`).
      if (mayRetryStale && request.reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET') return resolve(send(options, body, false))
      reject(networkError(provider, error))
    }
    request.once('error', fail)
    request.once('response', (response) => {
      request.off('error', fail)
      signal.removeEventListener('abort', abort)
      const status = response.statusCode ?? 0
      if (status < 200 || status > 299) {
        return void readText(response).then(
          (text) => reject(httpError(provider, { status, statusText: response.statusMessage ?? '', text, header: (name) => headerOf(response, name) })),
          () => reject(httpError(provider, { status, statusText: response.statusMessage ?? '', text: '', header: (name) => headerOf(response, name) })),
        )
      }
      resolve(events(provider, request, response, signal))
    })
    request.end(body)
  })
}

function headerOf(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name]
  return Array.isArray(value) ? value[0] : value
}

function readText(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => (text += chunk))
    response.once('end', () => resolve(text))
    response.once('error', reject)
  })
}

/** How long an answer the reader stopped reading (OpenAI's `[DONE]`) may take to end, its socket then kept; else closed. */
const DRAIN_MS = 5_000

/**
 * The `data` of each event of the answer, parsed from the socket's chunks as they come. A cut-off
 * last event still counts (providers may close without the blank line). An abort rejects with the
 * signal's reason and destroys the request: its socket is closed, never handed back to the pool
 * with an answer half read. A reader that stops early (OpenAI's `[DONE]`) lets the rest of the
 * answer drain, so the socket goes back to the pool, unless it takes longer than `DRAIN_MS`.
 */
function events(provider: string, request: ClientRequest, response: IncomingMessage, signal: AbortSignal): AsyncGenerator<string, void, undefined> {
  // Listeners go on at once, before the first read: an error or abort in between is not missed.
  const queue: string[] = []
  let head = 0
  let ended = false
  let failure: unknown
  let wake: (() => void) | undefined
  const notify = () => {
    const resume = wake
    wake = undefined
    resume?.()
  }
  const feed = sseParser((data) => {
    queue.push(data)
    if (queue.length - head >= HIGH_WATER) response.pause()
  })
  const onData = (chunk: string) => {
    feed(chunk)
    notify()
  }
  const onAbort = () => {
    failure ??= signal.reason
    request.destroy(signal.reason)
    notify()
  }
  const broke = (error: unknown) => {
    failure ??= signal.aborted ? signal.reason : readError(provider, error, signal)
    notify()
  }
  signal.addEventListener('abort', onAbort, { once: true })
  response.setEncoding('utf8')
  response.on('data', onData)
  response.once('end', () => {
    feed('', true)
    ended = true
    notify()
  })
  response.on('error', broke)
  response.once('aborted', () => broke(new Error('socket hang up')))
  request.on('error', broke)
  if (signal.aborted) onAbort()
  return read()

  async function* read(): AsyncGenerator<string, void, undefined> {
    try {
      for (;;) {
        while (head < queue.length) {
          const data = queue[head]!
          queue[head++] = ''
          if (signal.aborted) throw signal.reason
          yield data
        }
        queue.length = 0
        head = 0
        if (failure !== undefined) throw failure
        if (ended) return
        if (response.isPaused()) response.resume()
        await new Promise<void>((resolve) => (wake = resolve))
      }
    } finally {
      signal.removeEventListener('abort', onAbort)
      if (!ended && failure === undefined && !signal.aborted) {
        // Stopped early with nothing wrong: the rest is read and dropped, and the socket kept if it ends soon.
        response.off('data', onData)
        const timer = setTimeout(() => request.destroy(), DRAIN_MS)
        timer.unref()
        response.once('end', () => clearTimeout(timer))
        response.resume()
      } else if (!ended) request.destroy()
    }
  }
}
