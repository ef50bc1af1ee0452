import type { AgUiInterrupt, ToolInterrupt } from '../../../protocol/interrupts.ts'
import { isRecord } from '../../../util/isRecord.ts'

// TanStack AI's client answers an interrupt only in the shapes it knows (its "legacy" bindings):
// `reason: 'approval_required'` with `metadata: { kind: 'approval', toolName, input }` through
// `addToolApprovalResponse`, and `reason: 'client_tool_input'` with `metadata: { kind: 'client_tool',
// toolName, input }` by running the page's client tool of that name and resuming with its output.
// Anything else comes out `kind: 'unbound'`, which it can neither run nor resolve.

/**
 * A Toolgate interrupt as TanStack's client recognises it: an approval, or a browser tool's call.
 * Takes both forms: a thread snapshot's (name and input at the top) and the stream's (in `metadata`).
 */
export function toTanStackInterrupt(interrupt: ToolInterrupt | AgUiInterrupt): Record<string, unknown> {
  const { id, message, responseSchema, expiresAt } = interrupt
  const toolName = 'toolName' in interrupt ? interrupt.toolName : interrupt.metadata?.toolName
  // A subagent's call is not in TanStack's messages: its approval is asked on the call of the outermost agent, which is.
  const path = interrupt.metadata?.path
  const toolCallId = path?.[0]?.toolCallId ?? interrupt.toolCallId
  // A call without arguments still has an input: TanStack binds only a `metadata` that holds one.
  const input = ('input' in interrupt ? interrupt.input : interrupt.metadata?.input) ?? {}
  const approval = interrupt.reason === 'tool_approval'
  return {
    id,
    reason: approval ? 'approval_required' : 'client_tool_input',
    toolCallId,
    ...(message === undefined ? {} : { message }),
    ...(responseSchema === undefined ? {} : { responseSchema }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    metadata: { kind: approval ? 'approval' : 'client_tool', toolName, input, toolgateReason: interrupt.reason, ...(message === undefined ? {} : { reason: message }), ...(path === undefined ? {} : { path }) },
  }
}

/**
 * What TanStack is told of a step's open interrupts: its approvals first, its browser-tool calls once
 * no approval waits (as AG-UI clients are told frontend calls: run/outcome.ts). TanStack runs
 * a client tool as soon as it is told of it but sends answers only as the whole batch it was told:
 * told beside an approval, the tool's output would stay in the page while the person decides, and a
 * reload in between would lose it (its hydration does not run client tools again). Told after, the
 * tool runs once the decision is stored, and its output goes to the server at once.
 */
export function toTanStackInterrupts(interrupts: readonly (ToolInterrupt | AgUiInterrupt)[]): Record<string, unknown>[] {
  const approvals = interrupts.filter((interrupt) => interrupt.reason === 'tool_approval')
  return (approvals.length > 0 ? approvals : interrupts).map(toTanStackInterrupt)
}

/** One AG-UI event with its interrupts (RUN_FINISHED's outcome) in TanStack's shape. */
export function toTanStackEvent(event: Record<string, unknown>): Record<string, unknown> {
  const outcome = event.outcome
  if (event.type !== 'RUN_FINISHED' || !isRecord(outcome) || !Array.isArray(outcome.interrupts)) return event
  return { ...event, outcome: { ...outcome, interrupts: toTanStackInterrupts(outcome.interrupts as AgUiInterrupt[]) } }
}
