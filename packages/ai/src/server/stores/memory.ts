import { InvalidOptionError } from '../../errors.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import { deepFreeze } from '../../util/deepFreeze.ts'
import type { ThreadHead, ThreadStore } from '../threadStore.ts'

export interface MemoryStoreOptions {
  /** Threads kept at most; the least recently used go first. Default 10,000. */
  readonly maxThreads?: number
  /** A thread untouched for this long is forgotten. Default 24 hours. */
  readonly idleTtlMs?: number
}

interface Entry {
  /** The head as JSON: small, and parsed afresh so callers never share it with the store. */
  head: string
  version: number
  /** Frozen on the way in (the runtime never changes a message it stored), so they are handed out without copies. */
  readonly messages: ThreadMessage[]
  touchedAt: number
  running: boolean
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
  if (!(idleTtlMs > 0)) throw new InvalidOptionError('memoryStore', 'idleTtlMs', 'must be a positive number of milliseconds')
  // A Map iterates in insertion order: re-inserting on every touch keeps the least recently used first.
  const threads = new Map<string, Entry>()

  const live = (threadId: string): Entry | undefined => {
    const entry = threads.get(threadId)
    if (entry && !entry.running && Date.now() - entry.touchedAt > idleTtlMs) {
      threads.delete(threadId)
      return undefined
    }
    return entry
  }
  const touch = (threadId: string, entry: Entry) => {
    entry.touchedAt = Date.now()
    threads.delete(threadId)
    threads.set(threadId, entry)
    if (threads.size <= maxThreads) return
    for (const [id, oldest] of threads) {
      if (threads.size <= maxThreads) break
      if (!oldest.running) threads.delete(id)
    }
  }

  return {
    async head(threadId) {
      const entry = live(threadId)
      if (!entry) return undefined
      touch(threadId, entry)
      return JSON.parse(entry.head) as ThreadHead
    },
    async messages(threadId, from, to) {
      return live(threadId)?.messages.slice(from, to) ?? []
    },
    async commit({ head, append }) {
      const entry = live(head.id)
      if ((entry?.version ?? 0) !== head.version - 1) return false
      const messages = entry?.messages ?? []
      for (const message of append) messages.push(deepFreeze(message))
      const next: Entry = { head: JSON.stringify(head), version: head.version, messages, touchedAt: 0, running: head.activeRun !== undefined }
      touch(head.id, next)
      return true
    },
  }
}
