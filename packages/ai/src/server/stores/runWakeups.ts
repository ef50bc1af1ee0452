// Readers of a run's events on a shared store wait for the next ones. With a notification channel
// (Redis pub/sub, Postgres LISTEN/NOTIFY) a write wakes them at once; without one they look again
// every `pollMs`. Either way `wait` only says "look now": the reader reads the log itself.

/** Readers in this process waiting on runs' events, and how they learn that more arrived. */
export class RunWakeups {
  readonly #waiters = new Map<string, Set<() => void>>()
  readonly #listen: ((wake: (runId: string) => void) => Promise<void>) | undefined
  readonly #pollMs: number
  #listening: Promise<boolean> | undefined

  /**
   * `listen` starts the store's notifications (once, at the first wait) and calls `wake` with the
   * run id of each; without it, or when it fails, waits poll every `pollMs`.
   */
  constructor(options: { listen?: ((wake: (runId: string) => void) => Promise<void>) | undefined; pollMs: number }) {
    this.#listen = options.listen
    this.#pollMs = options.pollMs
  }

  /**
   * Resolves once `hasMore` says so, a notification for `runId` arrives, `timeoutMs` passes or
   * `signal` aborts. `hasMore` is asked after the waiter is registered, so a write between the
   * caller's read and this wait is not missed.
   */
  async wait(runId: string, hasMore: () => Promise<boolean>, timeoutMs: number, signal: AbortSignal): Promise<void> {
    const notified = await this.#startListening()
    const deadline = Date.now() + timeoutMs
    let wake!: () => void
    const woken = new Promise<void>((resolve) => (wake = resolve))
    const waiters = this.#waiters.get(runId) ?? new Set()
    this.#waiters.set(runId, waiters.add(wake))
    signal.addEventListener('abort', wake, { once: true })
    try {
      while (!signal.aborted && Date.now() < deadline) {
        if (await hasMore()) return
        const pause = notified ? deadline - Date.now() : Math.min(this.#pollMs, deadline - Date.now())
        let timer: ReturnType<typeof setTimeout> | undefined
        const elapsed = new Promise<'elapsed'>((resolve) => (timer = setTimeout(() => resolve('elapsed'), Math.max(0, pause))))
        const outcome = await Promise.race([woken.then(() => 'woken' as const), elapsed])
        clearTimeout(timer)
        if (outcome === 'woken') return
      }
    } finally {
      signal.removeEventListener('abort', wake)
      waiters.delete(wake)
      if (waiters.size === 0) this.#waiters.delete(runId)
    }
  }

  /** Whether notifications are flowing; started once. A channel that fails to start leaves polling. */
  #startListening(): Promise<boolean> {
    if (!this.#listen) return Promise.resolve(false)
    this.#listening ??= this.#listen((runId) => {
      for (const wake of this.#waiters.get(runId) ?? []) wake()
    }).then(
      () => true,
      (error) => {
        console.error('[toolgate] run event notifications failed to start; readers poll instead:', error)
        return false
      },
    )
    return this.#listening
  }
}
