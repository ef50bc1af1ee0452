import type { ThreadAssistantMessage, ThreadToolMessage } from '../../protocol/messages.ts'
import { denialText } from '../../tools/approval.ts'
import { randomId } from '../../util/randomId.ts'
import { isToolContentResult } from '../../tools/toolResult.ts'

// Results: every call ends with exactly one, stored as a tool message the model reads.

/** Which call an interrupt or a result is about. */
export interface CallRef {
  readonly toolCallId: string
  readonly toolName: string
}

/** Only the reference: callers pass richer objects (an execution carries its tool and input), which must not be stored. */
export function callRef({ toolCallId, toolName }: CallRef): CallRef {
  return { toolCallId, toolName }
}

/** The tool's output, as JSON for the model; `editedArgs` makes the result say the user changed the call. */
export function successResult(call: CallRef, result: unknown, editedArgs?: unknown): ThreadToolMessage {
  const output = isToolContentResult(result) ? result.output : result
  let json: string
  try {
    json = JSON.stringify(output) ?? 'null'
  } catch (error) {
    return errorResult(call, `Tool "${call.toolName}" returned a value that is not JSON (${(error as Error).message})`)
  }
  const edited = editedArgs !== undefined
  const content = edited ? `${editedNote(editedArgs)}\nResult: ${json}` : json
  // Keys set in place, not spread from `callRef` and a conditional literal: one object per result.
  const message: { -readonly [K in keyof ThreadToolMessage]: ThreadToolMessage[K] } = {
    role: 'tool',
    id: randomId('msg_'),
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    content,
    status: 'success',
    output: JSON.parse(json),
  }
  if (edited) message.edited = true
  return message
}

export function editedNote(editedArgs: unknown): string | undefined {
  return editedArgs === undefined ? undefined : `The user edited the arguments before approving; the call ran with ${JSON.stringify(editedArgs)}.`
}

export function errorResult(call: CallRef, error: string): ThreadToolMessage {
  return { role: 'tool', id: randomId('msg_'), ...callRef(call), content: error, status: 'error' }
}

/** `rejectMessage`, when the tool has one, is what the model reads; the human's reason is added to it. */
export function deniedResult(call: CallRef, reason: string | undefined, rejectMessage?: string): ThreadToolMessage {
  const given = reason?.trim() ? reason.trim() : undefined
  const content = denialText(given, rejectMessage)
  return {
    role: 'tool',
    id: randomId('msg_'),
    ...callRef(call),
    content,
    status: 'denied',
    ...(given === undefined ? {} : { reason: given }),
  }
}

/** Results are stored in the order the model made the calls, whatever order they settled in. */
export function inCallOrder(message: ThreadAssistantMessage, results: readonly ThreadToolMessage[]): ThreadToolMessage[] {
  // One result (most steps call one tool) is in order: no map of the calls to sort it by.
  if (results.length < 2) return [...results]
  const order = new Map(message.toolCalls.map((call, index) => [call.id, index]))
  return [...results].sort((a, b) => (order.get(a.toolCallId) ?? 0) - (order.get(b.toolCallId) ?? 0))
}

/**
 * The calls that did not run because no one decided, and what the model reads of each: one
 * mapping from outcome to wording, so the model's sentence, the result's status (the wire and the
 * UI part) and the decision record (`outcomeDrafts` takes its decision and reason from the result)
 * always say the same thing. Neither is a denial: no one said no.
 */
export type Undecided = 'expired' | 'cancelled'

export const EXPIRED_TEXT = 'The approval request expired before anyone answered; the tool did not run.'
export const CANCELLED_TEXT = 'The request was cancelled before anyone decided; the tool did not run.'

export function undecidedText(outcome: Undecided, reason?: string): string {
  if (outcome === 'expired') return EXPIRED_TEXT
  return reason === undefined ? CANCELLED_TEXT : `The request was cancelled before anyone decided (${reason}); the tool did not run.`
}

/** No one answered in time: not a denial, and the model must not read one. */
export function expiredResult(call: CallRef): ThreadToolMessage {
  return { role: 'tool', id: randomId('msg_'), ...callRef(call), content: undecidedText('expired'), status: 'expired' }
}

/** The call waited when the turn was stopped, or when the user sent a new message instead (`reason` says which). */
export function cancelledResult(call: CallRef, reason?: string): ThreadToolMessage {
  return {
    role: 'tool',
    id: randomId('msg_'),
    ...callRef(call),
    content: undecidedText('cancelled', reason),
    status: 'cancelled',
    ...(reason === undefined ? {} : { reason }),
  }
}
