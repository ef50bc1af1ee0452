import type { Thread, ThreadStore, VersionedThread } from './threadStore.ts'

export interface MemoryStoreOptions {
  /** Threads kept at most; the least recently used go first. Default 10,000. */
  readonly maxThreads?: number
  /** A thread untouched for this long is forgotten. Default 24 hours. */
  readonly idleTtlMs?: number
}

interface Entry {
  readonly json: string
  readonly version: number
  readonly touchedAt: number
}

/**
 * A `ThreadStore` in this process's memory: for development, tests and single-instance servers.
 * Threads are kept as JSON text, so callers never share objects with the store and anything that
 * would not survive a real store fails here too. Bounded, so anonymous traffic cannot grow it
 * without end.
 */
export function memoryStore(options: MemoryStoreOptions = {}): ThreadStore {
  const maxThreads = options.maxThreads ?? 10_000
  const idleTtlMs = options.idleTtlMs ?? 24 * 60 * 60 * 1000
  if (!(maxThreads >= 1) || !(idleTtlMs > 0)) throw new TypeError('memoryStore needs a positive `maxThreads` and `idleTtlMs`')
  // A Map iterates in insertion order: re-inserting on every touch keeps the least recently used first.
  const threads = new Map<string, Entry>()

  const touch = (threadId: string, entry: Entry) => {
    threads.delete(threadId)
    threads.set(threadId, entry)
    for (const oldest of threads.keys()) {
      if (threads.size <= maxThreads) break
      threads.delete(oldest)
    }
  }
  const live = (threadId: string): Entry | undefined => {
    const entry = threads.get(threadId)
    if (entry && Date.now() - entry.touchedAt > idleTtlMs) {
      threads.delete(threadId)
      return undefined
    }
    return entry
  }

  return {
    async get(threadId): Promise<VersionedThread | undefined> {
      const entry = live(threadId)
      if (!entry) return undefined
      touch(threadId, { ...entry, touchedAt: Date.now() })
      return { thread: JSON.parse(entry.json) as Thread, version: entry.version }
    },
    async put(thread, expectedVersion) {
      const current = live(thread.id)?.version ?? 0
      if (current !== expectedVersion) return false
      touch(thread.id, { json: JSON.stringify(thread), version: expectedVersion + 1, touchedAt: Date.now() })
      return true
    },
  }
}
