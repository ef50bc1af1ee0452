import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import { randomId } from '../../util/randomId.ts'
import { callRef, type CallRef } from './results.ts'
import type { OpenStep, StoredInterrupt } from '../thread/threadStore.ts'
import type { ToolRegistry } from '../../tools/toolRegistry.ts'

// Interrupts: a call that waits for a human (`tool_approval`) or the browser (`client_tool`),
// what the wire shows of one, and the answers to them, checked before anything is stored.

/** A human must approve the call before it runs (server tools) or is handed to the browser (client tools). */
export function approvalInterrupt(call: CallRef, input: unknown, message: string | undefined): StoredInterrupt {
  return { id: randomId('int_'), reason: 'tool_approval', ...callRef(call), input, ...(message === undefined ? {} : { message }) }
}

/** The browser runs the call and answers with its result. `edited` carries an approval's edit forward to the result. */
export function clientToolInterrupt(call: CallRef, input: unknown, edited = false): StoredInterrupt {
  return { id: randomId('int_'), reason: 'client_tool', ...callRef(call), input, ...(edited ? { edited: true } : {}) }
}

/** Interrupts stamped with when they stop taking answers (`limits.interruptTtlMs`; 0: never). */
export function withExpiry(interrupts: readonly StoredInterrupt[], ttlMs: number): StoredInterrupt[] {
  if (ttlMs === 0) return [...interrupts]
  const expiresAt = new Date(Date.now() + ttlMs).toISOString()
  return interrupts.map((interrupt) => (interrupt.expiresAt === undefined ? { ...interrupt, expiresAt } : interrupt))
}

/**
 * The interrupt as sent on the wire: stored answers and bookkeeping stay on the server. An approval
 * carries AG-UI's `responseSchema`, the payload it expects, whose `editedArgs` is the tool's input schema.
 */
export function toWire({ id, reason, toolCallId, toolName, input, message, expiresAt }: StoredInterrupt, tools: ToolRegistry): ToolInterrupt {
  const responseSchema = reason === 'tool_approval' ? tools.get(toolName)?.approvalSchema : undefined
  return {
    id,
    reason,
    toolCallId,
    toolName,
    input,
    ...(message === undefined ? {} : { message }),
    ...(responseSchema === undefined ? {} : { responseSchema }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    // The same extras again where strict AG-UI clients keep them (they drop unknown top-level fields).
    metadata: { kind: 'tool_call', toolName, input, ...(message === undefined ? {} : { reason: message }) },
  }
}


export function unanswered(step: OpenStep | undefined): StoredInterrupt[] {
  return step ? step.interrupts.filter((interrupt) => interrupt.answer === undefined) : []
}

/** Kept so a replayed answer is told "already answered"; bounded so threads do not grow without end. */
const RESOLVED_KEPT = 200

export function rememberResolved(ids: readonly string[], resolved: readonly StoredInterrupt[]): string[] {
  return [...ids, ...resolved.map((interrupt) => interrupt.id)].slice(-RESOLVED_KEPT)
}
