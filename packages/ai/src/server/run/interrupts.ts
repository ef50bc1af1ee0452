import { ToolValidationError } from '../../errors.ts'
import type { ThreadAssistantMessage, ThreadToolMessage } from '../../protocol/messages.ts'
import { rejectMessageOf } from '../../tools/approval.ts'
import type { ToolRegistry } from '../../tools/toolRegistry.ts'
import type { AnyTool } from '../../tools/types.ts'
import { validateToolOutput } from '../../tools/validateToolValue.ts'
import { deepEqual } from '../../util/deepEqual.ts'
import { randomId } from '../../util/randomId.ts'
import type { ToolFailures } from '../errors.ts'
import type { StoredAnswer, StoredInterrupt } from '../thread/threadStore.ts'
import type { EndedWait, WaitDecision } from '../../telemetry/hooks.ts'
import type { DecisionRecord, DecisionSummary } from '../../protocol/decisions.ts'
import { summaryOf } from '../decisions/records.ts'
import { validateInput, type CallPlan } from './callPlan.ts'
import { inputExecution } from './inputInterrupts.ts'
import { isExpired } from '../thread/step.ts'
import { callRef, cancelledResult, deniedResult, errorResult, expiredResult, successResult, type CallRef } from '../thread/results.ts'

// Interrupts: a call that waits for a human (`tool_approval`) or the browser (`client_tool`), what
// the wire shows of one, and what its answers do once every interrupt of the step has one
// (`settleInterrupts`). The answers are checked when they arrive, in claim/answers.ts.

/** A human must approve the call before it runs (server tools) or is handed to the browser (client tools). */
export function approvalInterrupt(
  call: CallRef,
  input: unknown,
  message: string | undefined,
  who: Pick<StoredInterrupt, 'requestedBy' | 'reviewers'> = {},
): StoredInterrupt {
  return { id: randomId('int_'), reason: 'tool_approval', ...callRef(call), input, ...(message === undefined ? {} : { message }), ...who }
}

/** The browser runs the call and answers with its result. `edited` and `decision` carry an approval forward to the result. */
export function clientToolInterrupt(call: CallRef, input: unknown, edited = false, decision?: DecisionSummary): StoredInterrupt {
  return { id: randomId('int_'), reason: 'client_tool', ...callRef(call), input, ...(edited ? { edited: true } : {}), ...(decision ? { decision } : {}) }
}

/**
 * Interrupts as a run asks them: stamped with when (`askedAt`, where their wait begins), when they
 * stop taking answers (`limits.interruptTtlMs`; 0: never), and the asking run's trace context, so
 * whichever instance ends a wait, however much later, records it in the run's trace.
 */
export function asked(interrupts: readonly StoredInterrupt[], ttlMs: number, traceparent: string | undefined): StoredInterrupt[] {
  const now = Date.now()
  const expiresAt = ttlMs === 0 ? undefined : new Date(now + ttlMs).toISOString()
  return interrupts.map((interrupt) =>
    interrupt.askedAt !== undefined
      ? interrupt
      : {
          ...interrupt,
          askedAt: now,
          ...(expiresAt === undefined || interrupt.expiresAt !== undefined ? {} : { expiresAt }),
          ...(traceparent === undefined ? {} : { traceparent }),
        },
  )
}

/**
 * How each interrupt stopped waiting, at `now`: its answer, or, without one, superseded (or
 * cancelled, by a stop) unless it had expired first. `records` are the decision records the same
 * change wrote: the one of each interrupt says who ended its wait.
 */
export function endedWaits(
  threadId: string,
  interrupts: readonly StoredInterrupt[],
  now: number,
  records: readonly DecisionRecord[] = [],
  unansweredAs: 'superseded' | 'cancelled' = 'superseded',
): EndedWait[] {
  return interrupts.map((interrupt) => {
    const expiry = interrupt.expiresAt === undefined ? undefined : Date.parse(interrupt.expiresAt)
    const decision = decisionOf(interrupt.answer, expiry !== undefined && expiry <= now, unansweredAs)
    const record = records.findLast((candidate) => candidate.interruptId === interrupt.id)
    const approvers = interrupt.approvals && record ? [...interrupt.approvals.map((approval) => approval.by.id), record.by.id] : undefined
    return { threadId, interrupt, decision, endedAt: decision === 'expired' ? expiry! : now, ...(record ? { record: summaryOf(record) } : {}), ...(approvers ? { approvers } : {}) }
  })
}

function decisionOf(answer: StoredAnswer | undefined, expired: boolean, unansweredAs: 'superseded' | 'cancelled'): WaitDecision {
  if (answer === undefined) return expired ? 'expired' : unansweredAs
  if (answer.kind !== 'approval') return answer.kind
  return !answer.approved ? 'denied' : 'editedArgs' in answer ? 'edited' : 'approved'
}

export const SUPERSEDED_REASON = 'the user sent a new message instead'

/**
 * `resume`: every interrupt is answered; apply the answers. `supersede`: the user sent a new
 * message instead; results the browser already produced and explicit denials stand, everything
 * else (unanswered, or approved but not yet run) is `cancelled` with `SUPERSEDED_REASON` (no one
 * said no, so the model is not told anyone did). `cancel`: the user stopped the turn; the same
 * calls are `cancelled`. Either way an unanswered interrupt past its `expiresAt` is `expired`. Edited
 * arguments are written into `message`, so the model sees the call that actually ran.
 */
export async function settleInterrupts(
  message: ThreadAssistantMessage,
  interrupts: readonly StoredInterrupt[],
  tools: ToolRegistry,
  mode: 'resume' | 'supersede' | 'cancel',
  failures: ToolFailures,
  now = Date.now(),
  /** Why calls end `cancelled` (`cancel` mode): absent for a stop. */
  cancelReason?: string,
): Promise<CallPlan & { readonly message: ThreadAssistantMessage }> {
  const plan: CallPlan = { results: [], executions: [], interrupts: [] }
  const edits = new Map<string, string>()
  const { own, delegated } = byDelegation(interrupts, 0)
  // A subagent's calls are settled by resuming it (driveRun, run/subagent.ts); superseded or
  // stopped, the call of its agent tool ends for them all.
  if (delegated.size > 0) {
    if (mode === 'resume') throw new Error('Interrupts of subagents are settled by resuming them')
    for (const [toolCallId, waits] of delegated) plan.results.push(subagentEnded({ toolCallId, toolName: waits[0]!.path![0]!.agent }, waits, mode, now, cancelReason))
  }
  for (const interrupt of own) {
    const ref = callRef(interrupt)
    const { answer } = interrupt
    const entry = tools.get(interrupt.toolName)
    const waiting = answer === undefined || (answer.kind === 'approval' && answer.approved)
    if (mode !== 'resume' && answer === undefined && isExpired(interrupt, now)) plan.results.push(expiredResult(ref))
    else if (mode === 'cancel' && waiting) plan.results.push(cancelledResult(ref, cancelReason))
    else if (mode === 'resume' && interrupt.inputRequest) {
      // A running call asked for input: it runs again with the answer, a decline included (the server says what that means).
      const settled = await inputExecution(interrupt, message, entry, failures)
      if ('entry' in settled) plan.executions.push(settled)
      else plan.results.push(settled)
    }
    else if (answer?.kind === 'approval' && !answer.approved) plan.results.push(deniedResult(ref, answer.reason, rejectMessageOf(entry?.tool, interrupt)))
    else if (mode === 'supersede' && (answer === undefined || answer.kind === 'approval')) plan.results.push(cancelledResult(ref, SUPERSEDED_REASON))
    else if (!entry) plan.results.push(errorResult(ref, `Tool "${interrupt.toolName}" is no longer available`))
    else if (answer?.kind === 'error') plan.results.push(keepId(errorResult(ref, `Tool "${interrupt.toolName}" failed in the browser: ${answer.error}`), answer.messageId))
    else if (answer?.kind === 'output') plan.results.push(keepId(await clientResult(interrupt, entry.tool, answer.output, failures), answer.messageId))
    else if (answer?.kind === 'approval') {
      const edited = 'editedArgs' in answer && !deepEqual(answer.editedArgs, interrupt.input)
      const args = edited ? answer.editedArgs : interrupt.input
      if (edited) edits.set(interrupt.toolCallId, JSON.stringify(args))
      const checked = await validateInput(entry.tool, args, ref, failures)
      if (!checked.ok) plan.results.push(errorResult(ref, checked.error))
      else if (entry.side === 'client') plan.interrupts.push(clientToolInterrupt(ref, args, edited, answer.decision))
      else plan.executions.push({ ...ref, entry, input: checked.value, ...(edited ? { editedArgs: args } : {}), ...(answer.decision ? { decision: answer.decision } : {}) })
    } else {
      throw new Error(`Interrupt "${interrupt.id}" has no answer`)
    }
  }
  const edited =
    edits.size === 0
      ? message
      : { ...message, toolCalls: message.toolCalls.map((call) => (edits.has(call.id) ? { ...call, arguments: edits.get(call.id)! } : call)) }
  return { ...plan, message: edited }
}

/** A result answered by the client's own `tool` message keeps that message's id (see `StoredAnswer`). */
function keepId(result: ThreadToolMessage, messageId: string | undefined): ThreadToolMessage {
  return messageId === undefined ? result : { ...result, id: messageId }
}

/** A browser's result is checked against the output schema like a server tool's. */
async function clientResult(interrupt: StoredInterrupt, tool: AnyTool, output: unknown, failures: ToolFailures): Promise<ThreadToolMessage> {
  const ref = callRef(interrupt)
  try {
    return successResult(ref, await validateToolOutput(tool, output), interrupt.edited ? interrupt.input : undefined)
  } catch (error) {
    if (error instanceof ToolValidationError) return errorResult(ref, error.message)
    return errorResult(ref, failures.tool(error, ref))
  }
}

/**
 * The interrupts raised at `depth` (as many delegations down as the calls being settled), and
 * those raised deeper, by the call at `depth` whose subagent raised them.
 */
export function byDelegation(interrupts: readonly StoredInterrupt[], depth: number): { readonly own: StoredInterrupt[]; readonly delegated: Map<string, StoredInterrupt[]> } {
  const own: StoredInterrupt[] = []
  const delegated = new Map<string, StoredInterrupt[]>()
  for (const interrupt of interrupts) {
    const hop = interrupt.path?.[depth]
    if (!hop) {
      own.push(interrupt)
      continue
    }
    const waits = delegated.get(hop.toolCallId)
    if (waits) waits.push(interrupt)
    else delegated.set(hop.toolCallId, [interrupt])
  }
  return { own, delegated }
}

/** What the call of an agent tool ends as when its subagent's waits end without it resuming: expired if every one of them expired, else cancelled. */
function subagentEnded(call: CallRef, waits: readonly StoredInterrupt[], mode: 'supersede' | 'cancel', now: number, cancelReason: string | undefined): ThreadToolMessage {
  if (waits.every((interrupt) => interrupt.answer === undefined && isExpired(interrupt, now))) return expiredResult(call)
  return cancelledResult(call, mode === 'supersede' ? SUPERSEDED_REASON : cancelReason)
}

/** Who decided each answered approval, by call. */
export function decisionsOf(interrupts: readonly StoredInterrupt[]): ReadonlyMap<string, DecisionSummary> {
  const decided = new Map<string, DecisionSummary>()
  for (const { toolCallId, answer, decision } of interrupts) {
    if (answer?.kind === 'approval' && answer.decision) decided.set(toolCallId, answer.decision)
    else if (decision) decided.set(toolCallId, decision) // a browser tool's result: the approval that let it run
  }
  return decided
}

/** The result carries the decision of its call, so the stored thread and the stream show who decided. */
export function withDecision(result: ThreadToolMessage, decided: ReadonlyMap<string, DecisionSummary>): ThreadToolMessage {
  const decision = decided.get(result.toolCallId)
  return decision ? { ...result, decision } : result
}
