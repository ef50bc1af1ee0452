import type { ResumeAccepted, ResumeRequest } from '../protocol/requests.ts'
import { randomId } from '../util/randomId.ts'
import { checkReplay, recordAnswers } from './answers.ts'
import { loadAuthorized } from './authorizeThread.ts'
import type { ChatConfig } from './config.ts'
import { toWire, unanswered } from './interrupts.ts'
import { jsonResponse } from './jsonResponse.ts'
import { isRunning, lostBatch, threadBusy } from './runLease.ts'
import { streamRun } from './streamRun.ts'
import { updateThread } from './updateThread.ts'

/**
 * `POST { threadId, resume }`: stores the answers (all or nothing). While others of the batch are
 * missing, answers 202 with what is still waiting; the request that completes the batch claims the
 * thread and streams the continued run. Claiming is a compare-and-set, so of two identical
 * concurrent resumes one runs and the other is told the interrupt is already answered (409).
 *
 * A batch already complete whose run was lost (the process died after the claim, before the run
 * stored its results, and the lease ran out) is re-driven by a resume replaying any of its
 * answers: the stored answers apply (an approved server tool whose run was lost mid-call runs
 * again) and the run continues.
 */
export async function resume(config: ChatConfig, request: Request, body: ResumeRequest): Promise<Response> {
  await loadAuthorized(config, request, body.threadId, 'write')
  const context = await config.resolveContext(request)
  const runId = randomId('run_')

  const claimed = await updateThread(config.store, body.threadId, async (thread) => {
    const lost = lostBatch(thread, config.limits.runLeaseMs)
    if (lost) {
      checkReplay(thread, lost, body.resume)
      return { ...thread, activeRun: { runId, startedAt: Date.now() } }
    }
    const answered = await recordAnswers(thread, body.resume, config.toolset, config.limits.maxReasonLength)
    if (isRunning(thread, config.limits.runLeaseMs)) throw threadBusy()
    const complete = unanswered(answered.pending).length === 0
    return complete ? { ...answered, activeRun: { runId, startedAt: Date.now() } } : answered
  })

  const { thread } = claimed
  if (thread.activeRun?.runId !== runId || !thread.pending) {
    const accepted: ResumeAccepted = { threadId: thread.id, interrupts: unanswered(thread.pending).map((interrupt) => toWire(interrupt, config.toolset)) }
    return jsonResponse(202, accepted)
  }
  return streamRun(config, request, { runId, claimed, context, start: { steps: thread.pending.steps, resume: thread.pending } })
}
