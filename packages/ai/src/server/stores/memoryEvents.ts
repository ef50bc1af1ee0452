import { InvalidOptionError } from '../../errors.ts'
import { DEFAULT_RETAIN_MS, DEFAULT_STALE_MS, type LoggedEvent, type RunEventLog, type RunEventLogOptions } from '../runEventLog.ts'

interface Log {
  readonly events: LoggedEvent[]
  /** When the log may be forgotten: `retainMs` after the run ended, `staleMs` after its last event otherwise. */
  expiresAt: number
  readonly waiters: Set<() => void>
}

/**
 * A `RunEventLog` in this process's memory: the default, for one instance. Handlers in the same
 * process that are given the same log (and the same store) serve each other's runs.
 */
export function memoryEventLog(options: RunEventLogOptions = {}): RunEventLog {
  const retainMs = options.retainMs ?? DEFAULT_RETAIN_MS
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS
  if (!(retainMs > 0)) throw new InvalidOptionError('memoryEventLog', 'retainMs', 'must be a positive number of milliseconds')
  if (!(staleMs > 0)) throw new InvalidOptionError('memoryEventLog', 'staleMs', 'must be a positive number of milliseconds')
  const logs = new Map<string, Log>()
  let sweptAt = Date.now()

  const live = (runId: string): Log | undefined => {
    const log = logs.get(runId)
    if (log && log.expiresAt <= Date.now()) {
      logs.delete(runId)
      return undefined
    }
    return log
  }
  // Expired logs go on the next append after a while, so an idle server holds no timers.
  const sweep = () => {
    const now = Date.now()
    if (now - sweptAt < Math.min(retainMs, 60_000)) return
    sweptAt = now
    for (const [runId, log] of logs) if (log.expiresAt <= now) logs.delete(runId)
  }

  return {
    async append(runId, events) {
      sweep()
      let log = live(runId)
      if (!log) logs.set(runId, (log = { events: [], expiresAt: 0, waiters: new Set() }))
      for (const logged of events) {
        const last = log.events.at(-1)?.seq ?? 0
        if (logged.seq > last) log.events.push(logged)
      }
      log.expiresAt = Math.max(log.expiresAt, Date.now() + staleMs)
      for (const wake of [...log.waiters]) wake()
    },
    async read(runId, afterSeq) {
      const log = live(runId)
      if (!log) return undefined
      // Seqs are consecutive from 1, so the events after `afterSeq` start at index `afterSeq`.
      const at = Math.max(0, afterSeq)
      return log.events[at]?.seq === afterSeq + 1 || at >= log.events.length
        ? log.events.slice(at)
        : log.events.filter((logged) => logged.seq > afterSeq)
    },
    wait(runId, afterSeq, { timeoutMs, signal }) {
      let log = live(runId)
      // A reader may wait for a run that has not logged its start yet.
      if (!log) logs.set(runId, (log = { events: [], expiresAt: Date.now() + staleMs, waiters: new Set() }))
      if ((log.events.at(-1)?.seq ?? 0) > afterSeq || signal.aborted) return Promise.resolve()
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer)
          signal.removeEventListener('abort', done)
          log.waiters.delete(done)
          resolve()
        }
        const timer = setTimeout(done, timeoutMs)
        signal.addEventListener('abort', done, { once: true })
        log.waiters.add(done)
      })
    },
    async end(runId) {
      const log = live(runId)
      if (log) log.expiresAt = Date.now() + retainMs
    },
  }
}
