// The one retry primitive (in the manner of TanStack Query's `retryer.ts`): every loop that tries
// again after a failure says only what it tries, which failures are worth another try, and how
// long to wait; the counting, the waiting and the abort live here. A generator that yields between
// attempts (the client's reattach, a provider's stream) uses `backoff` and `sleep` directly.

/** How a failed attempt is tried again. */
export interface RetryPolicy {
  /** Attempts in all, the first included (`Infinity`: until `retryable` or `until` says stop). */
  readonly attempts: number
  /** The pause before attempt `attempt + 1` (ms), after attempt `attempt` (1-based) failed with `error`. */
  readonly delay: (attempt: number, error: unknown) => number
  /** Whether `error` is worth another attempt; a refusal here rethrows it at once. Default: every error. */
  readonly retryable?: (error: unknown, attempt: number) => boolean
  /** A time (ms since the epoch) after which no new attempt starts. */
  readonly until?: number
  /** Stops waiting and trying once aborted, rejecting with its reason. */
  readonly signal?: AbortSignal
}

/**
 * Runs `task` until it succeeds, or until `policy` says stop: then rejects with the last failure.
 * `task` is given the attempt's number (1-based).
 */
export async function retry<T>(task: (attempt: number) => Promise<T> | T, policy: RetryPolicy): Promise<T> {
  const { attempts, delay, retryable, until, signal } = policy
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted()
    try {
      return await task(attempt)
    } catch (error) {
      if (attempt >= attempts || (retryable && !retryable(error, attempt))) throw error
      const wait = delay(attempt, error)
      if (until !== undefined && Date.now() + wait >= until) throw error
      // No pause asked (a compare-and-set another writer beat): the next attempt goes in this tick, with what it reads alongside.
      if (wait > 0) await sleep(wait, signal)
    }
  }
}

/** Exponential backoff: `firstMs` after the first failure, doubling, at most `maxMs`. */
export function backoff(firstMs: number, maxMs = Number.POSITIVE_INFINITY): (attempt: number) => number {
  return (attempt) => Math.min(maxMs, firstMs * 2 ** (attempt - 1))
}

/** Resolves after `ms`, or rejects with `signal`'s reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return new Promise((resolve) => setTimeout(resolve, ms))
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const done = () => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }
    const timer = setTimeout(done, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
