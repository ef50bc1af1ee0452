import type { ToolInterrupt } from '../protocol/interrupts.ts'
import { randomId } from '../util/randomId.ts'
import type { CallRef } from './toolResults.ts'
import type { PendingBatch, PendingInterrupt } from './threadStore.ts'

/** A human must approve the call before it runs (server tools) or is handed to the browser (client tools). */
export function approvalInterrupt(call: CallRef, input: unknown, message: string | undefined): PendingInterrupt {
  return { id: randomId('int_'), reason: 'tool_approval', ...call, input, ...(message === undefined ? {} : { message }) }
}

/** The browser runs the call and answers with its result. `edited` carries an approval's edit forward to the result. */
export function clientToolInterrupt(call: CallRef, input: unknown, edited = false): PendingInterrupt {
  return { id: randomId('int_'), reason: 'client_tool', ...call, input, ...(edited ? { edited: true } : {}) }
}

/** The interrupt as sent on the wire: stored answers and bookkeeping stay on the server. */
export function toWire({ id, reason, toolCallId, toolName, input, message }: PendingInterrupt): ToolInterrupt {
  return { id, reason, toolCallId, toolName, input, ...(message === undefined ? {} : { message }) }
}

export function unanswered(batch: PendingBatch | undefined): PendingInterrupt[] {
  return batch ? batch.interrupts.filter((interrupt) => interrupt.answer === undefined) : []
}

/** Kept so a replayed answer is told "already answered"; bounded so threads do not grow without end. */
const RESOLVED_KEPT = 200

export function rememberResolved(ids: readonly string[], resolved: readonly PendingInterrupt[]): string[] {
  return [...ids, ...resolved.map((interrupt) => interrupt.id)].slice(-RESOLVED_KEPT)
}
