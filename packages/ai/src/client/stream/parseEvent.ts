import type { RunEvent, RunFinishedEvent, ToolCallResultEvent } from '../../protocol/events.ts'
import { ChatError } from '../chatError.ts'
import { isRecord } from '../../util/isRecord.ts'

/**
 * An event as this client reads it. An interrupt outcome's interrupts are left as sent: only a run
 * that pauses needs them read (`toolInterrupts`, in the pause's lazy chunk; see `chunks/`).
 */
export type ReadEvent = Exclude<RunEvent, RunFinishedEvent> | (Omit<RunFinishedEvent, 'outcome'> & { readonly outcome?: ReadOutcome })

/**
 * An event as `parseEvent` checked it: a result's `metadata` is as sent, and a subagent's own
 * events are not checked yet; `readCallEvent` (`readCallEvent.ts`, in the call-reading chunk) reads
 * them into the `ReadEvent`.
 */
export type ParsedEvent = Exclude<ReadEvent, ToolCallResultEvent> | UnreadResult

/** A `TOOL_CALL_RESULT` whose `metadata` is not read yet: another server may send none. */
export type UnreadResult = Omit<ToolCallResultEvent, 'metadata'> & { readonly metadata?: unknown }

export type ReadOutcome =
  | { readonly type: 'success'; readonly pendingToolCallIds?: readonly string[] }
  | { readonly type: 'interrupt'; readonly interrupts: readonly unknown[] }

/**
 * The events this client reads, and the string fields each must carry: the reducer relies on them.
 * The others are skipped unread: `TEXT_MESSAGE_END` (a message's text ends with its run), reasoning
 * (not shown), and `MESSAGES_SNAPSHOT` (the server sends it only to AG-UI clients whose `messages`
 * were behind; this client starts from the stored thread, `GET`, whenever it attaches, so the
 * snapshot tells it nothing new).
 */
const REQUIRED: Partial<Record<RunEvent['type'], readonly string[]>> = {
  RUN_STARTED: ['threadId', 'runId'],
  TEXT_MESSAGE_START: ['messageId'],
  TEXT_MESSAGE_CONTENT: ['messageId', 'delta'],
  TOOL_CALL_START: ['toolCallId', 'toolCallName'],
  TOOL_CALL_ARGS: ['toolCallId', 'delta'],
  TOOL_CALL_END: ['toolCallId'],
  TOOL_CALL_RESULT: ['toolCallId', 'content'],
  RUN_FINISHED: ['threadId', 'runId'],
  RUN_ERROR: ['message'],
}

/**
 * Turns one event's data into a `ParsedEvent`. Any spec-valid AG-UI stream reads: Toolgate's extensions
 * (in `metadata`) are used when present and inferred when not (a result's status by `readResult`, an
 * interrupt's tool), and event types this client does not know are skipped (`undefined`). Anything
 * malformed throws `BAD_RESPONSE`: a client that guessed would show a conversation the server never had.
 */
export function parseEvent(data: string): ParsedEvent | undefined {
  let event: unknown
  try {
    event = JSON.parse(data)
  } catch {
    throw malformed(`an event that is not JSON: ${preview(data)}`)
  }
  if (!isRecord(event) || typeof event.type !== 'string') throw malformed(`an event without a type: ${preview(data)}`)
  const required = Object.hasOwn(REQUIRED, event.type) ? REQUIRED[event.type as RunEvent['type']] : undefined
  // A subagent's own events (`SUBAGENT_*`) are checked by `readCallEvent`, in the call-reading chunk.
  if (!required) return typeof event.subagentRunId === 'string' ? (event as unknown as ParsedEvent) : undefined
  for (const field of required) {
    if (typeof event[field] !== 'string') throw malformed(`a ${event.type} event without a string \`${field}\``)
  }
  if (event.type === 'RUN_FINISHED') return checkOutcome(event)
  return event as unknown as ParsedEvent
}

/** A run's outcome, if any, is an object; an interrupt outcome has a list of `interrupts` (read by `toolInterrupts`). */
function checkOutcome(event: Record<string, unknown>): ParsedEvent {
  const { outcome } = event
  if (outcome === undefined) return event as unknown as ParsedEvent
  if (!isRecord(outcome)) throw malformed('a RUN_FINISHED event whose `outcome` is not an object')
  if (outcome.type === 'interrupt' && !Array.isArray(outcome.interrupts)) throw malformed('an interrupt outcome without `interrupts`')
  return event as unknown as ParsedEvent
}

function malformed(what: string): ChatError {
  return new ChatError('BAD_RESPONSE', `The server sent ${what}`)
}

function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)
}
