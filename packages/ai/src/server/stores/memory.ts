import { InvalidOptionError } from '../../errors.ts'
import type { DecisionRecord } from '../../protocol/decisions.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import { deepFreeze } from '../../util/deepFreeze.ts'
import { inProcess, SETTLED } from '../../util/settled.ts'
import { HttpError } from '../errors.ts'
import { PackedEvents } from './packedEvents.ts'
import type { LoggedEvent, RunEventLog, ThreadCommit, ThreadHead, ThreadStore } from '../thread/threadStore.ts'

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
  /**
   * Runs at once at most. A message or answer that would start one more is refused with 429
   * `TOO_MANY_RUNS`: a live run's event log is never dropped, so the limit falls on new work, never
   * on a run's readers. Default 1,000.
   */
  readonly maxRuns?: number
  /**
   * Ended runs whose events are kept at most (the oldest go first, even before `eventRetentionMs`:
   * a client reconnecting later reads the stored thread). Default 10,000.
   */
  readonly maxEndedRunLogs?: number
}

interface Entry {
  readonly threadId: string
  /** Frozen on the way in, like the messages: callers share it with the store and cannot change it. */
  head: ThreadHead
  version: number
  /** Frozen on the way in (the runtime never changes a message it stored), so they are handed out without copies. */
  readonly messages: ThreadMessage[]
  /** Frozen on the way in, like the messages. */
  decisions: DecisionRecord[]
  touchedAt: number
  running: boolean
  /** The messages' size, as the head counts it. */
  bytes: number
  /**
   * Its neighbours in the order of use, least recent first (`oldest`): a thread used moves to the
   * end, and the least recently used is found at once. Not a Map's order (deleted and set again on
   * each use): a full store's eviction walked from its start past every slot those deletes left,
   * thousands a turn.
   */
  older: Entry | undefined
  newer: Entry | undefined
}

// What the stores' most frequent calls answer (a one-tool turn makes about ten): the same settled
// promise each time, not an async function's new one. A caller awaiting it resumes as soon;
// a failure is still a rejected promise, never a throw.
const TRUE: Promise<boolean> = Promise.resolve(true)
const FALSE: Promise<boolean> = Promise.resolve(false)
const NOTHING = SETTLED
/** The records of every thread that has none (never written to: `commit` makes a thread's own list with its first). */
const NO_RECORDS: DecisionRecord[] = Object.freeze([]) as unknown as DecisionRecord[]

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
  const maxRuns = options.maxRuns ?? 1_000
  if (!Number.isInteger(maxRuns) || maxRuns < 1) throw new InvalidOptionError('memoryStore', 'maxRuns', 'must be a positive integer')
  let totalBytes = 0
  /** Threads a run holds (`Entry.running`): the runs at once. */
  let running = 0
  // A Map iterates in insertion order: re-inserting on every touch keeps the least recently used first.
  const threads = new Map<string, Entry>()
  let oldest: Entry | undefined
  let newest: Entry | undefined
  const unlink = (entry: Entry) => {
    if (entry.older) entry.older.newer = entry.newer
    else oldest = entry.newer
    if (entry.newer) entry.newer.older = entry.older
    else newest = entry.older
    entry.older = undefined
    entry.newer = undefined
  }
  const link = (entry: Entry) => {
    entry.older = newest
    if (newest) newest.newer = entry
    else oldest = entry
    newest = entry
  }
  /** Watchers of threads (`GET ?watch`), woken by the thread's next commit. */
  const watchers = new Map<string, Set<() => void>>()

  const live = (threadId: string): Entry | undefined => {
    const entry = threads.get(threadId)
    if (entry && !entry.running && Date.now() - entry.touchedAt > idleTtlMs) {
      forget(threadId, entry)
      return undefined
    }
    return entry
  }
  // Only entries no run holds are forgotten, so `running` stays the count of held ones.
  const forget = (threadId: string, entry: Entry) => {
    threads.delete(threadId)
    unlink(entry)
    totalBytes -= entry.bytes
  }
  /** Evicts the least recently used threads no run holds, sparing `keep`, until the store is within its bounds. */
  const evict = (keep: string, extraBytes: number) => {
    // Checked before the walk too: a commit within bounds (nearly every one) makes no iterator.
    if (threads.size <= maxThreads && totalBytes + extraBytes <= maxBytes) return
    for (let entry = oldest; entry !== undefined; ) {
      if (threads.size <= maxThreads && totalBytes + extraBytes <= maxBytes) return
      const newer = entry.newer
      if (entry.threadId !== keep && !entry.running) forget(entry.threadId, entry)
      entry = newer
    }
  }
  const touch = (entry: Entry) => {
    entry.touchedAt = Date.now()
    if (entry === newest) return
    unlink(entry)
    link(entry)
  }
  /** Writes a commit made on the stored version; false when another came first. */
  const commit = ({ head, append, decisions: records = [] }: ThreadCommit): boolean => {
    const entry = live(head.id)
    if ((entry?.version ?? 0) !== head.version - 1) return false
    const starts = head.activeRun !== undefined && !entry?.running
    if (starts && running >= maxRuns) {
      throw new HttpError(429, 'TOO_MANY_RUNS', 'The server runs as many conversations as it can at once; try again shortly')
    }
    const growth = head.bytes - (entry?.bytes ?? 0)
    if (growth > 0) evict(head.id, growth)
    if (growth > 0 && totalBytes + growth > maxBytes) {
      throw new HttpError(507, 'STORE_FULL', 'The server holds as many conversations as it can; try again later')
    }
    const messages = entry?.messages ?? []
    for (const message of append) messages.push(deepFreeze(message))
    // A thread's list of records is made with its first one: most threads never have any.
    let decisions = entry?.decisions ?? NO_RECORDS
    if (records.length > 0 && decisions === NO_RECORDS) decisions = []
    for (const record of records) decisions.push(deepFreeze(record))
    const frozen = deepFreeze(head)
    const runs = head.activeRun !== undefined
    totalBytes += growth
    running += Number(runs) - Number(entry?.running ?? false)
    // The thread's entry is written in place (a new one only for a new thread), and moved to the end of the order of use.
    if (entry) {
      entry.head = frozen
      entry.version = head.version
      entry.decisions = decisions
      entry.running = runs
      entry.bytes = head.bytes
      touch(entry)
    } else {
      const made: Entry = { threadId: head.id, head: frozen, version: head.version, messages, decisions, touchedAt: Date.now(), running: runs, bytes: head.bytes, older: undefined, newer: undefined }
      threads.set(head.id, made)
      link(made)
    }
    if (threads.size > maxThreads) evict(head.id, 0)
    const waiting = watchers.get(head.id)
    if (waiting) for (const wake of waiting) wake()
    return true
  }

  return {
    name: 'memory',
    events: memoryEventLog({ retentionMs: options.eventRetentionMs, maxEnded: options.maxEndedRunLogs }),
    head(threadId) {
      const entry = live(threadId)
      if (!entry) return NOTHING
      touch(entry)
      return Promise.resolve(entry.head)
    },
    messages(threadId, from, to) {
      return Promise.resolve(live(threadId)?.messages.slice(from, to) ?? [])
    },
    async decisions(threadId) {
      return [...(live(threadId)?.decisions ?? [])]
    },
    commit(change) {
      try {
        return commit(change) ? TRUE : FALSE
      } catch (error) {
        return Promise.reject(error)
      }
    },
    async watch(threadId, version, timeoutMs, signal) {
      if ((live(threadId)?.version ?? 0) !== version || signal.aborted) return
      let wake!: () => void
      const woken = new Promise<void>((resolve) => (wake = resolve))
      const waiting = watchers.get(threadId) ?? new Set()
      watchers.set(threadId, waiting.add(wake))
      const timer = setTimeout(wake, timeoutMs)
      signal.addEventListener('abort', wake, { once: true })
      try {
        await woken
      } finally {
        clearTimeout(timer)
        signal.removeEventListener('abort', wake)
        waiting.delete(wake)
        if (waiting.size === 0) watchers.delete(threadId)
      }
    },
  }
}

/**
 * A run's log: its events, packed (packedEvents.ts: a streaming run logs an event per delta, kept a
 * while after it ends), and what the log knows of the run. One object, not the events in one and
 * these in another: an ended log is kept 30 s by default, marked by every full collection.
 */
class RunLog extends PackedEvents {
  ended = false
  /** When an ended run's log may go. */
  expiresAt = Infinity
  /** Readers waiting for more: made when the first one waits (most runs have none). */
  waiters: Set<() => void> | undefined

  constructor(waiters: Set<() => void> | undefined) {
    super()
    this.waiters = waiters
  }
}

/**
 * Runs' events in this process's memory: what `memoryStore` keeps, and what the handler uses for
 * a store without an event log of its own. Readers wait on a promise, not a poll.
 *
 * A live run's log is never dropped (its readers would lose events without knowing): only ended
 * runs' logs go, past their retention or, beyond `maxEnded`, the oldest first. What bounds live
 * logs is the number of runs at once (`memoryStore`'s `maxRuns`).
 */
export function memoryEventLog(options: { readonly retentionMs?: number | undefined; readonly maxEnded?: number | undefined } = {}): RunEventLog {
  const retentionMs = options.retentionMs ?? 30 * 1000
  if (!(retentionMs >= 0)) throw new InvalidOptionError('memoryStore', 'eventRetentionMs', 'must be a non-negative number of milliseconds')
  const maxEnded = options.maxEnded ?? 10_000
  if (!Number.isInteger(maxEnded) || maxEnded < 0) throw new InvalidOptionError('memoryStore', 'maxEndedRunLogs', 'must be a non-negative integer')
  const running = new Map<string, RunLog>()
  const ended = new Map<string, RunLog>()
  /**
   * The ended runs' ids in the order they ended, from `endedFrom` on: expired logs are dropped from
   * the front at O(1) per run. Not the Map's own order: a walk from its start passes every slot the
   * drops before left, thousands once the store keeps `maxEnded` logs.
   */
  let endedOrder: string[] = []
  let endedFrom = 0
  /** Readers waiting for a run whose first events are not logged yet. */
  const early = new Map<string, Set<() => void>>()
  const dropExpired = () => {
    const now = Date.now()
    while (endedFrom < endedOrder.length) {
      const id = endedOrder[endedFrom]!
      // A run logged again after its log went (a late write) ends again: its id is listed twice.
      const log = ended.get(id)
      if (log && now <= log.expiresAt && ended.size <= maxEnded) break
      ended.delete(id)
      endedFrom++
    }
    // The dropped ids go once they are most of the list: each id is copied O(1) times.
    if (endedFrom > 1024 && endedFrom * 2 > endedOrder.length) {
      endedOrder = endedOrder.slice(endedFrom)
      endedFrom = 0
    }
  }
  const find = (runId: string): RunLog | undefined => {
    dropExpired()
    return running.get(runId) ?? ended.get(runId)
  }
  const wake = (waiters: Set<() => void> | undefined) => {
    if (!waiters || waiters.size === 0) return
    for (const done of waiters) done()
    waiters.clear()
  }
  const append = (runId: string, events: readonly LoggedEvent[], final: boolean) => {
    // A live run's log first: a run streaming a delta per event-loop turn appends once a turn, and
    // expired logs are dropped as runs end (below) and readers look, not on each of those appends.
    let log = running.get(runId) ?? find(runId)
    const made = !log
    if (!log) {
      log = new RunLog(early.get(runId))
      if (log.waiters) early.delete(runId)
    }
    if (final && !log.ended) {
      // A run whose events all come with its last write (the store's commits carry them) is never live here.
      log.endWith(events)
      log.ended = true
      log.expiresAt = Date.now() + retentionMs
      if (!made) running.delete(runId)
      ended.set(runId, log)
      endedOrder.push(runId)
      dropExpired()
    } else {
      for (const event of events) log.push(event)
      if (made) running.set(runId, log)
    }
    wake(log.waiters)
  }
  // Marked so a run's live stream tells each event at once, as it did before this log's first write.
  return inProcess({
    append(runId, events, final) {
      try {
        append(runId, events, final)
        return NOTHING
      } catch (error) {
        return Promise.reject(error)
      }
    },
    async read(runId, after, limit = Infinity) {
      const log = find(runId)
      if (!log) return undefined
      // Events are numbered from 1 without gaps, so `after` is also an index.
      const from = Math.max(0, after)
      const events = log.slice(from, from + limit)
      return { events, ended: log.ended && from + events.length >= log.length }
    },
    wait(runId, after, timeoutMs, signal) {
      const log = find(runId)
      if (signal.aborted || (log && (log.length > after || log.ended))) return Promise.resolve()
      // A reader never makes a log: one for a run that has not logged yet waits aside, and goes with its readers.
      let waiters = log ? log.waiters : early.get(runId)
      if (!waiters) {
        waiters = new Set()
        if (log) log.waiters = waiters
        else early.set(runId, waiters)
      }
      const set = waiters
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer)
          signal.removeEventListener('abort', done)
          set.delete(done)
          if (set.size === 0 && early.get(runId) === set) early.delete(runId)
          resolve()
        }
        const timer = setTimeout(done, timeoutMs)
        signal.addEventListener('abort', done, { once: true })
        set.add(done)
      })
    },
  })
}
