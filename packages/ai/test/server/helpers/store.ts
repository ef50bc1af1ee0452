import type { ThreadHead, ThreadMessage, ThreadStore } from '@toolgate/ai/server'

/** What a store holds of a thread: its head and every stored message. */
export async function stored(store: ThreadStore, threadId: string): Promise<{ head: ThreadHead; messages: readonly ThreadMessage[] } | undefined> {
  const head = await store.head(threadId)
  if (!head) return undefined
  return { head, messages: await store.messages(threadId, 0, head.messageCount) }
}
