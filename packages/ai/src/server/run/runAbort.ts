/**
 * The controller behind a run's signal. Whatever aborts a run (its own writes, a stop asked of
 * this instance, a lost thread) calls `abort` here, the only way to abort the signal, so the run's
 * own waits (a model step, a tool call) hear of it here rather than through a listener on the
 * signal: on Node 20 adding one to an AbortSignal cost about a fiftieth of a short turn.
 */
export class RunAbort extends AbortController {
  /**
   * What the run's waits do once it aborts, in the order they were asked: a run waits on one thing
   * at a time (a model step, a tool call) nearly always, so the first is held in a field and a list
   * is made only for more, not a Set made per run and shrunk by every delete.
   */
  #end: (() => void) | undefined
  #more: (() => void)[] | undefined
  #aborted = false

  override abort(reason?: unknown): void {
    super.abort(reason)
    if (this.#aborted) return
    this.#aborted = true
    // After the signal's own listeners (a model's fetch, a tool's), as a listener added later would run.
    const end = this.#end
    const more = this.#more
    this.#end = undefined
    this.#more = undefined
    if (end) end()
    if (more) for (const each of more) each()
  }

  /** Calls `end` once the run aborts, unless it already has (as a listener added then would never run); returns what cancels that. */
  whenAborted(end: () => void): () => void {
    if (this.#aborted) return noop
    // The field only while nothing else waits: the ends run in the order they were asked.
    if (this.#end === undefined && (this.#more === undefined || this.#more.length === 0)) this.#end = end
    else (this.#more ??= []).push(end)
    return () => this.#cancel(end)
  }

  #cancel(end: () => void): void {
    if (this.#end === end) {
      this.#end = undefined
      return
    }
    const more = this.#more
    const index = more ? more.indexOf(end) : -1
    if (index >= 0) more!.splice(index, 1)
  }
}

const noop = (): void => {}
