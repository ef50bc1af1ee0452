import type { ResumeRequest } from '../../protocol/requests.ts'
import { HttpError, threadBusy } from '../errors.ts'
import type { ChatConfig } from '../options.ts'
import { endedWaits } from '../run/interrupts.ts'
import { unanswered } from '../thread/step.ts'
import { recoverLostRun } from '../thread/recovery.ts'
import { isRunning, type ThreadChange } from '../thread/thread.ts'
import type { StoredInterrupt, ThreadHead } from '../thread/threadStore.ts'
import { claimForResume, recordAnswers, type RunStart } from '../thread/transitions.ts'
import { chainDecisions } from '../decisions/records.ts'
import { reportDecisions } from '../decisions/report.ts'
import { requestReviews } from '../decisions/approvalRequests.ts'
import { checkAnswers, checkReplay, type Answerer } from './answers.ts'
import type { AnswersIntent } from './intent.ts'

// The change answers make of a head, wherever they come from: a resume in the chat (resume.ts), a
// review link or the server API (reviews.ts). Decided on the head as data; the claim writes it.

export type Answered = ThreadChange & {
  readonly start?: RunStart
  readonly answered?: readonly StoredInterrupt[]
  /** Edits that became new proposals: their reviewers are asked (new links: the old ones were for other arguments). */
  readonly reproposed?: readonly StoredInterrupt[]
}

/**
 * The change answers given by `who` (through the chat endpoint or a review link) make: each
 * approval checked against the interrupt's reviewers and recorded as a decision in the same
 * compare-and-set. It has a `start` (run `runId` claims the thread) when they complete the step.
 */
export function answersChange(config: ChatConfig, body: AnswersIntent, who: Answerer, runId: string): (head: ThreadHead) => Promise<Answered> {
  const { runLeaseMs } = config.limits
  return async (head) => {
    const running = isRunning(head, runLeaseMs)
    const recovery = recoverLostRun(head, runLeaseMs, config.tools)
    const lost = recovery.step
    if (!running && lost && lost.interrupts.length > 0 && unanswered(lost).length === 0 && body.resume.length > 0) {
      checkReplay(head, lost, body.resume)
      return claimForResume(head, { runId, recovery, step: lost, now: Date.now() })
    }
    const fromClient = body.client?.answersFrom(recovery.step, body.resume)
    const all = fromClient ? [...body.resume, ...fromClient.answers] : body.resume
    if (all.length === 0) throw new NothingAnswered()
    const checked = await checkAnswers({ ...head, step: recovery.step }, all, config.tools, config.limits, who).catch(async (error: unknown) => {
      const refusal = await expiredRefusal(config, head, body, error)
      throw fromClient ? fromClient.at(refusal, body.resume.length) : refusal
    })
    const { drafts, grants, reproposed } = checked
    const step = fromClient ? fromClient.mark(checked.step) : checked.step
    if (running) throw threadBusy()
    const chain = await chainDecisions(head.decisions, drafts, config.recordKey)
    const decided = grants.length > 0 ? { ...chain, grants: [...(head.grants ?? []), ...grants] } : chain
    // The waits this request ends; a replay of a lost run's answers (above) ends none, nor does an
    // approval short of the reviewers' `required` count (the interrupt stays open).
    const ids = new Set(all.map((answer) => answer.interruptId))
    const answered = step.interrupts.filter((interrupt) => ids.has(interrupt.id) && interrupt.answer !== undefined)
    if (unanswered(step).length > 0) return { ...recordAnswers(head, { recovery, step, decided }), answered, reproposed }
    return { ...claimForResume(head, { runId, recovery, step, decided, now: Date.now() }), answered }
  }
}

/**
 * An answer to an interrupt that expired and was settled so (run/expiry.ts) is told it expired,
 * as it was before anyone settled it, not that someone answered it. Read only on that refusal.
 */
async function expiredRefusal(config: ChatConfig, head: ThreadHead, body: ResumeRequest, error: unknown): Promise<unknown> {
  if (!(error instanceof HttpError) || error.code !== 'INTERRUPT_ALREADY_ANSWERED' || !head.decisions) return error
  const index = Number(/^resume\[(\d+)\]/.exec(error.path ?? '')?.[1])
  const interruptId = body.resume[index]?.interruptId
  const last = (await config.store.decisions(head.id)).filter((record) => record.interruptId === interruptId).at(-1)
  if (last?.decision !== 'expired') return error
  return new HttpError(410, 'INTERRUPT_EXPIRED', `Interrupt "${interruptId}" expired unanswered (settled at ${last.at}); send a new message instead`, error.path)
}

/** Reports what a written change of answers did: its decision records, new proposals' reviewers asked, the waits it ended. */
export function reportAnswered(config: ChatConfig, request: Request, head: ThreadHead, change: Answered): void {
  void reportDecisions(config, change)
  if (change.reproposed?.length) void requestReviews(config, head.id, change.reproposed)
  if (change.answered) config.telemetry?.waitsEnded(request, endedWaits(head.id, change.answered, Date.now(), change.decisions))
}

/** A client's input with no new message that answers nothing (thrown by `answersChange`: nothing changes). */
export class NothingAnswered extends Error {}
