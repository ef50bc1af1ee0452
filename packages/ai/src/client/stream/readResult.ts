import type { ToolCallResultEvent, ToolResultMetadata } from '../../protocol/events.ts'
import type { ToolResultStatus } from '../../protocol/messages.ts'
import { isRecord } from '../../util/isRecord.ts'
import type { UnreadResult } from './parseEvent.ts'

const STATUSES: ReadonlySet<unknown> = new Set<ToolResultStatus>(['success', 'error', 'denied', 'expired', 'cancelled'])

/**
 * How a `TOOL_CALL_RESULT` says its call ended. AG-UI's result is `content` text only: Toolgate's
 * `metadata.status` says it, and without it JSON content is the output, except `{ "error": "..." }`
 * (how servers commonly report a failed tool); other text is the output as is. In the calls' lazy
 * chunk (`chunks/callReading.ts`): only a stream with tool calls needs it.
 */
export function readResult(event: UnreadResult): ToolCallResultEvent {
  const metadata = isRecord(event.metadata) ? event.metadata : {}
  if (STATUSES.has(metadata.status)) {
    const known = metadata as unknown as ToolResultMetadata
    if (known.status === 'success' && !('output' in known)) return { ...event, metadata: { ...known, output: parseJson(event.content) } }
    return { ...event, metadata: known }
  }
  const output = parseJson(event.content)
  const failed = isRecord(output) && typeof output.error === 'string' && Object.keys(output).length === 1
  return failed
    ? { ...event, content: output.error as string, metadata: { ...metadata, status: 'error' } }
    : { ...event, metadata: { ...metadata, status: 'success', output } }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
