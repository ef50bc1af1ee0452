import { HttpError } from './errors.ts'
import type { PendingBatch, Thread } from './threadStore.ts'

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

/**
 * A batch whose every answer is stored but no live run applies them: the run that claimed the
 * thread to resume was lost (its process died, or it failed) before it stored its results. The
 * next resume that replays one of its answers re-drives it; a new message settles it.
 */
export function lostBatch(thread: Thread, leaseMs: number): PendingBatch | undefined {
  const { pending } = thread
  if (!pending || isRunning(thread, leaseMs) || pending.interrupts.some((interrupt) => interrupt.answer === undefined)) return undefined
  return pending
}
