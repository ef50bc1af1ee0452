import type { ResumeAccepted, ResumeRequest } from '../../protocol/requests.ts'
import { connect } from '../agui/connect.ts'
import { runOutcome } from '../agui/frontendTools.ts'
import { HttpError, threadBusy } from '../errors.ts'
import { jsonResponse } from '../http/responses.ts'
import type { AguiFields } from '../http/requests.ts'
import type { ChatConfig } from '../options.ts'
import { endedWaits, toWire, unanswered } from '../run/interrupts.ts'
import { pausedRun, startRun } from '../run/startRun.ts'
import { claimThread, headToClaim, type ClaimStart } from '../thread/cachedClaim.ts'
import { recoverLostRun } from '../thread/recovery.ts'
import { authorizeThread, isRunning, type ThreadChange } from '../thread/thread.ts'
import { updateThread } from '../thread/writer/index.ts'
import type { StoredInterrupt, ThreadHead } from '../thread/threadStore.ts'
import { claimForResume, recordAnswers, type RunStart } from '../thread/transitions.ts'
import { chainDecisions } from '../decisions/records.ts'
import { reportDecisions } from '../decisions/report.ts'
import { checkAnswers, checkReplay, type Answerer } from './answers.ts'
import { heldIds, historyAfter, readAndCheck } from './claimedHistory.ts'
import { atMessagePath, markAnsweredByMessage, toolMessageAnswers } from './toolMessages.ts'
import { newRunId } from './runId.ts'
import { requesterContext } from './requesterContext.ts'
import { requestReviews } from '../decisions/approvalRequests.ts'
import { ANONYMOUS } from '../decisions/records.ts'

// Answers resume a turn: each is checked against the open step's interrupts (answers.ts) and stored
// with one compare-and-set; the request that completes the step claims the thread, and the turn's
// run goes on (run/startRun.ts). A review link's answers (reviews.ts) make the same change.

/**
 * `POST { threadId, resume }`: stores the answers (all or nothing). While others of the step are
 * missing, answers 202 with what is still waiting; the request that completes the step claims the
 * thread and streams the continued run. Of two identical concurrent resumes one runs and the other
 * is told the interrupt is already answered (409).
 *
 * A step already fully answered whose run was lost (its process died after the claim, and the
 * lease lapsed) is re-driven by a resume replaying any of its answers: the stored answers apply
 * and the run continues.
 */
export async function resume(config: ChatConfig, request: Request, body: ResumeRequest & AguiFields): Promise<Response> {
  const nothingNew = body.agui === true && body.resume.length === 0 && !body.endsWithTool
  const start = nothingNew ? await startOfToolMessages(config, request, body) : await headToClaim(config, request, body.threadId)
  if (start instanceof Response) return start
  const runId = newRunId(config.eventLog, body.threadId)
  /** The head the last change was decided on: the cached one, or the stored one after a miss. */
  let decidedOn: ThreadHead | undefined
  let claimed
  try {
    claimed = await claimThread(config.store, start, {
      prepare: async (current) => ({ current, ...(await readAndCheck(config, current, body)) }),
      resolve: async () => {
        // The run goes on for the turn's requester, whoever answers (claim/requesterContext.ts).
        const principal = await config.identify(request)
        const contextOf = requesterContext(config, principal, () => config.resolveContext(request))
        return { context: await contextOf(start.head.turnBy ?? ANONYMOUS), principal, contextOf }
      },
      change: (_, { principal, contextOf }) => {
        const change = answersChange(config, body, { principal, channel: 'chat', contextOf }, runId)
        return (head) => ((decidedOn = head), change(head))
      },
    })
  } catch (error) {
    if (!(error instanceof NothingAnswered)) throw error
    // Claimed on the cached head, which a miss showed another instance moved on from: its stored head waits for nothing they answer.
    if (nothingNew && !answersCalls(body, decidedOn)) return connect(config, request, body)
    // The input ends with a result for a call the thread no longer waits for: a repeat.
    const last = body.toolMessages?.at(-1)
    throw new HttpError(409, 'INTERRUPT_ALREADY_ANSWERED', `Tool call "${last?.toolCallId}" is already answered`, `messages[${last?.index}].toolCallId`)
  }
  const { head, change, prepared } = claimed
  const context = await claimed.resolved.contextOf(head.turnBy ?? ANONYMOUS)
  void reportDecisions(config, change)
  if (change.reproposed?.length) void requestReviews(config, head.id, change.reproposed)
  if (change.answered) config.telemetry?.waitsEnded(request, endedWaits(head.id, change.answered, Date.now(), change.decisions))

  if (!change.start || !head.step) {
    if (body.agui) return pausedRun(config, request, { threadId: head.id, runId, outcome: runOutcome(config, unanswered(head.step)), answered: change.answered ?? [] })
    const accepted: ResumeAccepted = { threadId: head.id, interrupts: unanswered(head.step).map((interrupt) => toWire(interrupt, config.tools)) }
    return jsonResponse(202, accepted)
  }
  const messages = await historyAfter(config, prepared, claimed)
  const held = prepared.snapshot ? heldIds(body) : undefined
  return startRun(config, { request, kind: 'resume', runId, head, context, start: change.start, ...(held ? { snapshot: held } : {}), ...(messages ? { messages } : {}) })
}

/**
 * An AG-UI input with nothing new may still answer frontend calls with `tool` messages; else it
 * asks where the thread stands (agui/connect.ts). When the head this instance wrote last says they
 * answer calls, they are claimed on it with no read first: the claim proves it, and a miss decides
 * again on the stored head, where answering nothing is a connect, as without the cache. Any other
 * answer needs the stored head (the cache cannot say that no other instance wrote since), and the
 * claim then starts from the head read for it.
 */
async function startOfToolMessages(config: ChatConfig, request: Request, body: ResumeRequest & AguiFields): Promise<ClaimStart | Response> {
  const cached = config.threadCache?.lastHead(body.threadId)
  if (cached && answersCalls(body, cached)) return headToClaim(config, request, body.threadId)
  const head = await config.store.head(body.threadId)
  if (!head || !answersCalls(body, head)) return connect(config, request, body, { head })
  await authorizeThread(config, request, body.threadId, 'write')
  return { head }
}

/** Whether the input's `tool` messages answer calls that wait in `head`. */
function answersCalls(body: AguiFields, head: ThreadHead | undefined): boolean {
  return toolMessageAnswers(head?.step, body.toolMessages ?? []).answers.length > 0
}

type Answered = ThreadChange & {
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
function answersChange(config: ChatConfig, body: ResumeRequest & AguiFields, who: Answerer, runId: string): (head: ThreadHead) => Promise<Answered> {
  const { runLeaseMs } = config.limits
  return async (head) => {
    const running = isRunning(head, runLeaseMs)
    const recovery = recoverLostRun(head, runLeaseMs, config.tools)
    const lost = recovery.step
    if (!running && lost && lost.interrupts.length > 0 && unanswered(lost).length === 0 && body.resume.length > 0) {
      checkReplay(head, lost, body.resume)
      return claimForResume(head, { runId, recovery, step: lost, now: Date.now() })
    }
    const fromMessages = toolMessageAnswers(recovery.step, body.toolMessages ?? [], body.resume)
    const all = [...body.resume, ...fromMessages.answers]
    if (all.length === 0) throw new NothingAnswered()
    const checked = await checkAnswers({ ...head, step: recovery.step }, all, config.tools, config.limits, who).catch(async (error: unknown) => {
      throw atMessagePath(await expiredRefusal(config, head, body, error), body.resume.length, fromMessages)
    })
    const { drafts, grants, reproposed } = checked
    const step = markAnsweredByMessage(checked.step, fromMessages)
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
 * An answer to an interrupt that expired and was settled so (claim/expiry.ts) is told it expired,
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

/** Stores answers a reviewer gave through a link (claim/reviews.ts): the same change as a resume's. */
export async function storeAnswers(config: ChatConfig, request: Request, body: ResumeRequest, who: Answerer) {
  const runId = newRunId(config.eventLog, body.threadId)
  const { head, change } = await updateThread(config.store, body.threadId, answersChange(config, body, who, runId))
  void reportDecisions(config, change)
  if (change.reproposed?.length) void requestReviews(config, head.id, change.reproposed)
  if (change.answered) config.telemetry?.waitsEnded(request, endedWaits(head.id, change.answered, Date.now(), change.decisions))
  return { runId, head, change }
}

/** An AG-UI input with no new message that answers nothing (thrown inside a thread update: nothing changes). */
class NothingAnswered extends Error {}
