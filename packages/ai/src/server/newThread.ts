import type { Thread } from './threadStore.ts'

/** A thread with no messages yet, as the first message of a conversation creates it. */
export function newThread(id: string): Thread {
  const now = Date.now()
  return { id, messages: [], resolvedInterruptIds: [], createdAt: now, updatedAt: now }
}
