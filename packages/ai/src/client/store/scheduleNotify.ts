/** Runs `flush` soon; the client calls it at most once per pending batch of changes. */
export type NotifyScheduler = (flush: () => void) => void

/**
 * One notification per animation frame in a visible page, however many tokens arrive in it; a
 * timeout elsewhere (servers, tests, hidden tabs, where frames stop coming).
 */
export const scheduleNotify: NotifyScheduler = (flush) => {
  if (typeof requestAnimationFrame === 'function' && !pageHidden()) requestAnimationFrame(() => flush())
  else setTimeout(flush, 0)
}

function pageHidden(): boolean {
  return typeof document !== 'undefined' && document.visibilityState === 'hidden'
}

/** Coalesces change signals: `request()` schedules one flush, `flushNow()` runs it at once. */
export class NotifyBatcher {
  #scheduled = false

  readonly #flush: () => void
  readonly #schedule: NotifyScheduler

  constructor(flush: () => void, schedule: NotifyScheduler = scheduleNotify) {
    this.#flush = flush
    this.#schedule = schedule
  }

  request(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    this.#schedule(() => this.flushNow())
  }

  /** Flushes now; a flush already scheduled then finds nothing to do. */
  flushNow(): void {
    this.#scheduled = false
    this.#flush()
  }
}
