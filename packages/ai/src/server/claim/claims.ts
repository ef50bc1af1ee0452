import { inCallOrder } from '../run/results.ts'
import { recoverLostRun } from '../thread/recovery.ts'
import { jsonResponse } from '../http/responses.ts'
import { recordAnswers, checkReplay } from './answers.ts'
import { launchRun, type LiveStream, runStreamResponse } from '../events/liveStream.ts'
import { runTurn, type RunStart } from '../run/driveRun.ts'
import type { ThreadMessage, ThreadToolMessage, ThreadUserMessage } from '../../protocol/messages.ts'
import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import type { MessageRequest, ResumeAccepted, ResumeRequest, StopAccepted, StopRequest } from '../../protocol/requests.ts'
import { randomId } from '../../util/randomId.ts'
import type { ChatConfig } from '../options.ts'
import { jsonBytes } from '../../util/jsonBytes.ts'
import { HttpError, messageTooLarge, threadBusy, threadFull, toolFailures } from '../errors.ts'
import { RunEvents } from '../events/runEvents.ts'
import { checkClientHistory } from '../agui/clientHistory.ts'
import type { AguiFields } from '../http/requests.ts'
import { rememberResolved, toWire, unanswered } from '../run/interrupts.ts'
import { Run, RunStopped } from '../run/Run.ts'
import { authorizeThread, commitChange, isRunning, loadHead, newHead, updateThread } from '../thread/thread.ts'
import type { ActiveRun, ThreadHead } from '../thread/threadStore.ts'
import { settleInterrupts } from '../run/toolCalls.ts'

// The two ways a run begins: a user message starts a turn, answers resume one. Each claims the
// thread with one compare-and-set (so of two racing requests one runs and the other is refused),
// then streams the run.

/**
 * `POST { threadId?, message }`. Interrupts still pending are not an error: the user moved on, so
 * they are denied and the turn proceeds.
 */
export async function startTurn(config: ChatConfig, request: Request, body: MessageRequest & AguiFields): Promise<Response> {
  const runId = randomId('run_')
  const user: ThreadUserMessage = { role: 'user', id: randomId('msg_'), content: body.message }
  const userBytes = jsonBytes(user)
  const { maxMessageBytes, maxThreadBytes, maxThreadMessages } = config.limits
  if (userBytes > maxMessageBytes) throw messageTooLarge(userBytes, maxMessageBytes, 'message')

  // The app's context is resolved only once the request is authorized, and before the thread is
  // claimed, so a context function that throws leaves nothing held. An AG-UI client picks its own
  // thread id: the thread is created on first use, as when the server picks it.
  const { threadId: existing } = body
  const created = existing === undefined || (body.agui && !(await config.store.head(existing)))
  if (existing === undefined || created) {
    const threadId = existing ?? randomId('thread_')
    await authorizeThread(config, request, threadId, 'create')
    if (body.history) await checkClientHistory(config, undefined, body.history)
    const context = await config.resolveContext(request)
    const head = await commitChange(config.store, newHead(threadId), { head: { activeRun: claim(runId, 1) }, append: [user] })
    if (!head) throw new HttpError(409, 'VERSION_CONFLICT', 'A thread with this id already exists')
    return streamRun(config, { runId, head, messages: [user], context, start: { steps: 0 } })
  }

  const current = await loadHead(config, request, existing, 'write')
  if (body.history) await checkClientHistory(config, current, body.history)
  const context = await config.resolveContext(request)
  let announced: ThreadToolMessage[] = []
  let rerun: readonly string[] = []
  const head = await updateThread(config.store, existing, async (head) => {
    if (isRunning(head, config.limits.runLeaseMs)) throw threadBusy()
    const recovery = recoverLostRun(head, config.limits.runLeaseMs, config.tools)
    const { step } = recovery
    // What the recovery left running runs again; so does what a takeover that released the thread
    // to its waiting interrupts left there (`takeOverLostRun`).
    rerun = step?.running ?? []
    if (rerun.length > 0) {
      // Idempotent calls a crash cut off run again first; the message follows their step, whose
      // other calls still waiting for an answer are superseded by it.
      if (head.messageCount + 2 + step!.message.toolCalls.length + 2 > maxThreadMessages) throw threadFull(`${maxThreadMessages} messages`)
      const settled = await settleInterrupts(step!.message, step!.interrupts, config.tools, 'supersede', toolFailures(config, head.id, runId))
      announced = [...recovery.results, ...settled.results]
      const open = { ...step!, message: settled.message, results: [...step!.results, ...settled.results], interrupts: [] }
      const resolvedInterruptIds = rememberResolved(head.resolvedInterruptIds, step!.interrupts)
      return { head: { step: open, activeRun: claim(runId, head.messageCount, true), resolvedInterruptIds }, append: [] }
    }
    // Room for the open step with a result for each call, the message and a reply.
    const stored = head.messageCount + recovery.append.length + (step ? 1 + step.message.toolCalls.length : 0)
    if (stored + 2 > maxThreadMessages) throw threadFull(`${maxThreadMessages} messages`)
    if (head.bytes + userBytes > maxThreadBytes) throw threadFull(`${maxThreadBytes} bytes`)
    if (!step) {
      announced = [...recovery.results]
      const append = [...recovery.append, user]
      // A step the recovery closed joins the history: it leaves the head.
      return { head: { step: undefined, activeRun: claim(runId, head.messageCount + append.length) }, append }
    }
    const settled = await settleInterrupts(step.message, step.interrupts, config.tools, 'supersede', toolFailures(config, head.id, runId))
    announced = [...recovery.results, ...settled.results]
    const append = [...recovery.append, settled.message, ...inCallOrder(settled.message, [...step.results, ...settled.results]), user]
    return {
      head: {
        step: undefined,
        activeRun: claim(runId, head.messageCount + append.length),
        resolvedInterruptIds: rememberResolved(head.resolvedInterruptIds, step.interrupts),
      },
      append,
    }
  })
  const start: RunStart = rerun.length > 0 ? { steps: 0, announced, rerun, message: user } : { steps: 0, announced }
  return streamRun(config, { runId, head, context, start })
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
  const current = await loadHead(config, request, body.threadId, 'write')
  if (body.history) await checkClientHistory(config, current, body.history)
  const context = await config.resolveContext(request)
  const runId = randomId('run_')
  let announced: readonly ThreadToolMessage[] = []

  const head = await updateThread(config.store, body.threadId, async (head) => {
    const running = isRunning(head, config.limits.runLeaseMs)
    const recovery = recoverLostRun(head, config.limits.runLeaseMs, config.tools)
    const current: ThreadHead = { ...head, step: recovery.step }
    announced = recovery.results
    const lost = !running && current.step && current.step.interrupts.length > 0 && unanswered(current.step).length === 0
    if (lost) {
      checkReplay(current, current.step!, body.resume)
      return { head: { step: current.step, activeRun: claim(runId, head.messageCount + recovery.append.length, true) }, append: recovery.append }
    }
    const step = await recordAnswers(current, body.resume, config.tools, config.limits)
    if (running) throw threadBusy()
    const complete = unanswered(step).length === 0
    const activeRun = complete ? claim(runId, head.messageCount + recovery.append.length, true) : undefined
    return { head: { step, ...(activeRun ? { activeRun } : {}) }, append: recovery.append }
  })

  if (head.activeRun?.runId !== runId || !head.step) {
    const open = unanswered(head.step).map((interrupt) => toWire(interrupt, config.tools))
    // AG-UI clients read events, not a 202 body: a run that starts and pauses again on what is left.
    if (body.agui) return pausedRun(config, head.id, runId, open)
    const accepted: ResumeAccepted = { threadId: head.id, interrupts: unanswered(head.step).map((interrupt) => toWire(interrupt, config.tools)) }
    return jsonResponse(202, accepted)
  }
  return streamRun(config, { runId, head, context, start: { steps: head.step.steps, resume: true, announced } })
}

/** A resume that leaves interrupts open, for an AG-UI client: a run that starts and pauses again on what is left. */
function pausedRun(config: ChatConfig, threadId: string, runId: string, interrupts: ToolInterrupt[]): Response {
  return runStreamResponse((live) =>
    launchRun(config.eventLog, runId, live, async (sink) => {
      const events = new RunEvents(threadId, runId, sink)
      events.started()
      events.finished({ type: 'interrupt', interrupts })
    }),
  )
}

function claim(runId: string, fromMessage: number, resumed = false): ActiveRun {
  const now = Date.now()
  return { runId, startedAt: now, renewedAt: now, fromMessage, ...(resumed ? { resumed: true as const } : {}) }
}

/**
 * Streams a run whose thread is already claimed. The run outlives its request: a client that
 * disconnects can read the rest from the run's event log; `stop` ends it.
 */
function streamRun(
  config: ChatConfig,
  claimed: { runId: string; head: ThreadHead; messages?: readonly ThreadMessage[]; context: unknown; start: RunStart },
): Response {
  return runStreamResponse((live) => launch(config, claimed, live))
}

/** Starts a claimed run; its events go to the run's log and, while its client stays, to `live`. */
function launch(
  config: ChatConfig,
  claimed: { runId: string; head: ThreadHead; messages?: readonly ThreadMessage[]; context: unknown; start: RunStart },
  live?: LiveStream,
): void {
  const { runId, head, messages, context, start } = claimed
  const abort = new AbortController()
  config.liveRuns.set(runId, abort)
  launchRun(config.eventLog, runId, live, async (sink) => {
    const events = new RunEvents(head.id, runId, sink)
    try {
      await runTurn(new Run({ config, runId, context, events, abort, head, ...(messages ? { messages } : {}) }), start)
    } finally {
      config.liveRuns.delete(runId)
    }
  })
}

/** Thrown inside a thread update to leave the thread as it is. */
class Unchanged extends Error {}

/**
 * Continues a turn whose run died (its process was killed) for a reader that attached to it: once
 * the dead run's lease lapsed, a new run takes the thread over from its last stored step (calls
 * the dead run had started are reported as interrupted, or run again when idempotent) and the
 * model goes on. Returns the run to follow: the new one, or one another instance started first;
 * `undefined` when there is nothing to continue.
 */
export async function takeOverLostRun(config: ChatConfig, request: Request, threadId: string, lostRunId: string): Promise<string | undefined> {
  const runId = randomId('run_')
  let start: RunStart = { steps: 0 }
  let head: ThreadHead
  try {
    head = await updateThread(config.store, threadId, (head) => {
      if (head.activeRun?.runId !== lostRunId || isRunning(head, config.limits.runLeaseMs)) throw new Unchanged()
      const recovery = recoverLostRun(head, config.limits.runLeaseMs, config.tools)
      const { step } = recovery
      // A step still waiting for people is theirs to answer: the thread is released, not re-driven.
      if (step && step.interrupts.length > 0) {
        return { head: { step, activeRun: undefined, stopRequested: undefined }, append: recovery.append }
      }
      start = { steps: step?.steps ?? 0, announced: recovery.results, rerun: recovery.rerun }
      const messageCount = head.messageCount + recovery.append.length
      return { head: { step, activeRun: claim(runId, messageCount, step !== undefined), stopRequested: undefined }, append: recovery.append }
    })
  } catch (error) {
    if (!(error instanceof Unchanged)) throw error
    const current = await config.store.head(threadId)
    return current && isRunning(current, config.limits.runLeaseMs) ? current.activeRun?.runId : undefined
  }
  if (head.activeRun?.runId !== runId) return undefined
  const context = await config.resolveContext(request)
  launch(config, { runId, head, context, start })
  return runId
}

/**
 * `POST { threadId, stop: true }`: stops the thread's active run. A run of this process stops at
 * once; a run of another instance sees the request in the thread's head within a second.
 */
export async function stopRun(config: ChatConfig, request: Request, body: StopRequest): Promise<Response> {
  const head = await loadHead(config, request, body.threadId, 'write')
  const runId = head.activeRun?.runId
  if (runId === undefined || !isRunning(head, config.limits.runLeaseMs)) return jsonResponse(200, stopAccepted(head.id, false))
  const local = config.liveRuns.get(runId)
  if (local) {
    local.abort(new RunStopped())
    return jsonResponse(200, stopAccepted(head.id, true))
  }
  let stopped = false
  await updateThread(config.store, body.threadId, (current) => {
    stopped = current.activeRun?.runId === runId && isRunning(current, config.limits.runLeaseMs)
    return { head: stopped ? { stopRequested: runId } : {} }
  })
  return jsonResponse(200, stopAccepted(head.id, stopped))
}

function stopAccepted(threadId: string, stopped: boolean): StopAccepted {
  return { threadId, stopped }
}
