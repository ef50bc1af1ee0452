import { HttpError } from './errors.ts'
import type { Thread, ThreadStore, VersionedThread } from './threadStore.ts'

const ATTEMPTS = 5

/**
 * Read, change, compare-and-set; on a conflict, read again and re-apply the change, so concurrent
 * requests serialize: the change sees whatever the other request wrote (an answer it gave, a run
 * it started) and refuses accordingly.
 */
export async function updateThread(
  store: ThreadStore,
  threadId: string,
  change: (thread: Thread) => Thread | Promise<Thread>,
): Promise<VersionedThread> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const stored = await store.get(threadId)
    if (!stored) throw new HttpError(404, 'THREAD_NOT_FOUND', `Thread "${threadId}" does not exist`, 'threadId')
    const thread = { ...(await change(stored.thread)), updatedAt: Date.now() }
    if (await store.put(thread, stored.version)) return { thread, version: stored.version + 1 }
  }
  throw new HttpError(409, 'VERSION_CONFLICT', 'The thread kept changing while this request tried to update it; retry')
}
