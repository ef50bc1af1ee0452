import type { ThreadMessage, ThreadToolMessage, ThreadUserMessage } from '../protocol/messages.ts'
import type { ToolInterrupt } from '../protocol/interrupts.ts'
import type { MessageRequest, ResumeAccepted, ResumeRequest } from '../protocol/requests.ts'
import { randomId } from '../util/randomId.ts'
import type { ChatConfig } from './config.ts'
import { HttpError, jsonResponse, threadBusy, threadFull } from './errors.ts'
import { RunEvents, eventStreamResponse } from './events.ts'
import { checkReplay, recordAnswers, rememberResolved, toWire, unanswered } from './interrupts.ts'
import { Run, recoverLostRun, runTurn, type RunStart } from './run.ts'
import { authorizeThread, commitChange, isRunning, loadHead, newHead, updateThread } from './thread.ts'
import type { ActiveRun, ThreadHead } from './threadStore.ts'
import { inCallOrder, settleInterrupts } from './toolCalls.ts'

// The two ways a run begins: a user message starts a turn, answers resume one. Each claims the
// thread with one compare-and-set (so of two racing requests one runs and the other is refused),
// then streams the run.

/**
 * `POST { threadId?, message }`. Interrupts still pending are not an error: the user moved on, so
 * they are denied and the turn proceeds.
 */
export async function startTurn(config: ChatConfig, request: Request, body: MessageRequest & { readonly agui?: true }): Promise<Response> {
  const runId = randomId('run_')
  const user: ThreadUserMessage = { role: 'user', id: randomId('msg_'), content: body.message }

  // The app's context is resolved only once the request is authorized, and before the thread is
  // claimed, so a context function that throws leaves nothing held. An AG-UI client picks its own
  // thread id: the thread is created on first use, as when the server picks it.
  const { threadId: existing } = body
  const created = existing === undefined || (body.agui && !(await config.store.head(existing)))
  if (existing === undefined || created) {
    const threadId = existing ?? randomId('thread_')
    await authorizeThread(config, request, threadId, 'create')
    const context = await config.resolveContext(request)
    const head = await commitChange(config.store, newHead(threadId), { head: { activeRun: claim(runId) }, append: [user] })
    if (!head) throw new HttpError(409, 'VERSION_CONFLICT', 'A thread with this id already exists')
    return streamRun(config, request, { runId, head, messages: [user], context, start: { steps: 0 } })
  }

  await loadHead(config, request, existing, 'write')
  const context = await config.resolveContext(request)
  let announced: ThreadToolMessage[] = []
  const head = await updateThread(config.store, existing, async (head) => {
    if (isRunning(head, config.limits.runLeaseMs)) throw threadBusy()
    const recovery = recoverLostRun(head, config.limits.runLeaseMs)
    const { step } = recovery
    // Room for the open step with a result for each call, the message and a reply.
    const stored = head.messageCount + recovery.append.length + (step ? 1 + step.message.toolCalls.length : 0)
    if (stored + 2 > config.limits.maxThreadMessages) throw threadFull(config.limits.maxThreadMessages)
    if (!step) {
      announced = [...recovery.results]
      return { head: { activeRun: claim(runId) }, append: [...recovery.append, user] }
    }
    const settled = await settleInterrupts(step.message, step.interrupts, config.tools, 'supersede')
    announced = [...recovery.results, ...settled.results]
    return {
      head: { step: undefined, activeRun: claim(runId), resolvedInterruptIds: rememberResolved(head.resolvedInterruptIds, step.interrupts) },
      append: [...recovery.append, settled.message, ...inCallOrder(settled.message, [...step.results, ...settled.results]), user],
    }
  })
  return streamRun(config, request, { runId, head, context, start: { steps: 0, announced } })
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
export async function resume(config: ChatConfig, request: Request, body: ResumeRequest & { readonly agui?: true }): Promise<Response> {
  await loadHead(config, request, body.threadId, 'write')
  const context = await config.resolveContext(request)
  const runId = randomId('run_')
  let announced: readonly ThreadToolMessage[] = []

  const head = await updateThread(config.store, body.threadId, async (head) => {
    const running = isRunning(head, config.limits.runLeaseMs)
    const recovery = recoverLostRun(head, config.limits.runLeaseMs)
    const current: ThreadHead = { ...head, step: recovery.step }
    announced = recovery.results
    const lost = !running && current.step && current.step.interrupts.length > 0 && unanswered(current.step).length === 0
    if (lost) {
      checkReplay(current, current.step!, body.resume)
      return { head: { step: current.step, activeRun: claim(runId) }, append: recovery.append }
    }
    const step = await recordAnswers(current, body.resume, config.tools, config.limits.maxReasonLength)
    if (running) throw threadBusy()
    const complete = unanswered(step).length === 0
    return { head: { step, ...(complete ? { activeRun: claim(runId) } : {}) }, append: recovery.append }
  })

  if (head.activeRun?.runId !== runId || !head.step) {
    const open = unanswered(head.step).map((interrupt) => toWire(interrupt, config.tools))
    // AG-UI clients read events, not a 202 body: a run that starts and pauses again on what is left.
    if (body.agui) return pausedRun(request, head.id, runId, open)
    const accepted: ResumeAccepted = { threadId: head.id, interrupts: unanswered(head.step).map((interrupt) => toWire(interrupt, config.tools)) }
    return jsonResponse(202, accepted)
  }
  return streamRun(config, request, { runId, head, context, start: { steps: head.step.steps, resume: true, announced } })
}

function pausedRun(request: Request, threadId: string, runId: string, interrupts: ToolInterrupt[]): Response {
  return eventStreamResponse(request.signal, async (sink) => {
    const events = new RunEvents(threadId, runId, sink)
    events.started()
    events.finished({ type: 'interrupt', interrupts })
  })
}

function claim(runId: string): ActiveRun {
  const now = Date.now()
  return { runId, startedAt: now, renewedAt: now }
}

/** Streams a run whose thread is already claimed. */
function streamRun(
  config: ChatConfig,
  request: Request,
  claimed: { runId: string; head: ThreadHead; messages?: readonly ThreadMessage[]; context: unknown; start: RunStart },
): Response {
  const { runId, head, messages, context, start } = claimed
  return eventStreamResponse(request.signal, (sink, signal) => {
    const events = new RunEvents(head.id, runId, sink)
    return runTurn(new Run({ config, runId, context, events, signal, head, ...(messages ? { messages } : {}) }), start)
  })
}
