import type { ThreadAssistantMessage, ThreadToolMessage } from '../../protocol/messages.ts'
import type { JsonSchema } from '../../schema/types.ts'
import type { ToolInputAnswer, ToolInputRequest } from '../../tools/inputRequest.ts'
import type { ToolEntry } from '../../tools/toolRegistry.ts'
import { isRecord } from '../../util/isRecord.ts'
import { parseToolArguments } from '../../util/parseToolArguments.ts'
import { randomId } from '../../util/randomId.ts'
import type { ToolFailures } from '../errors.ts'
import { callRef, errorResult, type CallRef } from '../thread/results.ts'
import type { StoredInterrupt } from '../thread/threadStore.ts'
import { validateInput, type Execution } from './callPlan.ts'

// Input interrupts: a server tool that was running asked a person for input (an MCP server's
// `input_required` result, or its `elicitation/create` during the call: interop/mcp/). The request
// is stored with the thread as an interrupt that looks like an approval (its edit form is the
// request's schema, its values the schema's defaults), so every frontend shows it with the approval
// UI; approving answers `accept` with the form's values, denying answers `decline`. Once answered,
// the call runs again (marked running first, like any call) with the answer in its context.

/** The interrupt of a call that asked for input: what the wire shows, and the tool's state kept beside it. */
export function inputInterrupt(call: CallRef, request: ToolInputRequest, requestedBy: StoredInterrupt['requestedBy']): StoredInterrupt {
  return {
    id: randomId('int_'),
    reason: 'tool_approval',
    ...callRef(call),
    input: defaultsOf(request.schema),
    message: request.message,
    ...(requestedBy === undefined ? {} : { requestedBy }),
    inputRequest: { schema: request.schema, state: request.state },
  }
}

/** The form's starting values: each field's `default`, when the request gives one. */
function defaultsOf(schema: JsonSchema): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const values: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(properties)) if (isRecord(property) && property.default !== undefined) values[name] = property.default
  return values
}

/**
 * The answered input interrupt as the call to run again, with the model's arguments checked again:
 * an approval is `accept` with the form's values (the defaults when unchanged), a denial `decline`.
 * The arguments are the call's own; the answer goes in the call's context, never in its input.
 */
export async function inputExecution(
  interrupt: StoredInterrupt,
  message: ThreadAssistantMessage,
  entry: ToolEntry | undefined,
  failures: ToolFailures,
): Promise<Execution | ThreadToolMessage> {
  const ref = callRef(interrupt)
  const { answer, inputRequest } = interrupt
  const call = message.toolCalls.find((candidate) => candidate.id === interrupt.toolCallId)
  const args = call ? parseToolArguments(call.arguments) : undefined
  if (!entry || entry.side !== 'server') return errorResult(ref, `Tool "${interrupt.toolName}" is no longer available`)
  if (!args?.ok || answer?.kind !== 'approval' || !inputRequest) return errorResult(ref, `Tool "${interrupt.toolName}" could not go on with the answer`)
  const checked = await validateInput(entry.tool, args.value, ref, failures)
  if (!checked.ok) return errorResult(ref, checked.error)
  const content = 'editedArgs' in answer && isRecord(answer.editedArgs) ? answer.editedArgs : (interrupt.input as Record<string, unknown>)
  const inputAnswer: ToolInputAnswer = answer.approved ? { action: 'accept', content, state: inputRequest.state } : { action: 'decline', state: inputRequest.state }
  return { ...ref, entry, input: checked.value, inputAnswer, ...(answer.decision ? { decision: answer.decision } : {}) }
}
