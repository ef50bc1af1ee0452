import type { Principal } from '../../protocol/decisions.ts'
import type { ThreadMessage, ThreadUserMessage } from '../../protocol/messages.ts'
import type { MessageRequest } from '../../protocol/requests.ts'
import { messageBytes } from '../../util/jsonBytes.ts'
import { randomId } from '../../util/randomId.ts'
import { checkClientHistory } from '../agui/clientHistory.ts'
import { HttpError, messageTooLarge, threadBusy, threadFull, toolFailures } from '../errors.ts'
import type { AguiFields } from '../http/requests.ts'
import type { ChatConfig } from '../options.ts'
import { endedWaits, settleInterrupts, unanswered } from '../run/interrupts.ts'
import { startRun } from '../run/startRun.ts'
import { claimThread, headToClaim } from '../thread/cachedClaim.ts'
import { newRunId } from './runId.ts'
import { supersedeRun } from './supersede.ts'
import { recoverLostRun } from '../thread/recovery.ts'
import { authorizeThread, isRunning, newHead } from '../thread/thread.ts'
import { commitChange } from '../thread/writer/index.ts'
import type { OpenStep, ThreadHead } from '../thread/threadStore.ts'
import { claimForMessage, claimNewThread, storedSize } from '../thread/transitions.ts'
import { recordOutcomes } from '../decisions/records.ts'
import { reportDecisions } from '../decisions/report.ts'
import { checkAnswers, type Answerer } from './answers.ts'
import { heldIds, historyAfter, readAndCheck } from './claimedHistory.ts'
import { atMessagePath, markAnsweredByMessage, toolMessageAnswers } from './toolMessages.ts'

// A user message starts a turn: it creates the thread, or claims it with one compare-and-set of the
// change `messageChange` makes of its head (so of two racing requests one runs and the other is
// refused), then the turn's run starts (run/startRun.ts). Answers resume a turn (resume.ts).

/**
 * `POST { threadId?, message }`. Interrupts still pending are not an error: the user moved on, so
 * they are denied and the turn proceeds.
 */
export async function startTurn(config: ChatConfig, request: Request, body: MessageRequest & AguiFields): Promise<Response> {
  try {
    return await claimTurn(config, request, body)
  } catch (error) {
    // A foreign client's message while the thread's run still goes supersedes that run (supersede.ts).
    if (!body.agui || body.threadId === undefined || !(await supersedeRun(config, request, body.threadId, error))) throw error
    return await claimTurn(config, request, body)
  }
}

async function claimTurn(config: ChatConfig, request: Request, body: MessageRequest & AguiFields): Promise<Response> {
  const { threadId: existing } = body
  // A new thread's id first: the run's id may be minted for its thread (`RunEventLog.newRunId`).
  const threadId = existing ?? randomId('thread_')
  const runId = newRunId(config.eventLog, threadId)
  const fresh: ThreadUserMessage = { role: 'user', id: randomId('msg_'), content: body.message }
  const userBytes = messageBytes(fresh)
  const { maxMessageBytes } = config.limits
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
  const create = async () => {
    // Without `authorize` every request may create: not asking saves the check's promises on every new thread.
    if (config.authorize) await authorizeThread(config, request, threadId, 'create')
    if (body.history) await checkClientHistory(config, undefined, body.history)
    const context = await resolveContext()
    const user = body.messageId === undefined ? fresh : { ...fresh, id: body.messageId }
    const claim = claimNewThread({ runId, user, by, now: Date.now() })
    const head = await commitChange(config.store, newHead(threadId), claim)
    if (!head) throw new HttpError(409, 'VERSION_CONFLICT', 'A thread with this id already exists')
    return startRun(config, { request, kind: 'message', runId, head, messages: [user], context, start: claim.start })
  }
  if (existing === undefined || created) return await create()

  // Claimed on the head this instance wrote last when it keeps it (an AG-UI client's was just read when it does not).
  // The thread this instance wrote last may be gone (it expired): an AG-UI client's id then makes it again, as on first use.
  const gone = (error: unknown) => {
    if (known && error instanceof HttpError && error.code === 'THREAD_NOT_FOUND') return undefined
    throw error
  }
  const start = found ? (await authorizeThread(config, request, existing, 'write'), { head: found }) : await headToClaim(config, request, existing).catch(gone)
  if (!start) return await create()
  const claimed = await claimThread(config.store, start, {
    prepare: async (current) => {
      const { history, snapshot } = await readAndCheck(config, current, body)
      return { current, history, snapshot, user: await withClientId(fresh, body.messageId, current, history) }
    },
    resolve: resolveContext,
    change: ({ user }) => messageChange(config, body, { runId, user, by, userBytes }),
  }).catch(gone)
  if (!claimed) return await create()
  const { head, change, prepared, resolved: context } = claimed
  void reportDecisions(config, change)
  if (change.ended.length > 0) config.telemetry?.waitsEnded(request, endedWaits(head.id, change.ended, Date.now(), change.decisions))
  const messages = await historyAfter(config, prepared, claimed)
  const held = prepared.snapshot ? heldIds(body, prepared.user.id) : undefined
  return startRun(config, { request, kind: 'message', runId, head, context, start: change.start, ...(held ? { snapshot: held } : {}), ...(messages ? { messages } : {}) })
}

/**
 * The change a user message makes of a head: refused while a live run holds the thread; a run
 * lost in it is recovered, the `tool` messages before the message answer frontend calls, and what
 * still waits is superseded by the message (denied, recorded as decisions), if the turn fits the
 * thread's limits. Run `runId` claims the thread; `ended`: the waits it ends.
 */
function messageChange(config: ChatConfig, body: AguiFields, turn: { readonly runId: string; readonly user: ThreadUserMessage; readonly by: Principal; readonly userBytes: number }) {
  const { runId, user, by, userBytes } = turn
  const { maxThreadBytes, maxThreadMessages, runLeaseMs } = config.limits
  return async (head: ThreadHead) => {
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
    const superseded = step && settled ? await recordOutcomes(head, step.interrupts, settled, by, config.recordKey) : undefined
    // Interrupts nobody answered stop waiting here: superseded, or expired before the message came.
    return { ...claimForMessage(head, { runId, user, by, recovery, superseded, now: Date.now() }), ended: unanswered(step) }
  }
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
