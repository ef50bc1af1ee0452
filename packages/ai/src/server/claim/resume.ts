import type { ResumeRequest } from '../../protocol/requests.ts'
import { HttpError, threadBusy } from '../errors.ts'
import type { ChatConfig } from '../options.ts'
import { endedWaits } from '../run/interrupts.ts'
import { unanswered } from '../thread/step.ts'
import { claimThread, headToClaim, type ClaimStart } from '../thread/cachedClaim.ts'
import { recoverLostRun } from '../thread/recovery.ts'
import { authorizeThread, isRunning, type ThreadChange } from '../thread/thread.ts'
import { updateThread } from '../thread/writer/index.ts'
import type { StoredInterrupt, ThreadHead } from '../thread/threadStore.ts'
import { claimForResume, recordAnswers, type RunStart } from '../thread/transitions.ts'
import { chainDecisions } from '../decisions/records.ts'
import { reportDecisions } from '../decisions/report.ts'
import { checkAnswers, checkReplay, type Answerer } from './answers.ts'
import { historyAfter, readAndCheck } from './claimedHistory.ts'
import type { AnswersIntent, ClientThread, Resumed } from './intent.ts'
import { newRunId } from './runId.ts'
import { requesterContext } from './requesterContext.ts'
import { requestReviews } from '../decisions/approvalRequests.ts'
import { ANONYMOUS } from '../decisions/records.ts'

// Answers resume a turn: each is checked against the open step's interrupts (answers.ts) and stored
// with one compare-and-set; the request that completes the step claims the thread, and the turn's
// run goes on (run/startRun.ts). A review link's answers (reviews.ts) make the same change. A client
// that answers its own way (AG-UI `tool` messages) gives them through its hooks (intent.ts).

/**
 * `POST { threadId, resume }`: stores the answers (all or nothing). While others of the step are
 * missing, they are `accepted` with what is still waiting; the request that completes the step claims the
 * thread for the continued `run`. Of two identical concurrent resumes one runs and the other
 * is told the interrupt is already answered (409).
 *
 * A step already fully answered whose run was lost (its process died after the claim, and the
 * lease lapsed) is re-driven by a resume replaying any of its answers: the stored answers apply
 * and the run continues.
 */
export async function resume(config: ChatConfig, request: Request, body: AnswersIntent): Promise<Resumed> {
  const { client } = body
  const nothingNew = client !== undefined && body.resume.length === 0 && !client.endsWithAnswer
  const start = nothingNew ? await startOfClientAnswers(config, request, body.threadId, client) : await headToClaim(config, request, body.threadId)
  if ('nothing' in start) return start
  const runId = newRunId(config.eventLog, body.threadId)
  /** The head the last change was decided on: the cached one, or the stored one after a miss. */
  let decidedOn: ThreadHead | undefined
  let claimed
  try {
    claimed = await claimThread(config.store, start, {
      prepare: async (current) => ({ current, ...(await readAndCheck(config, current, client)) }),
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
    if (nothingNew && !answersCalls(client, decidedOn)) return { nothing: {} }
    // The input ends with a result for a call the thread no longer waits for: a repeat.
    throw client ? client.repeated() : error
  }
  const { head, change, prepared } = claimed
  const context = await claimed.resolved.contextOf(head.turnBy ?? ANONYMOUS)
  void reportDecisions(config, change)
  if (change.reproposed?.length) void requestReviews(config, head.id, change.reproposed)
  if (change.answered) config.telemetry?.waitsEnded(request, endedWaits(head.id, change.answered, Date.now(), change.decisions))

  if (!change.start || !head.step) return { accepted: { threadId: head.id, runId, answered: change.answered ?? [], waiting: unanswered(head.step) } }
  const messages = await historyAfter(config, prepared, claimed)
  const held = prepared.snapshot && client ? client.heldIds() : undefined
  return { run: { request, kind: 'resume', runId, head, context, start: change.start, ...(held ? { snapshot: held } : {}), ...(messages ? { messages } : {}) } }
}

/**
 * A client's input with nothing new may still answer calls its own way (AG-UI: `tool` messages for
 * frontend calls); else it asks where the thread stands (`nothing`: dialects/agui/connect.ts). When the head this instance wrote last says they
 * answer calls, they are claimed on it with no read first: the claim proves it, and a miss decides
 * again on the stored head, where answering nothing is a connect, as without the cache. Any other
 * answer needs the stored head (the cache cannot say that no other instance wrote since), and the
 * claim then starts from the head read for it.
 */
async function startOfClientAnswers(config: ChatConfig, request: Request, threadId: string, client: ClientThread): Promise<ClaimStart | Extract<Resumed, { nothing: unknown }>> {
  const cached = config.threadCache?.lastHead(threadId)
  if (cached && answersCalls(client, cached)) return headToClaim(config, request, threadId)
  const head = await config.store.head(threadId)
  if (!head || !answersCalls(client, head)) return { nothing: { read: { head } } }
  await authorizeThread(config, request, threadId, 'write')
  return { head }
}

/** Whether the client's own answers answer calls that wait in `head`. */
function answersCalls(client: ClientThread | undefined, head: ThreadHead | undefined): boolean {
  return client !== undefined && client.answersFrom(head?.step, []).answers.length > 0
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
function answersChange(config: ChatConfig, body: AnswersIntent, who: Answerer, runId: string): (head: ThreadHead) => Promise<Answered> {
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

/** Stores answers a reviewer gave through a link (claim/reviews.ts): the same change as a resume's. */
export async function storeAnswers(config: ChatConfig, request: Request, body: ResumeRequest, who: Answerer) {
  const runId = newRunId(config.eventLog, body.threadId)
  const { head, change } = await updateThread(config.store, body.threadId, answersChange(config, body, who, runId))
  void reportDecisions(config, change)
  if (change.reproposed?.length) void requestReviews(config, head.id, change.reproposed)
  if (change.answered) config.telemetry?.waitsEnded(request, endedWaits(head.id, change.answered, Date.now(), change.decisions))
  return { runId, head, change }
}

/** A client's input with no new message that answers nothing (thrown inside a thread update: nothing changes). */
class NothingAnswered extends Error {}
