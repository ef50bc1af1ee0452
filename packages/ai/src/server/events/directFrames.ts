import { afterTurnEnd } from '../../util/turnBatch.ts'

// A run's frames reach the client through its response's body stream on every runtime. Under
// `toNodeHandler` they can skip it and go straight to the socket (no chunk encoded to bytes and
// read back, no promise per read): a chat handler given a `NodeRequest` offers them on the
// request and builds no stream at all; a response body returned as is (a chat handler wrapped in
// another function) offers them here, keyed by the body. A body someone else wrapped or already
// read is not offered, and goes the Fetch way.

/** Where frames go instead of a body stream: Node's `ServerResponse`, as `toNodeHandler` wraps it. */
export interface FrameSink {
  write(text: string): void
  /** The last frames (maybe none), and the end of the response. */
  end(text: string): void
}

/** A run's frames offered on its `NodeRequest`: the response's headers (its status is 200), and how to take them. */
export interface OfferedFrames {
  readonly headers: Readonly<Record<string, string>>
  attach(sink: FrameSink): void
}

/** Hands the frames to `sink` from now on; false when the body was read already. */
type TakeFrames = (sink: FrameSink) => boolean

const offered = new WeakMap<ReadableStream<Uint8Array>, TakeFrames>()

export function offerFrames(body: ReadableStream<Uint8Array>, take: TakeFrames): void {
  offered.set(body, take)
}

/** Takes the frames of a response body that offered them; false when it did not, or can no longer. */
export function takeFrames(body: ReadableStream<Uint8Array> | null, sink: FrameSink): boolean {
  const take = body && !body.locked ? offered.get(body) : undefined
  if (!take) return false
  offered.delete(body!)
  return take(sink)
}

/**
 * A request that takes a run's frames itself instead of a response body (edge/node/nodeRequest.ts's
 * `NodeRequest`, under `toNodeHandler`): the live stream offers them on it under this key.
 */
export const OFFER_FRAMES: unique symbol = Symbol('toolgate.offerFrames')

export interface TakesFrames {
  [OFFER_FRAMES](frames: OfferedFrames): void
}

/** Frames on their way to a sink, once it is attached: those of one event-loop turn in one write, the last with the end. */
export class DirectFrames {
  #pending: string
  #ended: boolean
  #sink: FrameSink | undefined

  constructor(pending = '', ended = false) {
    this.#pending = pending
    this.#ended = ended
  }

  readonly #flush = () => {
    if (this.#sink === undefined || this.#pending === '') return
    this.#sink.write(this.#pending)
    this.#pending = ''
  }

  write(frame: string): void {
    if (this.#ended) return
    if (this.#pending === '' && this.#sink) afterTurnEnd(this.#flush)
    this.#pending += frame
  }

  end(): void {
    if (this.#ended) return
    this.#ended = true
    if (this.#sink) this.#endSink(this.#sink)
  }

  attach(sink: FrameSink): void {
    this.#sink = sink
    if (this.#ended) this.#endSink(sink)
    else if (this.#pending !== '') afterTurnEnd(this.#flush)
  }

  #endSink(sink: FrameSink): void {
    sink.end(this.#pending)
    this.#pending = ''
  }
}
