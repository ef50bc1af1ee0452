import type { ChatConfig } from '../options.ts'
import { startDetachedRun } from '../run/startRun.ts'
import { recoverLostRun } from '../thread/recovery.ts'
import { isRunning } from '../thread/thread.ts'
import { updateThread } from '../thread/writer/index.ts'
import { takeOver } from '../thread/transitions.ts'
import { Unchanged } from './unchanged.ts'
import { newRunId } from './runId.ts'

// A reader continues a turn whose run died: the third way a run begins, beside a message
// (startTurn.ts) and answers (resume.ts). Readers reach it through `GET` (edge/reads.ts) and an
// AG-UI client's rejoin (dialects/agui/rejoin.ts).

/**
 * Continues a turn whose run died (its process was killed) for a reader that attached to it: once
 * the dead run's lease lapsed, a new run takes the thread over from its last stored step (calls
 * the dead run had started are reported as interrupted, or run again when idempotent) and the
 * model goes on. Returns the run to follow: the new one, or one another instance started first;
 * `undefined` when there is nothing to continue.
 */
export async function takeOverLostRun(config: ChatConfig, request: Request, threadId: string, lostRunId: string): Promise<string | undefined> {
  const runId = newRunId(config.eventLog, threadId)
  const { runLeaseMs } = config.limits
  let taken
  try {
    taken = await updateThread(config.store, threadId, (head) => {
      if (head.activeRun?.runId !== lostRunId || isRunning(head, runLeaseMs)) throw new Unchanged()
      return takeOver(head, { runId, recovery: recoverLostRun(head, runLeaseMs, config.tools), now: Date.now() })
    })
  } catch (error) {
    if (!(error instanceof Unchanged)) throw error
    const current = await config.store.head(threadId)
    return current && isRunning(current, runLeaseMs) ? current.activeRun?.runId : undefined
  }
  const { head, change } = taken
  if (!change.start) return undefined
  const context = await config.resolveContext(request)
  startDetachedRun(config, { request, kind: 'takeover', runId, head, context, start: change.start })
  return runId
}
