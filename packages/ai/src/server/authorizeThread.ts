import type { ChatConfig, ThreadAction } from './config.ts'
import { HttpError } from './errors.ts'
import type { VersionedThread } from './threadStore.ts'

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
