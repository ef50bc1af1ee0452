import { HttpError, threadBusy } from '../errors.ts'
import type { ChatConfig } from '../options.ts'
import { authorizeThread, isRunning } from '../thread/thread.ts'
import { backoff, retry } from '../../util/retry.ts'
import { stopActiveRun } from './stop.ts'

// A foreign client's new message while the thread's run still goes supersedes that run, as
// Toolgate's own client does by stopping it first: the AI SDK's, TanStack's and AG-UI's `stop()`
// only stop reading, so their next message finds the run still streaming, and their history holds
// its reply cut short (an assistant message the thread does not have yet). The run is stopped where
// it is, through the stop path (`requestStop` for another instance's run); it stores what it
// streamed, marked stopped; the message is then claimed as on an idle thread, and the history that
// shows the partial reply is "behind" it, not a conflict.

/**
 * Whether `error` (the claim's refusal of a message) came of a run still going on thread
 * `threadId`: if so, that run is stopped and its end awaited (true: claim again); else false (the
 * refusal stands). The request must be allowed to write the thread, as a stop must.
 */
export async function supersedeRun(config: ChatConfig, request: Request, threadId: string, error: unknown): Promise<boolean> {
  if (!(error instanceof HttpError) || (error.code !== 'THREAD_BUSY' && error.code !== 'HISTORY_CONFLICT')) return false
  const { runLeaseMs } = config.limits
  const head = await config.store.head(threadId)
  const runId = head?.activeRun?.runId
  if (!head || runId === undefined || !isRunning(head, runLeaseMs)) return false
  await authorizeThread(config, request, threadId, 'write')
  await stopActiveRun(config, threadId, runId)
  // The run ends as soon as it sees the stop (another instance's within a second) and stores its
  // step; a run whose instance died meanwhile lets go once its lease lapses.
  await retry(
    async () => {
      const current = await config.store.head(threadId)
      if (current?.activeRun?.runId === runId && isRunning(current, runLeaseMs)) throw threadBusy()
    },
    { attempts: Number.POSITIVE_INFINITY, delay: backoff(10, 250), until: Date.now() + runLeaseMs, signal: request.signal },
  )
  return true
}
