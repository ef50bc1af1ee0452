import { HttpError } from './errors.ts'
import type { Thread } from './threadStore.ts'

/**
 * A run holds its thread until it ends; a lease bounds that in case the process died mid-run. The
 * lease measures inactivity: every write of the run renews it (`save`), however long the run lasts.
 */
export function isRunning(thread: Thread, leaseMs: number): boolean {
  const { activeRun } = thread
  return activeRun !== undefined && Date.now() - (activeRun.renewedAt ?? activeRun.startedAt) < leaseMs
}

/** The refusal for a request that needs the thread while a run holds it. */
export function threadBusy(): HttpError {
  return new HttpError(409, 'THREAD_BUSY', 'A run is still streaming on this thread; wait for it to finish')
}
