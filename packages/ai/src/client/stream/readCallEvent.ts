import type { RunEvent } from '../../protocol/events.ts'
import { ChatError } from '../chatError.ts'
import type { ParsedEvent, ReadEvent } from './parseEvent.ts'
import { readResult } from './readResult.ts'

/** The string fields a subagent's own events must carry: its part is built from them (`draft/subagents.ts`). */
const SUBAGENT_REQUIRED: Partial<Record<RunEvent['type'], readonly string[]>> = {
  SUBAGENT_STARTED: ['name', 'parentToolCallId'],
  SUBAGENT_ERROR: ['message'],
}

/**
 * Reads what the call-reading chunk reads of the stream (`chunks/callReading.ts`): a result (how
 * its call ended, `readResult`), and a subagent's own events, checked as `parseEvent` checks the
 * others (it hands them on unread, with their `subagentRunId`).
 */
export function readCallEvent(event: ParsedEvent): ReadEvent {
  if (event.type === 'TOOL_CALL_RESULT') return readResult(event)
  const fields = event as unknown as Record<string, unknown>
  for (const field of SUBAGENT_REQUIRED[event.type] ?? []) {
    if (typeof fields[field] !== 'string') throw new ChatError('BAD_RESPONSE', `The server sent a ${event.type} event without a string \`${field}\``)
  }
  return event
}
