import { ToolgateError } from '../../errors.ts'

/**
 * A store could not do what the runtime asked (its server is down, restarting, frozen, or refused
 * the statement). The chat endpoint answers 503 `STORE_ERROR` with `Retry-After`, and a run ends
 * with RUN_ERROR `STORE_ERROR`. The message names the store, the operation and the failure's class
 * or code, never its text (a driver's words may carry a host, a user or a connection string); the
 * client's own error is the `cause`, for the server log.
 */
export class StoreError extends ToolgateError {
  /** `redisStore`, `postgresStore`, or a store of your own. */
  readonly store: string
  /** What failed: a command or statement name, e.g. `EVALSHA`, `commit`. */
  readonly operation: string

  constructor(store: string, operation: string, cause: unknown) {
    super('STORE_ERROR', `${store}: ${operation} failed (${kindOf(cause)})`, { cause })
    this.store = store
    this.operation = operation
  }
}

/** Also recognises a `StoreError` from a second copy of the package, where `instanceof` fails. */
export function isStoreError(error: unknown): error is StoreError {
  return error instanceof StoreError || (error instanceof Error && error.name === 'StoreError' && (error as { code?: unknown }).code === 'STORE_ERROR')
}

/** The failure's class and code (`ECONNREFUSED`, `57P01`), which say what happened and carry no secret. */
function kindOf(cause: unknown): string {
  if (!(cause instanceof Error)) return typeof cause
  const code = (cause as { code?: unknown }).code
  const safeCode = typeof code === 'string' && /^[\w.-]{1,40}$/.test(code) ? ` ${code}` : ''
  const name = /^[\w$]{1,60}$/.test(cause.name) ? cause.name : 'Error'
  return `${name}${safeCode}`
}

/**
 * Reports a store's connection errors that no request awaits (a client's `'error'` events while it
 * reconnects): to the store's `onError`, or the server log.
 */
export type StoreErrorListener = (error: StoreError) => void

/**
 * Without `onError`: the server log, one line per outage of each connection. A client that
 * reconnects emits an error per attempt (node-redis about once a second): the first is logged,
 * the others counted, and the count is logged once the connection is `recovered`.
 */
const QUIET_MS = 60_000

export class OutageLog {
  readonly #outages = new Map<string, { failures: number; since: number; last: number }>()
  readonly #unawaited: Readonly<Record<string, string>>

  /** `unawaited`: by operation, one no request waits for, what its failure costs (said instead of the 503 line). */
  constructor(unawaited: Readonly<Record<string, string>> = {}) {
    this.#unawaited = unawaited
  }

  readonly report: StoreErrorListener = (error) => {
    const key = `${error.store}: ${error.operation}`
    const now = Date.now()
    const outage = this.#outages.get(key)
    // A connection that says nothing when it is back (no recovery event) starts a new outage after a quiet minute.
    if (outage && now - outage.last < QUIET_MS) {
      outage.failures += 1
      outage.last = now
      return
    }
    if (outage) this.recovered(error.store, error.operation)
    this.#outages.set(key, { failures: 1, since: now, last: now })
    console.error(`[toolgate] ${error.message}; ${Object.hasOwn(this.#unawaited, error.operation) ? this.#unawaited[error.operation] : 'trying again, and requests get 503 STORE_ERROR until it is back'}`)
  }

  /** The connection answers again (node-redis `ready`, a `pg` Pool's `connect`): the outage's one closing line. */
  recovered(store: string, operation: string): void {
    const key = `${store}: ${operation}`
    const outage = this.#outages.get(key)
    if (!outage) return
    this.#outages.delete(key)
    console.error(`[toolgate] ${key} ${Date.now() - outage.last < QUIET_MS ? 'is back' : 'went quiet'} after ${outage.failures} failed attempt${outage.failures === 1 ? '' : 's'} in ${Math.round((Date.now() - outage.since) / 1000)} s`)
  }
}

/** What the stores need of an event emitter to survive its `'error'` events (node-redis, `pg`). */
interface ErrorEmitter {
  on(event: 'error', listener: (error: unknown) => void): unknown
  listenerCount?(event: 'error'): number
}

/**
 * An emitter with no `'error'` listener crashes the process when its connection drops (Node throws
 * unhandled `'error'` events); the store listens, unless the app already does.
 */
export function survivesErrors(emitter: unknown, report: (error: unknown) => void, recovered?: { readonly event: string; readonly listener: () => void }): void {
  const candidate = emitter as Partial<ErrorEmitter> | undefined
  if (typeof candidate?.on !== 'function') return
  if (typeof candidate.listenerCount === 'function' && candidate.listenerCount('error') > 0) return
  candidate.on('error', report)
  if (recovered) (candidate.on as (event: string, listener: () => void) => unknown).call(candidate, recovered.event, recovered.listener)
}

/** What a store operation that got no answer in time fails with (the `cause` of its `StoreError`). */
export class StoreTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`)
    this.name = 'StoreTimeoutError'
  }
}

/**
 * `operation`'s answer, or a `StoreError` when it fails or takes longer than `timeoutMs` (a frozen
 * server, a connection that waits to reconnect): a request fails with 503 instead of hanging.
 */
export function storeCall<T>(store: string, operation: string, timeoutMs: number, call: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const deadline = deadlinesOf(timeoutMs).add(() => reject(new StoreError(store, operation, new StoreTimeoutError(timeoutMs))))
    const failed = (error: unknown) => {
      deadline.cancel()
      reject(new StoreError(store, operation, error))
    }
    let answer: Promise<T>
    try {
      answer = call()
    } catch (error) {
      return failed(error)
    }
    answer.then((value) => {
      deadline.cancel()
      resolve(value)
    }, failed)
  })
}

/** The calls waiting for an answer under one timeout (every call of a store has the same). */
const deadlines = new Map<number, Deadlines>()
const deadlinesOf = (timeoutMs: number) => deadlines.get(timeoutMs) ?? deadlines.set(timeoutMs, new Deadlines(timeoutMs)).get(timeoutMs)!

/**
 * One timer for all the calls waiting under a timeout, set for the oldest one's deadline (a timer
 * set and cleared per call cost a store's turn more than its own code). Calls are kept in the
 * order they were made, so the oldest is first; unref'd: the client's connection, not this timer,
 * keeps the process up while a call waits.
 */
class Deadlines {
  readonly #timeoutMs: number
  readonly #waiting = new Set<Deadline>()
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs
  }

  add(expire: () => void): { cancel(): void } {
    const deadline: Deadline = { at: Date.now() + this.#timeoutMs, expire, cancel: () => void this.#waiting.delete(deadline) }
    this.#waiting.add(deadline)
    if (this.#timer === undefined) this.#arm(this.#timeoutMs)
    return deadline
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(this.#expire, ms)
    ;(this.#timer as { unref?: () => void }).unref?.()
  }

  readonly #expire = () => {
    this.#timer = undefined
    const now = Date.now()
    for (const deadline of this.#waiting) {
      if (deadline.at > now) return this.#arm(deadline.at - now)
      this.#waiting.delete(deadline)
      deadline.expire()
    }
  }
}

interface Deadline {
  readonly at: number
  readonly expire: () => void
  readonly cancel: () => void
}
