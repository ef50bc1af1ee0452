/**
 * The controller behind a run's signal. Whatever aborts a run (its own writes, a stop asked of
 * this instance, a lost thread) calls `abort` here, the only way to abort the signal, so the run's
 * own waits (a model step, a tool call) hear of it here rather than through a listener on the
 * signal: on Node 20 adding one to an AbortSignal cost about a fiftieth of a short turn.
 */
export class RunAbort extends AbortController {
  #ends: Set<() => void> | undefined = new Set()

  override abort(reason?: unknown): void {
    super.abort(reason)
    // After the signal's own listeners (a model's fetch, a tool's), as a listener added later would run.
    const ends = this.#ends
    this.#ends = undefined
    if (ends) for (const end of ends) end()
  }

  /** Calls `end` once the run aborts, unless it already has (as a listener added then would never run); returns what cancels that. */
  whenAborted(end: () => void): () => void {
    const ends = this.#ends
    if (!ends) return noop
    ends.add(end)
    return () => ends.delete(end)
  }
}

const noop = (): void => {}
