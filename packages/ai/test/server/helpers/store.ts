import { expect } from 'vitest'
import type { ThreadHead, ThreadStore } from '@toolgate/ai/server'
import type { ThreadMessage } from '@toolgate/ai/protocol'

/** What a store holds of a thread: its head and every stored message. */
export async function stored(store: ThreadStore, threadId: string): Promise<{ head: ThreadHead; messages: readonly ThreadMessage[] } | undefined> {
  const head = await store.head(threadId)
  if (!head) return undefined
  return { head, messages: await store.messages(threadId, 0, head.messageCount) }
}

/**
 * A run its store failed, as the store holds it after: released (no active run, no open step), its
 * failure kept for a reloaded page, and a history of `roles` that its head counts whole.
 */
export async function expectReleasedAfterStoreError(store: ThreadStore, threadId: string, roles: readonly ThreadMessage['role'][]) {
  const thread = (await stored(store, threadId))!
  expect(thread.head.activeRun).toBeUndefined()
  expect(thread.head.step).toBeUndefined()
  expect(thread.head.lastRunError).toMatchObject({ code: 'STORE_ERROR' })
  expect(thread.head.messageCount).toBe(thread.messages.length)
  expect(thread.messages.map((message) => message.role)).toEqual(roles)
  return thread
}
