import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import type { RecordedAnswer } from '../../protocol/thread.ts'
import { approvalResponseSchema, type ToolRegistry } from '../../tools/toolRegistry.ts'
import { inputFormSchema } from '../../tools/inputRequest.ts'
import type { OpenStep, StoredInterrupt } from './threadStore.ts'
import { agentOf, delegationOf, entryAt } from '../agents/agentSpec.ts'

// What an open step says of its interrupts, read by the head's transitions and snapshots as by the
// run: which still wait, which are answered and how, how each looks on the wire. Pure; the run
// asks and settles them (run/interrupts.ts).

/**
 * The interrupt as sent on the wire: stored answers and bookkeeping stay on the server. An approval
 * carries AG-UI's `responseSchema`, the payload it expects, whose `editedArgs` is the tool's input schema.
 */
export function toWire(stored: StoredInterrupt, tools: ToolRegistry): ToolInterrupt {
  const { id, reason, toolCallId, toolName, message, expiresAt, reviewers, requestedBy, approvals, proposedBy, subagentRunId, path } = stored
  // A reviewer's edit short of the required approvals is what the next reviewer is shown.
  const input = stored.proposed ?? stored.input
  // A subagent's call is answered against its own tool, found where its agent holds it.
  const entry = entryAt(tools, stored)
  // A tool's request for input is answered with its form's values (run/inputInterrupts.ts).
  const responseSchema = stored.inputRequest ? approvalResponseSchema(inputFormSchema(stored.inputRequest.schema)) : reason === 'tool_approval' ? entry?.approvalSchema : undefined
  // Approving an agent tool's call delegates: say what to.
  const agent = reason === 'tool_approval' ? agentOf(entry?.tool) : undefined
  const delegation = agent ? delegationOf(agent) : undefined
  const inner = { ...(path === undefined ? {} : { path }), ...(delegation === undefined ? {} : { delegation }) }
  // Who asked matters to a reviewer; to the requester approving their own call it is noise.
  const who = reviewers === undefined ? {} : { reviewers, ...(requestedBy === undefined ? {} : { requestedBy }) }
  // A grant covers only what runs on the server without a second person (run/toolCalls.ts, decisions/grants.ts).
  const grantable = reason === 'tool_approval' && !stored.inputRequest && entry?.side === 'server' && (reviewers?.required ?? 1) === 1
  return {
    id,
    reason,
    toolCallId,
    toolName,
    input,
    ...(message === undefined ? {} : { message }),
    ...(responseSchema === undefined ? {} : { responseSchema }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...who,
    ...(approvals === undefined ? {} : { approvals }),
    ...(proposedBy === undefined ? {} : { proposedBy }),
    ...(subagentRunId === undefined ? {} : { subagentRunId }),
    ...inner,
    // The same extras again where strict AG-UI clients keep them (they drop unknown top-level fields).
    metadata: { kind: 'tool_call', toolName, input, ...(message === undefined ? {} : { reason: message }), ...who, ...(grantable ? { grantable: true as const } : {}), ...inner },
  }
}

/** The answers a step holds while others of its batch wait, as a thread snapshot shows them. */
export function recordedAnswers(step: OpenStep | undefined): RecordedAnswer[] {
  const answers: RecordedAnswer[] = []
  for (const { id: interruptId, toolCallId, answer } of step?.interrupts ?? []) {
    if (!answer) continue
    const given =
      answer.kind === 'output'
        ? { output: answer.output }
        : answer.kind === 'error'
          ? { error: answer.error }
          : {
              approved: answer.approved,
              ...(answer.editedArgs === undefined ? {} : { editedArgs: answer.editedArgs }),
              ...(answer.reason === undefined ? {} : { reason: answer.reason }),
            }
    answers.push({ interruptId, toolCallId, ...given, ...(answer.kind === 'approval' && answer.decision ? { decision: answer.decision } : {}) })
  }
  return answers
}

export function unanswered(step: OpenStep | undefined): StoredInterrupt[] {
  return step ? step.interrupts.filter((interrupt) => interrupt.answer === undefined) : []
}

/** Kept so a replayed answer is told "already answered"; bounded so threads do not grow without end. */
const RESOLVED_KEPT = 200

export function rememberResolved(ids: readonly string[], resolved: readonly StoredInterrupt[]): string[] {
  return [...ids, ...resolved.map((interrupt) => interrupt.id)].slice(-RESOLVED_KEPT)
}

/** The calls whose results the client sent as `tool` messages: it has them, so they are not streamed back. */
export function answeredByMessage(interrupts: readonly StoredInterrupt[]): ReadonlySet<string> {
  return new Set(interrupts.flatMap(({ toolCallId, answer }) => (answer && answer.kind !== 'approval' && answer.messageId !== undefined ? [toolCallId] : [])))
}

export function isExpired(interrupt: StoredInterrupt, now = Date.now()): boolean {
  return interrupt.expiresAt !== undefined && Date.parse(interrupt.expiresAt) <= now
}
