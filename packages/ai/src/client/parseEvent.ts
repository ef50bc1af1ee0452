import type { ChatEvent, ToolCallResultEvent } from '../protocol/events.ts'
import type { ToolInterrupt } from '../protocol/interrupts.ts'
import type { ToolResultStatus } from '../protocol/messages.ts'
import { ChatError } from './chatError.ts'
import { isRecord } from '../util/isRecord.ts'

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
  TOOL_CALL_RESULT: ['toolCallId', 'content'],
  RUN_FINISHED: ['threadId', 'runId'],
  RUN_ERROR: ['message'],
}

/**
 * Turns one event's data into a `ChatEvent`. Any spec-valid AG-UI stream reads: Toolgate's extension
 * fields are used when present and inferred when not (a result's status, an interrupt's tool), and
 * event types this client does not know are skipped (`undefined`). Anything malformed throws
 * `BAD_RESPONSE`: a client that guessed would show a conversation the server never had.
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
  if (event.type === 'TOOL_CALL_RESULT') return withStatus(event)
  if (event.type === 'RUN_FINISHED') return withToolInterrupts(event)
  return event as unknown as ChatEvent
}

const STATUSES: ReadonlySet<unknown> = new Set<ToolResultStatus>(['success', 'error', 'denied', 'expired', 'cancelled'])

/**
 * AG-UI's result is `content` text only. Without Toolgate's `status`, JSON content is the output,
 * except `{ "error": "..." }` (how servers commonly report a failed tool); other text is the output as is.
 */
function withStatus(event: Record<string, unknown>): ToolCallResultEvent {
  if (STATUSES.has(event.status)) {
    if (event.status === 'success' && !('output' in event)) return { ...(event as unknown as ToolCallResultEvent), output: parseJson(event.content as string) }
    return event as unknown as ToolCallResultEvent
  }
  const output = parseJson(event.content as string)
  const failed = isRecord(output) && typeof output.error === 'string' && Object.keys(output).length === 1
  return { ...(event as unknown as ToolCallResultEvent), status: failed ? 'error' : 'success', ...(failed ? { content: output.error as string } : { output }) }
}

/**
 * An interrupt outcome, its interrupts read as tool interrupts: Toolgate's fields at the top, or
 * under `metadata` (where strict AG-UI clients keep them), or AG-UI's alone (`toolCallId`; the tool's
 * name is then the call's). `reason` other than `client_tool` asks for approval (TanStack AI's
 * `tool_call` convention). Interrupts about no tool call are left out: this client cannot answer them.
 */
function withToolInterrupts(event: Record<string, unknown>): ChatEvent {
  const { outcome } = event
  if (outcome === undefined) return event as unknown as ChatEvent
  if (!isRecord(outcome)) throw malformed('a RUN_FINISHED event whose `outcome` is not an object')
  if (outcome.type !== 'interrupt') return event as unknown as ChatEvent
  if (!Array.isArray(outcome.interrupts)) throw malformed('an interrupt outcome without `interrupts`')
  const interrupts = outcome.interrupts.flatMap((value: unknown, index: number) => {
    if (!isRecord(value) || typeof value.id !== 'string') throw malformed(`an interrupt without a string \`id\` (interrupts[${index}])`)
    const metadata = isRecord(value.metadata) ? value.metadata : {}
    const toolCallId = value.toolCallId ?? metadata.toolCallId
    if (typeof toolCallId !== 'string') return []
    const toolName = value.toolName ?? metadata.toolName
    const interrupt: ToolInterrupt = {
      ...(value as object),
      id: value.id,
      reason: value.reason === 'client_tool' ? 'client_tool' : 'tool_approval',
      toolCallId,
      toolName: typeof toolName === 'string' ? toolName : '',
      input: 'input' in value ? value.input : metadata.input,
      ...(typeof value.message === 'string' ? { message: value.message } : {}),
    } as ToolInterrupt
    return [interrupt]
  })
  return { ...(event as unknown as ChatEvent & { type: 'RUN_FINISHED' }), outcome: { type: 'interrupt', interrupts } }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function malformed(what: string): ChatError {
  return new ChatError('BAD_RESPONSE', `The server sent ${what}`)
}

function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)
}
