// Readers of a run's events on a shared store wait for the next ones, and watchers of a thread for
// its next commit (keyed `thread:<id>`: run ids start with `run_`, so the two never meet). With a
// notification channel (Redis pub/sub, Postgres LISTEN/NOTIFY) a write wakes them at once; without one, and whenever
// the channel is down (its connection dropped, the server restarts), they look again every
// `pollMs`. Either way `wait` only says "look now": the reader reads the log itself.

/** What a store's channel tells the readers' wakeups. */
export interface WakeupSignals {
  /** Events of `key` (a run id, or `thread:<id>` for a thread's commit) were written. */
  wake(key: string): void
  /** Notifications flow (again): waits stop polling. Every waiter looks once, for what the gap hid. */
  up(): void
  /** Notifications stopped: waits poll until `up`. */
  down(): void
}

/** Starts the store's channel; resolves once it is up, or rejects (then waits poll, and the channel may still call `up` later). */
export type StartListening = (signals: WakeupSignals) => Promise<void>

/** How long a wait gives the channel to start before it polls instead. */
const START_WAIT_MS = 2000

/** Readers in this process waiting on runs' events, and how they learn that more arrived. */
export class RunWakeups {
  readonly #waiters = new Map<string, Set<() => void>>()
  readonly #listen: StartListening | undefined
  readonly #pollMs: number
  readonly #listeningPollMs: number
  readonly #onStartError: (error: unknown) => void
  #starting: Promise<void> | undefined
  #up = false

  /**
   * `listen` starts the store's notifications (once, at the first wait); without it, or while it
   * is down, waits poll every `pollMs`. While it is up they look every `listeningPollMs` (default:
   * never), for a store whose notifications may be lost while its channel stays up (PostgreSQL
   * notifies after the commit: a process that dies in between never sends it).
   */
  constructor(options: { listen?: StartListening | undefined; pollMs: number; listeningPollMs?: number; onStartError?: (error: unknown) => void }) {
    this.#listen = options.listen
    this.#pollMs = options.pollMs
    this.#listeningPollMs = options.listeningPollMs ?? Number.POSITIVE_INFINITY
    this.#onStartError = options.onStartError ?? ((error) => console.error('[toolgate] run event notifications failed to start; readers poll instead:', error))
  }

  /** Whether notifications flow now. */
  get listening(): boolean {
    return this.#up
  }

  /**
   * Resolves once `hasMore` says so, a notification for `runId` arrives, the channel goes up or
   * down, `timeoutMs` passes or `signal` aborts. `hasMore` is asked after the waiter is
   * registered, so a write between the caller's read and this wait is not missed. Without the
   * channel it is asked again every `pollMs` (the store's default unless given).
   */
  async wait(runId: string, hasMore: () => Promise<boolean>, timeoutMs: number, signal: AbortSignal, pollMs = this.#pollMs): Promise<void> {
    await this.#start()
    const deadline = Date.now() + timeoutMs
    let wake!: () => void
    const woken = new Promise<void>((resolve) => (wake = resolve))
    const waiters = this.#waiters.get(runId) ?? new Set()
    this.#waiters.set(runId, waiters.add(wake))
    signal.addEventListener('abort', wake, { once: true })
    try {
      while (!signal.aborted && Date.now() < deadline) {
        if (await hasMore()) return
        const pause = Math.min(this.#up ? this.#listeningPollMs : pollMs, deadline - Date.now())
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

  /**
   * Starts the channel once. Waits give it up to `START_WAIT_MS` to come up (a channel that cannot
   * connect, a frozen server, must not hold readers); meanwhile and after, they poll until `up`.
   */
  async #start(): Promise<void> {
    if (!this.#listen || this.#up) return
    this.#starting ??= this.#open(this.#listen)
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([this.#starting, new Promise<void>((resolve) => (timer = setTimeout(resolve, START_WAIT_MS)))])
    clearTimeout(timer)
  }

  async #open(listen: StartListening): Promise<void> {
    const signals: WakeupSignals = {
      wake: (runId) => {
        for (const wake of this.#waiters.get(runId) ?? []) wake()
      },
      up: () => {
        this.#up = true
        this.#wakeAll()
      },
      down: () => {
        if (!this.#up) return
        this.#up = false
        this.#wakeAll()
      },
    }
    try {
      await listen(signals)
    } catch (error) {
      this.#onStartError(error)
    }
  }

  #wakeAll(): void {
    for (const waiters of this.#waiters.values()) for (const wake of waiters) wake()
  }
}
