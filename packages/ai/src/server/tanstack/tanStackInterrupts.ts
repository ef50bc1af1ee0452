import type { AgUiInterrupt, ToolInterrupt } from '../../protocol/interrupts.ts'
import { isRecord } from '../../util/isRecord.ts'

// TanStack AI's client answers an interrupt through `addToolApprovalResponse` only when it knows
// the shape: `reason: 'approval_required'` with `metadata: { kind: 'approval', toolName, input }`
// (its "legacy" approval binding). Anything else comes out `kind: 'unbound'`, which it cannot resolve.

/**
 * A Toolgate interrupt as TanStack's client recognises it; browser-tool interrupts stay as they are.
 * Takes both forms: a thread snapshot's (name and input at the top) and the stream's (in `metadata`).
 */
export function toTanStackInterrupt(interrupt: ToolInterrupt | AgUiInterrupt): Record<string, unknown> {
  if (interrupt.reason !== 'tool_approval') return { ...interrupt }
  const { id, toolCallId, message, responseSchema, expiresAt } = interrupt
  const toolName = 'toolName' in interrupt ? interrupt.toolName : interrupt.metadata?.toolName
  const input = 'input' in interrupt ? interrupt.input : interrupt.metadata?.input
  return {
    id,
    reason: 'approval_required',
    toolCallId,
    ...(message === undefined ? {} : { message }),
    ...(responseSchema === undefined ? {} : { responseSchema }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    metadata: { kind: 'approval', toolName, input, toolgateReason: 'tool_approval', ...(message === undefined ? {} : { reason: message }) },
  }
}

/** One AG-UI event with its interrupts (RUN_FINISHED's outcome) in TanStack's shape. */
export function toTanStackEvent(event: Record<string, unknown>): Record<string, unknown> {
  const outcome = event.outcome
  if (event.type !== 'RUN_FINISHED' || !isRecord(outcome) || !Array.isArray(outcome.interrupts)) return event
  return { ...event, outcome: { ...outcome, interrupts: (outcome.interrupts as AgUiInterrupt[]).map(toTanStackInterrupt) } }
}
