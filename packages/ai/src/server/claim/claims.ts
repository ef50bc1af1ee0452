import type { ThreadMessage, ThreadUserMessage } from '../../protocol/messages.ts'
import type { MessageRequest, ResumeAccepted, ResumeRequest, RevokeGrantRequest, StopAccepted, StopRequest } from '../../protocol/requests.ts'
import { messageBytes } from '../../util/jsonBytes.ts'
import { randomId } from '../../util/randomId.ts'
import { checkClientHistory } from '../agui/clientHistory.ts'
import { runOutcome } from '../agui/frontendTools.ts'
import { connect } from '../agui/connect.ts'
import { HttpError, messageTooLarge, threadBusy, threadFull, toolFailures } from '../errors.ts'
import { jsonResponse } from '../http/responses.ts'
import type { AguiFields } from '../http/requests.ts'
import type { ChatConfig } from '../options.ts'
import { endedWaits, toWire, unanswered, settleInterrupts } from '../run/interrupts.ts'
import { RunStopped } from '../run/Run.ts'
import { pausedRun, startDetachedRun, startRun } from '../run/startRun.ts'

import { recoverLostRun } from '../thread/recovery.ts'
import { claimThread, headToClaim } from '../thread/cachedClaim.ts'
import { authorizeThread, commitChange, isRunning, loadHead, newHead, updateThread, type ThreadChange } from '../thread/thread.ts'
import { storedHistory } from '../thread/storedHistory.ts'
import type { OpenStep, ThreadHead } from '../thread/threadStore.ts'
import { cancelStep, revokeGrant, claimForMessage, claimForResume, claimNewThread, recordAnswers, requestStop, storedSize, takeOver, type RunStart } from '../thread/transitions.ts'
import { checkAnswers, checkReplay, type Answerer } from './answers.ts'
import { atMessagePath, markAnsweredByMessage, toolMessageAnswers } from './toolMessages.ts'
import { chainDecisions, recordOutcomes } from '../decisions/records.ts'
import { reportDecisions } from '../decisions/report.ts'
import type { StoredInterrupt } from '../thread/threadStore.ts'

// The ways a run begins: a user message starts a turn, answers resume one, a reader continues a
// turn whose run died. Each claims the thread with one compare-and-set (so of two racing requests
// one runs and the other is refused), writing the change a transition (thread/transitions.ts)
// makes of the head, then ends in `startRun`.

/**
 * `POST { threadId?, message }`. Interrupts still pending are not an error: the user moved on, so
 * they are denied and the turn proceeds.
 */
export async function startTurn(config: ChatConfig, request: Request, body: MessageRequest & AguiFields): Promise<Response> {
  const runId = randomId('run_')
  const { threadId: existing } = body
  const fresh: ThreadUserMessage = { role: 'user', id: randomId('msg_'), content: body.message }
  const userBytes = messageBytes(fresh)
  const { maxMessageBytes, maxThreadBytes, maxThreadMessages, runLeaseMs } = config.limits
  if (userBytes > maxMessageBytes) throw messageTooLarge(userBytes, maxMessageBytes, 'message')

  // The app's context is resolved only once the request is authorized, and before the thread is
  // claimed, so a context function that throws leaves nothing held. An AG-UI client picks its own
  // thread id: the thread is created on first use, as when the server picks it.
  const by = await config.identify(request)
  // An AG-UI client's thread is looked up to learn whether this creates it, unless this instance
  // wrote it last (its cache knows it exists); once it exists, that read is the claim's (after the
  // request is authorized to write), not a second round trip.
  const known = existing !== undefined && body.agui ? config.threadCache?.lastHead(existing) !== undefined : false
  const found = existing !== undefined && body.agui && !known ? await config.store.head(existing) : undefined
  const created = existing === undefined || (body.agui && !known && !found)
  // Resolved once: a claim on the cached head that finds the thread gone makes it again with the context it resolved.
  let resolving: Promise<unknown> | undefined
  const resolveContext = () => (resolving ??= config.resolveContext(request))
  const create = async (threadId: string) => {
    await authorizeThread(config, request, threadId, 'create')
    if (body.history) await checkClientHistory(config, undefined, body.history)
    const context = await resolveContext()
    const user = body.messageId === undefined ? fresh : { ...fresh, id: body.messageId }
    const claim = claimNewThread({ runId, user, by, now: Date.now() })
    const head = await commitChange(config.store, newHead(threadId), claim)
    if (!head) throw new HttpError(409, 'VERSION_CONFLICT', 'A thread with this id already exists')
    return startRun(config, { request, kind: 'message', runId, head, messages: [user], context, start: claim.start })
  }
  if (existing === undefined || created) return create(existing ?? randomId('thread_'))

  // Claimed on the head this instance wrote last when it keeps it (an AG-UI client's was just read when it does not).
  // The thread this instance wrote last may be gone (it expired): an AG-UI client's id then makes it again, as on first use.
  const gone = (error: unknown) => {
    if (known && error instanceof HttpError && error.code === 'THREAD_NOT_FOUND') return undefined
    throw error
  }
  const start = found ? (await authorizeThread(config, request, existing, 'write'), { head: found }) : await headToClaim(config, request, existing).catch(gone)
  if (!start) return create(existing)
  const claimed = await claimThread(config.store, start, {
    prepare: async (current) => {
      const { history, snapshot } = await readAndCheck(config, current, body)
      return { current, history, snapshot, user: await withClientId(fresh, body.messageId, current, history) }
    },
    resolve: resolveContext,
    change: ({ user }) => async (head) => {
      if (isRunning(head, runLeaseMs)) throw threadBusy()
      const lost = recoverLostRun(head, runLeaseMs, config.tools)
      // `tool` messages before the new message answer frontend tool calls: their results stand.
      const recovery = { ...lost, step: await answeredByToolMessages(config, head, lost.step, body, { principal: by, channel: 'chat' }) }
      const { step } = recovery
      if (step && step.running.length > 0) {
        // Idempotent calls a crash cut off run again first; the message follows their step, whose
        // other calls still waiting for an answer are superseded by it. Room for the step with a
        // result for each call, the message and a reply, plus one (the margin this check always had).
        if (storedSize({ messageCount: head.messageCount, step }) + 3 > maxThreadMessages) throw threadFull(`${maxThreadMessages} messages`)
      } else {
        // Room for the open step with a result for each call, the message and a reply.
        if (storedSize({ messageCount: head.messageCount + recovery.append.length, step }) + 2 > maxThreadMessages) throw threadFull(`${maxThreadMessages} messages`)
        if (head.bytes + userBytes > maxThreadBytes) throw threadFull(`${maxThreadBytes} bytes`)
      }
      const settled = step ? await settleInterrupts(step.message, step.interrupts, config.tools, 'supersede', toolFailures(config, head.id, runId)) : undefined
      const superseded = step && settled ? await recordOutcomes(head, step.interrupts, settled, by) : undefined
      // Interrupts nobody answered stop waiting here: superseded, or expired before the message came.
      return { ...claimForMessage(head, { runId, user, by, recovery, superseded, now: Date.now() }), ended: unanswered(step) }
    },
  }).catch(gone)
  if (!claimed) return create(existing)
  const { head, change, prepared, resolved: context } = claimed
  void reportDecisions(config, change)
  if (change.ended.length > 0) config.telemetry?.waitsEnded(request, endedWaits(head.id, change.ended, Date.now(), change.decisions))
  const messages = await historyAfter(config, prepared, claimed)
  const held = prepared.snapshot ? heldIds(body, prepared.user.id) : undefined
  return startRun(config, { request, kind: 'message', runId, head, context, start: change.start, ...(held ? { snapshot: held } : {}), ...(messages ? { messages } : {}) })
}

/** The ids of the messages an AG-UI client holds, in its order (its new message's, when stored under it). */
function heldIds(body: AguiFields, userId?: string): string[] {
  const ids = (body.history ?? []).flatMap((message) => (message.id === undefined ? [] : [message.id]))
  return userId !== undefined && userId === body.messageId ? [...ids, userId] : ids
}

/** The new message under its AG-UI client's id, unless the thread (as read alongside) holds a message by that id already. */
async function withClientId(
  user: ThreadUserMessage,
  wanted: string | undefined,
  head: ThreadHead,
  history: Promise<readonly ThreadMessage[] | undefined>,
): Promise<ThreadUserMessage> {
  if (wanted === undefined) return user
  const stored = await history
  if (!stored) return user
  const taken = [...stored, ...(head.step ? [head.step.message, ...head.step.results] : [])].some((message) => message.id === wanted)
  return taken ? user : { ...user, id: wanted }
}

/** `step` with the answers the request's `tool` messages give (none: `step` as it is). */
async function answeredByToolMessages(config: ChatConfig, head: ThreadHead, step: OpenStep | undefined, body: AguiFields, who: Answerer): Promise<OpenStep | undefined> {
  const fromMessages = toolMessageAnswers(step, body.toolMessages ?? [], [], true)
  if (!step || fromMessages.answers.length === 0) return step
  const checked = await checkAnswers({ ...head, step }, fromMessages.answers, config.tools, config.limits, who).catch((error: unknown) => {
    throw atMessagePath(error, 0, fromMessages)
  })
  return markAnsweredByMessage(checked.step, fromMessages)
}

/**
 * The history read alongside the claim (`undefined` when the read fails: the run reads it again),
 * and an AG-UI client's history checked against that very history: no read of its own, none at all
 * on a cached head. A failed read fails the check.
 */
async function readAndCheck(config: ChatConfig, head: ThreadHead, body: AguiFields) {
  const messages = storedHistory(config, head)
  const history = messages.catch(() => undefined)
  const snapshot = body.history ? await checkClientHistory(config, { head, messages }, body.history) : false
  return { history, snapshot }
}

/**
 * The run's history after a claim made of the head `current`: its history, then what the claim
 * appended (kept in the cache, which the run's writes extend); else the run reads it.
 */
async function historyAfter(
  config: ChatConfig,
  { current, history }: { readonly current: ThreadHead; readonly history: Promise<readonly ThreadMessage[] | undefined> },
  claimed: { readonly head: ThreadHead; readonly previous: ThreadHead; readonly change: ThreadChange },
): Promise<readonly ThreadMessage[] | undefined> {
  if (claimed.previous !== current) return undefined
  const stored = await history
  if (!stored) return undefined
  const messages = [...stored, ...(claimed.change.append ?? [])]
  config.threadCache?.remember(claimed.head, messages)
  return messages
}

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
  // An AG-UI input with nothing new may still answer frontend calls with `tool` messages; else it
  // asks where the thread stands (agui/connect.ts). When the head this instance wrote last says they
  // answer calls, they are claimed on it with no read first; its claim proves it, and a miss decides
  // again on the stored head, where answering nothing is a connect, as without the cache. Any other
  // answer needs the stored head (the cache cannot say that no other instance wrote since), and the
  // claim then starts from the head read for it.
  const nothingNew = body.agui === true && body.resume.length === 0 && !body.endsWithTool
  const answersCalls = (head: ThreadHead | undefined) => toolMessageAnswers(head?.step, body.toolMessages ?? []).answers.length > 0
  let read: ThreadHead | undefined
  if (nothingNew) {
    const cached = config.threadCache?.lastHead(body.threadId)
    if (!cached || !answersCalls(cached)) {
      const head = await config.store.head(body.threadId)
      if (!answersCalls(head)) return connect(config, request, body, { head })
      read = head
    }
  }
  const start = read ? (await authorizeThread(config, request, body.threadId, 'write'), { head: read }) : await headToClaim(config, request, body.threadId)
  const runId = randomId('run_')
  /** The head the last change was decided on: the cached one, or the stored one after a miss. */
  let decidedOn: ThreadHead | undefined
  let claimed
  try {
    claimed = await claimThread(config.store, start, {
      prepare: async (current) => ({ current, ...(await readAndCheck(config, current, body)) }),
      resolve: async () => ({ context: await config.resolveContext(request), principal: await config.identify(request) }),
      change: (_, { principal }) => {
        const change = answersChange(config, body, { principal, channel: 'chat' }, runId)
        return (head) => ((decidedOn = head), change(head))
      },
    })
  } catch (error) {
    if (!(error instanceof NothingAnswered)) throw error
    // Claimed on the cached head, which a miss showed another instance moved on from: its stored head waits for nothing they answer.
    if (nothingNew && !answersCalls(decidedOn)) return connect(config, request, body)
    // The input ends with a result for a call the thread no longer waits for: a repeat.
    const last = body.toolMessages?.at(-1)
    throw new HttpError(409, 'INTERRUPT_ALREADY_ANSWERED', `Tool call "${last?.toolCallId}" is already answered`, `messages[${last?.index}].toolCallId`)
  }
  const { head, change, prepared } = claimed
  const { context } = claimed.resolved
  void reportDecisions(config, change)
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

type Answered = ThreadChange & { readonly start?: RunStart; readonly answered?: readonly StoredInterrupt[] }

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
    const { drafts, grants } = checked
    const step = markAnsweredByMessage(checked.step, fromMessages)
    if (running) throw threadBusy()
    const chain = await chainDecisions(head.decisions, drafts)
    const decided = grants.length > 0 ? { ...chain, grants: [...(head.grants ?? []), ...grants] } : chain
    // The waits this request ends; a replay of a lost run's answers (above) ends none, nor does an
    // approval short of the reviewers' `required` count (the interrupt stays open).
    const ids = new Set(all.map((answer) => answer.interruptId))
    const answered = step.interrupts.filter((interrupt) => ids.has(interrupt.id) && interrupt.answer !== undefined)
    if (unanswered(step).length > 0) return { ...recordAnswers(head, { recovery, step, decided }), answered }
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
  const runId = randomId('run_')
  const { head, change } = await updateThread(config.store, body.threadId, answersChange(config, body, who, runId))
  void reportDecisions(config, change)
  if (change.answered) config.telemetry?.waitsEnded(request, endedWaits(head.id, change.answered, Date.now(), change.decisions))
  return { runId, head, change }
}

/** Thrown inside a thread update to leave the thread as it is. */
class Unchanged extends Error {}

/** An AG-UI input with no new message that answers nothing (thrown inside a thread update: nothing changes). */
class NothingAnswered extends Error {}

/**
 * Continues a turn whose run died (its process was killed) for a reader that attached to it: once
 * the dead run's lease lapsed, a new run takes the thread over from its last stored step (calls
 * the dead run had started are reported as interrupted, or run again when idempotent) and the
 * model goes on. Returns the run to follow: the new one, or one another instance started first;
 * `undefined` when there is nothing to continue.
 */
export async function takeOverLostRun(config: ChatConfig, request: Request, threadId: string, lostRunId: string): Promise<string | undefined> {
  const runId = randomId('run_')
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

/**
 * `POST { threadId, stop: true }`: stops the thread's active run. A run of this process stops at
 * once; a run of another instance sees the request in the thread's head within a second.
 */
export async function stopRun(config: ChatConfig, request: Request, body: StopRequest): Promise<Response> {
  const head = await loadHead(config, request, body.threadId, 'write')
  const runId = head.activeRun?.runId
  if (runId === undefined || !isRunning(head, config.limits.runLeaseMs)) {
    if (unanswered(head.step).length === 0) return jsonResponse(200, stopAccepted(head.id, false))
    return cancelWaiting(config, request, head.id)
  }
  const local = config.liveRuns.get(runId)
  if (local) {
    local.abort(new RunStopped())
    return jsonResponse(200, stopAccepted(head.id, true))
  }
  const { change } = await updateThread(config.store, body.threadId, (current) =>
    current.activeRun?.runId === runId && isRunning(current, config.limits.runLeaseMs) ? requestStop(current, { runId }) : { head: {} },
  )
  return jsonResponse(200, stopAccepted(head.id, 'stopRequested' in change.head))
}

function stopAccepted(threadId: string, stopped: boolean, cancelled?: readonly string[]): StopAccepted {
  return { threadId, stopped, ...(cancelled && cancelled.length > 0 ? { cancelled } : {}) }
}

/**
 * A stop while calls wait for answers (no run holds the thread): what waits is `cancelled` (or
 * `expired`, if no one answered in time), recorded as decided by whoever stopped, and the step
 * joins the history. The model reads it on the next message.
 */
async function cancelWaiting(config: ChatConfig, request: Request, threadId: string): Promise<Response> {
  const by = await config.identify(request)
  const { runLeaseMs } = config.limits
  let cancelled: string[] = []
  let ended: StoredInterrupt[] = []
  try {
    const { change } = await updateThread(config.store, threadId, async (head) => {
      const recovery = recoverLostRun(head, runLeaseMs, config.tools)
      const { step } = recovery
      if (isRunning(head, runLeaseMs) || !step || unanswered(step).length === 0 || step.running.length > 0) throw new Unchanged()
      const settled = await recordOutcomes(head, step.interrupts, await settleInterrupts(step.message, step.interrupts, config.tools, 'cancel', toolFailures(config, head.id, '')), by)
      ended = unanswered(step)
      cancelled = ended.map((interrupt) => interrupt.id)
      return cancelStep(head, { recovery, step, settled, decided: settled.decided })
    })
    void reportDecisions(config, change)
    config.telemetry?.waitsEnded(request, endedWaits(threadId, ended, Date.now(), change.decisions, 'cancelled'))
  } catch (error) {
    if (!(error instanceof Unchanged)) throw error
  }
  return jsonResponse(200, stopAccepted(threadId, false, cancelled))
}

/** `POST { threadId, revokeGrant }`: later calls the grant covered ask again. 404 `GRANT_NOT_FOUND` when the thread has no such grant (or it was revoked). */
export async function revokeGrantOf(config: ChatConfig, request: Request, body: RevokeGrantRequest): Promise<Response> {
  await loadHead(config, request, body.threadId, 'write')
  await revoke(config, body.threadId, body.revokeGrant)
  return jsonResponse(200, { threadId: body.threadId, revoked: body.revokeGrant })
}

export async function revoke(config: ChatConfig, threadId: string, grantId: string): Promise<void> {
  await updateThread(config.store, threadId, (head) => {
    if (!head.grants?.some((grant) => grant.id === grantId)) {
      throw new HttpError(404, 'GRANT_NOT_FOUND', `Thread "${threadId}" has no grant "${grantId}" (or it was revoked)`, 'revokeGrant')
    }
    return revokeGrant(head, { grantId })
  })
}
