import { ToolgateError } from '../errors.ts'
import { HttpError } from './errors.ts'
import type { RunState } from './runState.ts'

// A thread never holds more than `limits.maxThreadMessages` messages. Every call is counted with
// its result from the moment it is stored (a result comes later for a pending one), so once a
// model step fits, its calls' results always fit too, and a run can always leave its thread consistent.

/** The refusal for a new message on a thread without room for it and a reply. */
export function threadFull(maxThreadMessages: number): HttpError {
  return new HttpError(409, 'THREAD_FULL', `The thread holds its limit of ${maxThreadMessages} messages; start a new thread`, 'threadId')
}

/** A run that would take its thread past the limit; it ends with RUN_ERROR `THREAD_FULL`. */
export class ThreadFullError extends ToolgateError {
  constructor(maxThreadMessages: number) {
    super('THREAD_FULL', `The thread reached its limit of ${maxThreadMessages} messages; start a new thread`)
  }
}

/** Throws unless the run's thread has room for `count` more messages. */
export function ensureRoom(run: RunState, count: number): void {
  const max = run.config.limits.maxThreadMessages
  if (run.thread.messages.length + count > max) throw new ThreadFullError(max)
}
