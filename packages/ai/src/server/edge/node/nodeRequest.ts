import type { IncomingMessage } from 'node:http'
import { STAND_IN, type StandIn } from '../../appRequest.ts'
import { OFFER_FRAMES, type OfferedFrames } from '../../events/directFrames.ts'

// A Fetch `Request` costs more than the rest of a short turn's HTTP handling (its URL, headers
// list, body stream and signal are each built eagerly). Under `toNodeHandler` the chat handler
// (marked with `takesNodeRequests`; any other Fetch handler gets a real `Request`) gets a `NodeRequest` instead: it reads the method, a header or the body straight from Node's
// request, and builds the real `Request` only when something asks for more. The app's own hooks
// (`authorize`, `context`) always get a real one (`fetchRequest`): they may clone it or pass it
// to `fetch`, which a stand-in cannot survive.

/** What `toNodeHandler` hands over with a `NodeRequest`. */
export interface NodeRequestSource {
  readonly req: IncomingMessage
  /** The absolute URL, built when first asked for. */
  readonly url: () => string
  /** The body's whole bytes once read (a small declared body), or (`stream`) a stream that reads on demand; neither: none (GET). */
  readonly whole?: Promise<Uint8Array>
  readonly stream?: ReadableStream<Uint8Array>
  /** Whether the client already left, and a way to hear when it does. */
  readonly gone: () => boolean
  readonly onGone: (listener: () => void) => void
}

const CLIENT_LEFT = 'The client disconnected'

/**
 * A `Request` built from Node's only when needed. It is `instanceof Request`, and every property
 * `Request` has answers as the real one would: `method`, `url`, `headers` and `signal` from Node's
 * request, the others from the real `Request`, made on first use.
 */
export class NodeRequest {
  readonly #source: NodeRequestSource
  #headers: Headers | undefined
  #signal: AbortSignal | undefined
  #real: Request | undefined
  #bodyTaken = false
  #frames: OfferedFrames | undefined

  constructor(source: NodeRequestSource) {
    this.#source = source
  }

  get method(): string {
    return this.#source.req.method ?? 'GET'
  }

  get url(): string {
    return this.#source.url()
  }

  /** The request target as the client sent it (path and query), without building the absolute URL. */
  get target(): string {
    return this.#source.req.url ?? '/'
  }

  get headers(): Headers {
    this.#headers ??= headersOf(this.#source.req)
    return this.#headers
  }

  get signal(): AbortSignal {
    if (!this.#signal) {
      const controller = new AbortController()
      this.#signal = controller.signal
      if (this.#source.gone()) controller.abort(new Error(CLIENT_LEFT))
      else this.#source.onGone(() => controller.abort(new Error(CLIENT_LEFT)))
    }
    return this.#signal
  }

  /** One header's value, as `headers.get` gives it, without building `Headers`. */
  header(name: string): string | null {
    if (this.#headers) return this.#headers.get(name)
    const value = this.#source.req.headers[name]
    if (value === undefined) return null
    return Array.isArray(value) ? value.join(', ') : value
  }

  /**
   * The body's bytes when they are read whole (a small declared body), for the one reader that
   * asks first; `undefined` when the body streams or was taken, and the caller reads `body` as
   * from any `Request`.
   */
  wholeBody(): Promise<Uint8Array> | undefined {
    const { whole } = this.#source
    if (this.#bodyTaken || this.#real || !whole) return undefined
    this.#bodyTaken = true
    return whole
  }

  /** A run's frames, offered instead of a response body: the Node bridge writes them to the socket. */
  [OFFER_FRAMES](frames: OfferedFrames): void {
    this.#frames = frames
  }

  /** The frames offered, once. */
  takeFrames(): OfferedFrames | undefined {
    const frames = this.#frames
    this.#frames = undefined
    return frames
  }

  /** What the handler reads of it (appRequest.ts): itself. */
  get [STAND_IN](): StandIn {
    return this
  }

  /** The real `Request`, made once; its body is what `wholeBody` did not take. */
  real(): Request {
    if (this.#real) return this.#real
    const { whole, stream } = this.#source
    if (this.#bodyTaken) return this.#make(undefined)
    return this.#make(whole ? streamOf(whole) : stream)
  }

  /** The real `Request`, for a reader of its body: small bodies are awaited whole, which reads cheaper than a stream. */
  async realToRead(): Promise<Request> {
    const { whole } = this.#source
    if (this.#real || !whole || this.#bodyTaken) return this.real()
    const bytes = await whole
    // A request's bytes never sit in a SharedArrayBuffer; the cast only narrows the buffer's type.
    return this.#real ?? this.#make(bytes as Uint8Array<ArrayBuffer>)
  }

  #make(body: BodyInit | undefined): Request {
    const init: RequestInit & { duplex?: 'half' } = { method: this.method, headers: this.headers, signal: this.signal }
    if (body) {
      init.body = body
      init.duplex = 'half' // required by Node for a streamed request body
    }
    this.#real = new Request(this.url, init)
    return this.#real
  }
}
Object.setPrototypeOf(NodeRequest.prototype, Request.prototype)

// Every other property of `Request` answers from the real one.
const BODY_READERS = new Set(['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text'])
for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(Request.prototype))) {
  if (name === 'constructor' || Object.prototype.hasOwnProperty.call(NodeRequest.prototype, name)) continue
  if (typeof descriptor.value === 'function' && BODY_READERS.has(name)) {
    Object.defineProperty(NodeRequest.prototype, name, {
      value: async function (this: NodeRequest, ...args: unknown[]) {
        return ((await this.realToRead()) as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!(...args)
      },
      configurable: true,
      writable: true,
    })
  } else if (typeof descriptor.value === 'function') {
    Object.defineProperty(NodeRequest.prototype, name, {
      value: function (this: NodeRequest, ...args: unknown[]) {
        return (this.real() as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!(...args)
      },
      configurable: true,
      writable: true,
    })
  } else if (descriptor.get) {
    Object.defineProperty(NodeRequest.prototype, name, {
      get(this: NodeRequest) {
        return (this.real() as unknown as Record<string, unknown>)[name]
      },
      configurable: true,
    })
  }
}

const takers = new WeakSet<object>()

/**
 * Marks a Fetch handler that may be given a `NodeRequest`: it reads requests only through
 * `requestHeader` and `NodeRequest.wholeBody` (or properties a stand-in answers), and hands the
 * app's own code `fetchRequest(request)`. Other handlers get a real `Request`.
 */
export function takesNodeRequests<THandler extends object>(handler: THandler): THandler {
  takers.add(handler)
  return handler
}

export function takesNodeRequest(handler: object): boolean {
  return takers.has(handler)
}


function streamOf(bytes: Promise<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async pull(controller) {
      const chunk = await bytes
      if (chunk.byteLength > 0) controller.enqueue(chunk)
      controller.close()
    },
  })
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(':') || value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item)
  }
  return headers
}
