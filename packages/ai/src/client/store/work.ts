/** Counts the work in flight (requests, client tools), so a command can resolve once all of it is done. */
export class Work {
  #busy = 0
  #waiters: (() => void)[] = []
  readonly #settled: () => void

  /** `settled` runs when the last piece of work ends (and when `idle()` finds none), before anyone waiting resumes. */
  constructor(settled: () => void) {
    this.#settled = settled
  }

  track(work: Promise<void>): void {
    this.#busy++
    void work.finally(() => {
      if (--this.#busy > 0) return
      this.#settled()
      for (const resolve of this.#waiters.splice(0)) resolve()
    })
  }

  /** Resolves once no work is in flight. */
  idle(): Promise<void> {
    if (this.#busy > 0) return new Promise((resolve) => this.#waiters.push(resolve))
    this.#settled()
    return Promise.resolve()
  }
}
