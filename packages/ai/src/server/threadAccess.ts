import { HttpError } from './errors.ts'
import type { ChatConfig, ThreadAction } from './config.ts'
import type { Thread, ThreadStore, VersionedThread } from './threadStore.ts'

export function newThread(id: string): Thread {
  const now = Date.now()
  return { id, messages: [], resolvedInterruptIds: [], createdAt: now, updatedAt: now }
}

/** Loads a thread the request may access: 404 when it does not exist, 403 when `authorize` says no. */
export async function loadAuthorized(config: ChatConfig, request: Request, threadId: string, action: ThreadAction): Promise<VersionedThread> {
  const stored = await config.store.get(threadId)
  if (!stored) throw new HttpError(404, 'THREAD_NOT_FOUND', `Thread "${threadId}" does not exist`, 'threadId')
  await authorizeThread(config, request, threadId, action)
  return stored
}

export async function authorizeThread(config: ChatConfig, request: Request, threadId: string, action: ThreadAction): Promise<void> {
  if (config.authorize && !(await config.authorize(request, threadId, { action }))) {
    throw new HttpError(403, 'FORBIDDEN', 'You may not access this thread', 'threadId')
  }
}

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

/**
 * A run holds its thread until it ends; a lease bounds that in case the process died mid-run. The
 * lease measures inactivity: every write of the run renews it (`save`), however long the run lasts.
 */
export function isRunning(thread: Thread, leaseMs: number): boolean {
  const { activeRun } = thread
  return activeRun !== undefined && Date.now() - (activeRun.renewedAt ?? activeRun.startedAt) < leaseMs
}

export function threadBusy(): HttpError {
  return new HttpError(409, 'THREAD_BUSY', 'A run is still streaming on this thread; wait for it to finish')
}
