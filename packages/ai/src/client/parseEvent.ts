import type { ChatEvent } from '../protocol/events.ts'
import { ChatError } from './chatError.ts'
import { isRecord } from '../util/isRecord.ts'
import { isToolInterrupt } from './guards.ts'

/** The string fields each event must carry; the reducer relies on them. */
const REQUIRED: Record<ChatEvent['type'], readonly string[]> = {
  RUN_STARTED: ['threadId', 'runId'],
  TEXT_MESSAGE_START: ['messageId'],
  TEXT_MESSAGE_CONTENT: ['messageId', 'delta'],
  TEXT_MESSAGE_END: ['messageId'],
  REASONING_START: ['messageId'],
  REASONING_MESSAGE_START: ['messageId'],
  REASONING_MESSAGE_CONTENT: ['messageId', 'delta'],
  REASONING_MESSAGE_END: ['messageId'],
  REASONING_END: ['messageId'],
  TOOL_CALL_START: ['toolCallId', 'toolCallName'],
  TOOL_CALL_ARGS: ['toolCallId', 'delta'],
  TOOL_CALL_END: ['toolCallId'],
  TOOL_CALL_RESULT: ['toolCallId', 'content', 'status'],
  RUN_FINISHED: ['threadId', 'runId'],
  RUN_ERROR: ['message'],
}

/**
 * Turns one event's data into a `ChatEvent`. Returns `undefined` for event types this client does
 * not know (AG-UI has more; they are skipped), and throws `BAD_RESPONSE` for anything malformed:
 * a client that guessed would show a conversation the server never had.
 */
export function parseEvent(data: string): ChatEvent | undefined {
  let event: unknown
  try {
    event = JSON.parse(data)
  } catch {
    throw malformed(`an event that is not JSON: ${preview(data)}`)
  }
  if (!isRecord(event) || typeof event.type !== 'string') throw malformed(`an event without a type: ${preview(data)}`)
  const required = REQUIRED[event.type as ChatEvent['type']]
  if (!Object.hasOwn(REQUIRED, event.type) || !required) return undefined
  for (const field of required) {
    if (typeof event[field] !== 'string') throw malformed(`a ${event.type} event without a string \`${field}\``)
  }
  if (event.type === 'RUN_FINISHED') checkOutcome(event.outcome)
  return event as unknown as ChatEvent
}

function checkOutcome(outcome: unknown): void {
  if (outcome === undefined) return
  if (!isRecord(outcome)) throw malformed('a RUN_FINISHED event whose `outcome` is not an object')
  if (outcome.type !== 'interrupt') return
  const interrupts = outcome.interrupts
  if (!Array.isArray(interrupts)) throw malformed('an interrupt outcome without `interrupts`')
  if (!interrupts.every(isToolInterrupt)) throw malformed('an interrupt without `id`, `reason`, `toolCallId` or `toolName`')
}

function malformed(what: string): ChatError {
  return new ChatError('BAD_RESPONSE', `The server sent ${what}`)
}

function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)
}
