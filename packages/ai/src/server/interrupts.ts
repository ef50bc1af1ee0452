import type { ToolInterrupt } from '../protocol/interrupts.ts'
import type { JsonSchema } from '../schema/types.ts'
import { deepFreeze } from '../util/deepFreeze.ts'
import { randomId } from '../util/randomId.ts'
import type { CallRef } from './toolResults.ts'
import type { PendingBatch, PendingInterrupt } from './threadStore.ts'
import type { Toolset } from './toolset.ts'

/** A human must approve the call before it runs (server tools) or is handed to the browser (client tools). */
export function approvalInterrupt(call: CallRef, input: unknown, message: string | undefined): PendingInterrupt {
  return { id: randomId('int_'), reason: 'tool_approval', ...call, input, ...(message === undefined ? {} : { message }) }
}

/** The browser runs the call and answers with its result. `edited` carries an approval's edit forward to the result. */
export function clientToolInterrupt(call: CallRef, input: unknown, edited = false): PendingInterrupt {
  return { id: randomId('int_'), reason: 'client_tool', ...call, input, ...(edited ? { edited: true } : {}) }
}

/**
 * The interrupt as sent on the wire: stored answers and bookkeeping stay on the server. An approval
 * carries AG-UI's `responseSchema`, the payload it expects, whose `editedArgs` is the tool's input schema.
 */
export function toWire({ id, reason, toolCallId, toolName, input, message }: PendingInterrupt, toolset: Toolset): ToolInterrupt {
  const responseSchema = reason === 'tool_approval' ? toolset.get(toolName)?.approvalSchema : undefined
  return {
    id,
    reason,
    toolCallId,
    toolName,
    input,
    ...(message === undefined ? {} : { message }),
    ...(responseSchema === undefined ? {} : { responseSchema }),
  }
}

/**
 * What answers an approval: `{ approved, editedArgs?, reason? }`. The tool's input schema sits whole
 * under `$defs.input` with an `$id` of its own, so the references inside it resolve as they did at its
 * root; `approvalInputSchema` in the client takes it back out.
 */
export function approvalResponseSchema(inputSchema: JsonSchema): JsonSchema {
  return deepFreeze({
    type: 'object',
    properties: {
      approved: { type: 'boolean' },
      editedArgs: { $ref: '#/$defs/input' },
      reason: { type: 'string' },
    },
    required: ['approved'],
    additionalProperties: false,
    $defs: { input: { ...inputSchema, $id: APPROVAL_INPUT_ID } },
  })
}

/** The `$id` of the tool's input schema inside an approval's `responseSchema`. */
export const APPROVAL_INPUT_ID = 'urn:toolgate:tool-input'

export function unanswered(batch: PendingBatch | undefined): PendingInterrupt[] {
  return batch ? batch.interrupts.filter((interrupt) => interrupt.answer === undefined) : []
}

/** Kept so a replayed answer is told "already answered"; bounded so threads do not grow without end. */
const RESOLVED_KEPT = 200

export function rememberResolved(ids: readonly string[], resolved: readonly PendingInterrupt[]): string[] {
  return [...ids, ...resolved.map((interrupt) => interrupt.id)].slice(-RESOLVED_KEPT)
}
