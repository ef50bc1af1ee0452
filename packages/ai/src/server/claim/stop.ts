import type { StopAccepted, StopRequest } from '../../protocol/requests.ts'
import { toolFailures } from '../errors.ts'
import type { ChatConfig } from '../options.ts'
import { endedWaits, settleInterrupts } from '../run/interrupts.ts'
import { unanswered } from '../thread/step.ts'
import { RunStopped } from '../run/Run.ts'
import { recoverLostRun } from '../thread/recovery.ts'
import { isRunning, loadHead } from '../thread/thread.ts'
import { updateThread } from '../thread/writer/index.ts'
import type { StoredInterrupt } from '../thread/threadStore.ts'
import { cancelStep, requestStop } from '../thread/transitions.ts'
import { recordOutcomes } from '../decisions/records.ts'
import { reportDecisions } from '../decisions/report.ts'
import { Unchanged } from './unchanged.ts'

// Stopping: the only way a run ends early (a client that drops does not stop it). A stop with no
// run cancels what waits for answers instead.

/**
 * `POST { threadId, stop: true }`: stops the thread's active run. A run of this process stops at
 * once; a run of another instance sees the request in the thread's head within a second.
 */
export async function stopRun(config: ChatConfig, request: Request, body: StopRequest): Promise<StopAccepted> {
  const head = await loadHead(config, request, body.threadId, 'write')
  const runId = head.activeRun?.runId
  if (runId === undefined || !isRunning(head, config.limits.runLeaseMs)) {
    if (unanswered(head.step).length === 0) return stopAccepted(head.id, false)
    return cancelWaiting(config, request, head.id)
  }
  return stopAccepted(head.id, await stopActiveRun(config, head.id, runId))
}

/**
 * Stops run `runId` of the thread: at once when this process runs it, else by asking for it in the
 * head (`requestStop`), where the run's instance finds it within a second. Whether it was asked to stop.
 */
export async function stopActiveRun(config: ChatConfig, threadId: string, runId: string): Promise<boolean> {
  const local = config.liveRuns.get(runId)
  if (local) {
    local.abort(new RunStopped())
    return true
  }
  const { change } = await updateThread(config.store, threadId, (current) =>
    current.activeRun?.runId === runId && isRunning(current, config.limits.runLeaseMs) ? requestStop(current, { runId }) : { head: {} },
  )
  return 'stopRequested' in change.head
}

function stopAccepted(threadId: string, stopped: boolean, cancelled?: readonly string[]): StopAccepted {
  return { threadId, stopped, ...(cancelled && cancelled.length > 0 ? { cancelled } : {}) }
}

/**
 * A stop while calls wait for answers (no run holds the thread): what waits is `cancelled` (or
 * `expired`, if no one answered in time), recorded as decided by whoever stopped, and the step
 * joins the history. The model reads it on the next message.
 */
async function cancelWaiting(config: ChatConfig, request: Request, threadId: string): Promise<StopAccepted> {
  const by = await config.identify(request)
  const { runLeaseMs } = config.limits
  let cancelled: string[] = []
  let ended: StoredInterrupt[] = []
  try {
    const { change } = await updateThread(config.store, threadId, async (head) => {
      const recovery = recoverLostRun(head, runLeaseMs, config.tools)
      const { step } = recovery
      if (isRunning(head, runLeaseMs) || !step || unanswered(step).length === 0 || step.running.length > 0) throw new Unchanged()
      const settled = await recordOutcomes(head, step.interrupts, await settleInterrupts(step.message, step.interrupts, config.tools, 'cancel', toolFailures(config, head.id, '')), by, config.recordKey)
      ended = unanswered(step)
      cancelled = ended.map((interrupt) => interrupt.id)
      return cancelStep(head, { recovery, step, settled, decided: settled.decided })
    })
    void reportDecisions(config, change)
    config.telemetry?.waitsEnded(request, endedWaits(threadId, ended, Date.now(), change.decisions, 'cancelled'))
  } catch (error) {
    if (!(error instanceof Unchanged)) throw error
  }
  return stopAccepted(threadId, false, cancelled)
}
