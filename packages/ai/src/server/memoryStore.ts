import type { Thread, ThreadStore, VersionedThread } from './threadStore.ts'

/**
 * A `ThreadStore` in this process's memory: for development, tests and single-instance servers.
 * Threads are kept as JSON text, so callers never share objects with the store and anything that
 * would not survive a real store fails here too.
 */
export function memoryStore(): ThreadStore {
  const threads = new Map<string, { json: string; version: number }>()
  return {
    async get(threadId): Promise<VersionedThread | undefined> {
      const entry = threads.get(threadId)
      return entry && { thread: JSON.parse(entry.json) as Thread, version: entry.version }
    },
    async put(thread, expectedVersion) {
      const current = threads.get(thread.id)?.version ?? 0
      if (current !== expectedVersion) return false
      threads.set(thread.id, { json: JSON.stringify(thread), version: expectedVersion + 1 })
      return true
    },
  }
}
