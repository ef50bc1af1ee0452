/** How often a run looks for a stop asked of another instance. */
export const STOP_CHECK_MS = 1000

/** What the clock asks of a live run on each tick. */
export interface Ticking {
  tick(now: number): void
}

/**
 * One timer for every live run of a handler: each tick, each run renews its lease if it wrote
 * nothing for a while and looks for a stop asked of another instance. A timer per run and per
 * duty cost two timers made and cleared per turn; this one lives while runs do, and a little after.
 */
export class RunClock {
  readonly #runs = new Set<Ticking>()
  readonly #tickMs: number
  #timer: ReturnType<typeof setInterval> | undefined

  constructor(leaseMs: number) {
    // Often enough that a heartbeat due at a third of the lease comes before half of it, and a
    // stop check due each second never waits a whole second more.
    this.#tickMs = Math.min(leaseMs / 6, STOP_CHECK_MS / 4)
  }

  add(run: Ticking): void {
    this.#runs.add(run)
    if (this.#timer === undefined) this.#timer = setInterval(() => this.#tick(), this.#tickMs)
    // While runs live, the timer keeps the process up, as their own timers would.
    else if (this.#runs.size === 1) this.#timer.ref?.()
  }

  delete(run: Ticking): void {
    this.#runs.delete(run)
    if (this.#runs.size === 0) this.#timer?.unref?.()
  }

  #tick(): void {
    if (this.#runs.size === 0) {
      clearInterval(this.#timer)
      this.#timer = undefined
      return
    }
    const now = Date.now()
    for (const run of this.#runs) run.tick(now)
  }
}
