// A run's frames reach the client through its response's body stream on every runtime. Under
// `toNodeHandler` they can skip it: the response offers its frames here, keyed by its body, and
// the Node bridge takes them straight to the socket (no chunk encoded to bytes and read back, no
// promise per read). A body someone else wrapped or already read is not offered, and goes the
// Fetch way.

/** Where frames go instead of a body stream: Node's `ServerResponse`, as `toNodeHandler` wraps it. */
export interface FrameSink {
  write(text: string): void
  /** The last frames (maybe none), and the end of the response. */
  end(text: string): void
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
