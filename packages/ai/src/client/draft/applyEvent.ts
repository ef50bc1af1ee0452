import type { RunEvent } from '../../protocol/events.ts'
import type { ReadEvent } from '../stream/index.ts'
import { callReading } from '../chunks/index.ts'
import type { ThreadDraft } from './threadDraft.ts'

/**
 * Applies one event's edits to the messages, through the draft's transitions. What an event means
 * for the run (started, finished, failed) is `stream/runStream.ts`'s. A tool call's events, and a
 * subagent's, are applied by the call-reading chunk (`callEvents.ts`), which the stream loaded for
 * them; without it no call started, and events about ids the client never saw (arguments before
 * their call started, say) are skipped: the stream stays usable and a reload shows the server's truth.
 */
export function applyEvent(draft: ThreadDraft, event: ReadEvent | RunEvent): void {
  if ('subagentRunId' in event || event.type.startsWith('TOOL_CALL_')) return callReading.get()?.applyCallEvent(draft, event)
  if (event.type === 'TEXT_MESSAGE_START') draft.assistantMessage(event.messageId)
  else if (event.type === 'TEXT_MESSAGE_CONTENT' && event.delta !== '') draft.appendText(draft.assistantMessage(event.messageId), event.delta)
}
