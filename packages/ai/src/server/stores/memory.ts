import { InvalidOptionError } from '../../errors.ts'
import type { DecisionRecord } from '../../protocol/decisions.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import { deepFreeze } from '../../util/deepFreeze.ts'
import { HttpError } from '../errors.ts'
import type { LoggedEvent, RunEventLog, ThreadHead, ThreadStore } from '../thread/threadStore.ts'

export interface MemoryStoreOptions {
  /** Threads kept at most; the least recently used go first. Default 10,000. */
  readonly maxThreads?: number
  /** A thread untouched for this long is forgotten. Default 24 hours. */
  readonly idleTtlMs?: number
  /**
   * Bytes of messages kept at most, over all threads (as JSON in UTF-8); the least recently used
   * threads go first. A write that cannot fit even so (every other thread is held by a run) is
   * refused with 507 `STORE_FULL`. Default 256 MB.
   */
  readonly maxBytes?: number
  /**
   * How long a run's events stay readable after it ends, for clients that reconnect (later ones
   * read the stored thread instead). Default 30 seconds: they are kept in this process's memory.
   */
  readonly eventRetentionMs?: number
}

interface Entry {
  /** Frozen on the way in, like the messages: callers share it with the store and cannot change it. */
  head: ThreadHead
  version: number
  /** Frozen on the way in (the runtime never changes a message it stored), so they are handed out without copies. */
  readonly messages: ThreadMessage[]
  /** Frozen on the way in, like the messages. */
  readonly decisions: DecisionRecord[]
  touchedAt: number
  running: boolean
  /** The messages' size, as the head counts it. */
  bytes: number
}

/**
 * A `ThreadStore` in this process's memory: for development, tests and single-instance servers.
 * Bounded, so anonymous traffic cannot grow it without end; a thread that a run holds is never
 * evicted from under it.
 */
export function memoryStore(options: MemoryStoreOptions = {}): ThreadStore {
  const maxThreads = options.maxThreads ?? 10_000
  const idleTtlMs = options.idleTtlMs ?? 24 * 60 * 60 * 1000
  if (!Number.isInteger(maxThreads) || maxThreads < 1) throw new InvalidOptionError('memoryStore', 'maxThreads', 'must be a positive integer')
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024
  if (!(idleTtlMs > 0)) throw new InvalidOptionError('memoryStore', 'idleTtlMs', 'must be a positive number of milliseconds')
  if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new InvalidOptionError('memoryStore', 'maxBytes', 'must be a positive integer')
  let totalBytes = 0
  // A Map iterates in insertion order: re-inserting on every touch keeps the least recently used first.
  const threads = new Map<string, Entry>()

  const live = (threadId: string): Entry | undefined => {
    const entry = threads.get(threadId)
    if (entry && !entry.running && Date.now() - entry.touchedAt > idleTtlMs) {
      forget(threadId, entry)
      return undefined
    }
    return entry
  }
  const forget = (threadId: string, entry: Entry) => {
    threads.delete(threadId)
    totalBytes -= entry.bytes
  }
  /** Evicts the least recently used threads no run holds, sparing `keep`, until the store is within its bounds. */
  const evict = (keep: string, extraBytes: number) => {
    for (const [id, oldest] of threads) {
      if (threads.size <= maxThreads && totalBytes + extraBytes <= maxBytes) return
      if (id !== keep && !oldest.running) forget(id, oldest)
    }
  }
  const touch = (threadId: string, entry: Entry) => {
    entry.touchedAt = Date.now()
    threads.delete(threadId)
    threads.set(threadId, entry)
  }

  return {
    name: 'memory',
    events: memoryEventLog({ retentionMs: options.eventRetentionMs }),
    async head(threadId) {
      const entry = live(threadId)
      if (!entry) return undefined
      touch(threadId, entry)
      return entry.head
    },
    async messages(threadId, from, to) {
      return live(threadId)?.messages.slice(from, to) ?? []
    },
    async decisions(threadId) {
      return [...(live(threadId)?.decisions ?? [])]
    },
    async commit({ head, append, decisions: records = [] }) {
      const entry = live(head.id)
      if ((entry?.version ?? 0) !== head.version - 1) return false
      const growth = head.bytes - (entry?.bytes ?? 0)
      if (growth > 0) evict(head.id, growth)
      if (growth > 0 && totalBytes + growth > maxBytes) {
        throw new HttpError(507, 'STORE_FULL', 'The server holds as many conversations as it can; try again later')
      }
      const messages = entry?.messages ?? []
      for (const message of append) messages.push(deepFreeze(message))
      const decisions = entry?.decisions ?? []
      for (const record of records) decisions.push(deepFreeze(record))
      const next: Entry = { head: deepFreeze(head), version: head.version, messages, decisions, touchedAt: 0, running: head.activeRun !== undefined, bytes: head.bytes }
      totalBytes += growth
      touch(head.id, next)
      if (threads.size > maxThreads) evict(head.id, 0)
      return true
    },
  }
}

interface RunLog {
  readonly events: LoggedEvent[]
  ended: boolean
  /** When an ended run's log may go. */
  expiresAt: number
  readonly waiters: Set<() => void>
}

/** Runs whose events are kept at most; the oldest go first. */
const MAX_RUN_LOGS = 10_000

/**
 * Runs' events in this process's memory: what `memoryStore` keeps, and what the handler uses for
 * a store without an event log of its own. Readers wait on a promise, not a poll.
 */
export function memoryEventLog(options: { readonly retentionMs?: number | undefined } = {}): RunEventLog {
  const retentionMs = options.retentionMs ?? 30 * 1000
  if (!(retentionMs >= 0)) throw new InvalidOptionError('memoryStore', 'eventRetentionMs', 'must be a non-negative number of milliseconds')
  const runs = new Map<string, RunLog>()
  const live = (runId: string): RunLog | undefined => {
    const log = runs.get(runId)
    if (log?.ended && Date.now() > log.expiresAt) {
      runs.delete(runId)
      return undefined
    }
    return log
  }
  /** The run's log, made on first use; expired logs go then, and the oldest beyond the cap. */
  const open = (runId: string): RunLog => {
    const existing = live(runId)
    if (existing) return existing
    // Logs go in the order runs start, and most runs end in about that order: dropping expired ones
    // from the front keeps the map to the retention window at O(1) per run.
    const now = Date.now()
    for (const [id, log] of runs) {
      if (!(log.ended && now > log.expiresAt) && runs.size < MAX_RUN_LOGS) break
      runs.delete(id)
    }
    const log: RunLog = { events: [], ended: false, expiresAt: Infinity, waiters: new Set() }
    runs.set(runId, log)
    return log
  }
  return {
    async append(runId, events, final) {
      const log = open(runId)
      log.events.push(...events)
      if (final) {
        log.ended = true
        log.expiresAt = Date.now() + retentionMs
      }
      for (const wake of log.waiters) wake()
      log.waiters.clear()
    },
    async read(runId, after) {
      const log = live(runId)
      if (!log) return undefined
      // Events are numbered from 1 without gaps, so `after` is also an index.
      return { events: log.events.slice(Math.max(0, after)), ended: log.ended }
    },
    wait(runId, after, timeoutMs, signal) {
      const log = open(runId)
      if (signal.aborted || log.events.length > after || log.ended) return Promise.resolve()
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer)
          signal.removeEventListener('abort', done)
          runs.get(runId)?.waiters.delete(done)
          resolve()
        }
        const timer = setTimeout(done, timeoutMs)
        signal.addEventListener('abort', done, { once: true })
        log.waiters.add(done)
      })
    },
  }
}
