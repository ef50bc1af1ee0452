import type { Principal } from '../../protocol/decisions.ts'
import type { ThreadMessage, ThreadUserMessage } from '../../protocol/messages.ts'
import { jsonBytes } from '../../util/jsonBytes.ts'
import { randomId } from '../../util/randomId.ts'
import { HttpError, messageTooLarge, threadBusy, threadFull, toolFailures } from '../errors.ts'
import type { ChatConfig } from '../options.ts'
import { endedWaits, settleInterrupts } from '../run/interrupts.ts'
import { unanswered } from '../thread/step.ts'
import type { ClaimedRun } from '../run/startRun.ts'
import { headToClaim, type ClaimStart } from '../thread/cachedClaim.ts'
import { claimThread } from './claimThread.ts'
import { newRunId } from './runId.ts'
import { recoverLostRun } from '../thread/recovery.ts'
import { authorizeThread, isRunning, newHead } from '../thread/thread.ts'
import { commitChange } from '../thread/writer/index.ts'
import type { OpenStep, ThreadHead } from '../thread/threadStore.ts'
import { claimForMessage, claimNewThread, storedSize } from '../thread/transitions.ts'
import { recordOutcomes } from '../decisions/records.ts'
import { reportDecisions } from '../decisions/report.ts'
import { checkAnswers, type Answerer } from './answers.ts'
import { historyAfter, readAndCheck } from './claimedHistory.ts'
import type { ClientThread, MessageIntent } from './intent.ts'

// A user message starts a turn: it creates the thread, or claims it with one compare-and-set of the
// change `messageChange` makes of its head (so of two racing requests one runs and the other is
// refused), then the turn's run starts (run/startRun.ts). Answers resume a turn (resume.ts).

/**
 * `POST { threadId?, message }`: the run the message claims (run/startRun.ts starts it). Interrupts
 * still pending are not an error: the user moved on, so they are denied and the turn proceeds.
 */
export async function startTurn(config: ChatConfig, request: Request, body: MessageIntent): Promise<ClaimedRun> {
  const { threadId: existing, client } = body
  // A new thread's id first: the run's id may be minted for its thread (`RunEventLog.newRunId`).
  const threadId = existing ?? randomId('thread_')
  const runId = newRunId(config.eventLog, threadId)
  const fresh: ThreadUserMessage = { role: 'user', id: randomId('msg_'), content: body.message }
  const userBytes = jsonBytes(fresh)
  const { maxMessageBytes } = config.limits
  if (userBytes > maxMessageBytes) throw messageTooLarge(userBytes, maxMessageBytes, 'message')

  // The app's context is resolved only once the request is authorized, and before the thread is
  // claimed, so a context function that throws leaves nothing held.
  const by = await config.identify(request)
  // Resolved once: a claim on the cached head that finds the thread gone makes it again with the context it resolved.
  let resolving: Promise<unknown> | undefined
  const resolveContext = () => (resolving ??= config.resolveContext(request))
  const turn: Turn = { threadId, runId, fresh, by, userBytes }
  const start = existing === undefined ? undefined : await claimStart(config, request, existing, client)
  if (!start) return await newThread(config, request, body, turn, resolveContext)
  const claimed = await claimThread(config.store, start, {
    prepare: async (current) => {
      const { history, snapshot } = await readAndCheck(config, current, client)
      // Under its client's id only when the client gave one: no promise on the common path.
      return { current, history, snapshot, user: client?.messageId === undefined ? fresh : await withClientId(fresh, client.messageId, current, history) }
    },
    resolve: resolveContext,
    change: (head, { user }) => messageChange(config, client, { runId, user, by, userBytes }, head),
  }).catch(start.made ? gone : rethrow)
  if (!claimed) return await newThread(config, request, body, turn, resolveContext)
  const { head, change, prepared } = claimed
  void reportDecisions(config, change)
  if (change.ended.length > 0) config.telemetry?.waitsEnded(request, endedWaits(head.id, change.ended, Date.now(), change.decisions))
  const messages = await historyAfter(config, prepared, claimed)
  const held = prepared.snapshot && client ? client.heldIds(prepared.user.id) : undefined
  return { request, kind: 'message', runId, head, context: claimed.resolved, start: change.start, ...(held ? { snapshot: held } : {}), ...(messages ? { messages } : {}) }
}

interface Turn {
  readonly threadId: string
  readonly runId: string
  readonly fresh: ThreadUserMessage
  readonly by: Principal
  readonly userBytes: number
}

/**
 * The head the message claims, the request authorized to write it; `undefined` for a thread to
 * make: a client that picks its own thread id (AG-UI) makes it on first use, as when the server picks
 * it. Its thread is looked up to learn whether this makes it, unless this instance wrote it last (its
 * cache knows it exists); once it exists, that read is the claim's, not a second round trip.
 * `made`: claimed on the head this instance wrote last for such a client, whose thread may be gone
 * since (it expired): it is then made again, as on first use.
 */
function claimStart(config: ChatConfig, request: Request, threadId: string, client: ClientThread | undefined): Promise<(ClaimStart & { readonly made?: true }) | undefined> {
  // Not async: the common case hands on `headToClaim`'s own promise.
  if (!client?.choosesThreadId) return headToClaim(config, request, threadId)
  if (config.threadCache?.lastHead(threadId) !== undefined) return headToClaim(config, request, threadId).then((start) => ({ ...start, made: true as const }), gone)
  return storedToClaim(config, request, threadId)
}

/** The stored head of a thread whose client picks its id, the request authorized to write it; `undefined` when there is none yet. */
async function storedToClaim(config: ChatConfig, request: Request, threadId: string): Promise<ClaimStart | undefined> {
  const found = await config.store.head(threadId)
  if (!found) return undefined
  await authorizeThread(config, request, threadId, 'write')
  return { head: found }
}

/** A thread that went since this instance wrote it: made again (`undefined`) for a client that picks its id. */
function gone(error: unknown): undefined {
  if (error instanceof HttpError && error.code === 'THREAD_NOT_FOUND') return undefined
  throw error
}

function rethrow(error: unknown): never {
  throw error
}

/** A new thread, made by the message's claim: refused (409) when a thread with its id was made meanwhile. */
async function newThread(config: ChatConfig, request: Request, body: MessageIntent, turn: Turn, resolveContext: () => Promise<unknown>): Promise<ClaimedRun> {
  const { threadId, runId, fresh, by } = turn
  const { client } = body
  // Without `authorize` every request may create: not asking saves the check's promises on every new thread.
  if (config.authorize) await authorizeThread(config, request, threadId, 'create')
  if (client?.checkHistory) await client.checkHistory(undefined)
  const context = await resolveContext()
  const user = client?.messageId === undefined ? fresh : { ...fresh, id: client.messageId }
  const claim = claimNewThread({ runId, user, by, now: Date.now() })
  const head = await commitChange(config.store, newHead(threadId), claim)
  if (!head) throw new HttpError(409, 'VERSION_CONFLICT', 'A thread with this id already exists')
  return { request, kind: 'message', runId, head, messages: [user], context, start: claim.start }
}

/**
 * The change a user message makes of a head: refused while a live run holds the thread; a run
 * lost in it is recovered, the `tool` messages before the message answer frontend calls, and what
 * still waits is superseded by the message (denied, recorded as decisions), if the turn fits the
 * thread's limits. Run `runId` claims the thread; `ended`: the waits it ends.
 */
async function messageChange(config: ChatConfig, client: ClientThread | undefined, turn: { readonly runId: string; readonly user: ThreadUserMessage; readonly by: Principal; readonly userBytes: number }, head: ThreadHead) {
  const { runId, user, by, userBytes } = turn
  const { maxThreadBytes, maxThreadMessages, runLeaseMs } = config.limits
  if (isRunning(head, runLeaseMs)) throw threadBusy()
  const lost = recoverLostRun(head, runLeaseMs, config.tools)
  // `tool` messages before the new message answer frontend tool calls: their results stand.
  const recovery = client ? { ...lost, step: await answeredByClient(config, head, lost.step, client, { principal: by, channel: 'chat' }) } : lost
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
  // Added to the claim made here, not spread into a literal that goes on: on Node 20 that is made by the runtime, slowly.
  return Object.assign(claimForMessage(head, { runId, user, by, recovery, superseded, now: Date.now() }), { ended: unanswered(step) })
}

/** The new message under its AG-UI client's id, unless the thread (as read alongside) holds a message by that id already. */
async function withClientId(
  user: ThreadUserMessage,
  wanted: string,
  head: ThreadHead,
  history: Promise<readonly ThreadMessage[] | undefined>,
): Promise<ThreadUserMessage> {
  const stored = await history
  if (!stored) return user
  const taken = [...stored, ...(head.step ? [head.step.message, ...head.step.results] : [])].some((message) => message.id === wanted)
  return taken ? user : { ...user, id: wanted }
}

/** `step` with the answers the client gives its own way (none: `step` as it is). */
async function answeredByClient(config: ChatConfig, head: ThreadHead, step: OpenStep | undefined, client: ClientThread, who: Answerer): Promise<OpenStep | undefined> {
  const given = client.answersFrom(step, [], true)
  if (!step || given.answers.length === 0) return step
  const checked = await checkAnswers({ ...head, step }, given.answers, config.tools, config.limits, who).catch((error: unknown) => {
    throw given.at(error, 0)
  })
  return given.mark(checked.step)
}
