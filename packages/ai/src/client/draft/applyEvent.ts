import type { RunEvent, ToolCallResultEvent } from '../../protocol/events.ts'
import type { ReadEvent } from '../stream/index.ts'
import { callReading } from '../chunks/index.ts'
import { hasEnded, type CallOutcome, type ThreadDraft, type ToolCallDraft } from './threadDraft.ts'

/**
 * Applies one event's edits to the messages, through the draft's transitions. What an event means
 * for the run (started, finished, failed) is `stream/runStream.ts`'s. Events about ids the client never
 * saw (arguments before their call started, say) are skipped: the stream stays usable and a
 * reload shows the server's truth.
 */
export function applyEvent(draft: ThreadDraft, event: ReadEvent | RunEvent): void {
  // A subagent's, placed in its part by the call-reading chunk (the stream loaded it for this event).
  if ('subagentRunId' in event && callReading.get()!.applySubagentEvent(draft, event as typeof event & { subagentRunId: string })) return
  switch (event.type) {
    case 'TEXT_MESSAGE_START':
      draft.assistantMessage(event.messageId)
      return
    case 'TEXT_MESSAGE_CONTENT':
      if (event.delta !== '') draft.appendText(draft.assistantMessage(event.messageId), event.delta)
      return
    case 'TOOL_CALL_START':
      if (!draft.call(event.toolCallId)) {
        const message = event.parentMessageId ? draft.assistantMessage(event.parentMessageId) : draft.lastAssistantMessage()
        draft.addCall(message, event.toolCallId, event.toolCallName)
      }
      return
    case 'TOOL_CALL_ARGS': {
      const call = draft.call(event.toolCallId)
      if (call) draft.argumentsDelta(call, event.delta)
      return
    }
    case 'TOOL_CALL_END': {
      const call = draft.call(event.toolCallId)
      if (call) draft.argumentsComplete(call)
      return
    }
    case 'TOOL_CALL_RESULT': {
      const call = draft.call(event.toolCallId)
      if (call) applyResult(draft, call, event)
      return
    }
  }
}

/**
 * An outcome this client already knows (a denial, a client tool's result) stands, unless it only
 * stopped the call; the server's record of the decision (who, when) joins it, as a reload shows it.
 */
function applyResult(draft: ThreadDraft, call: ToolCallDraft, event: ToolCallResultEvent): void {
  if (!call.stopped && hasEnded(call)) {
    if (event.metadata.decision && !call.decision) draft.decide(call, event.metadata.decision)
    return
  }
  draft.settle(call, resultOutcome(event), event.metadata.decision)
}

function resultOutcome(event: ToolCallResultEvent): CallOutcome {
  const { metadata } = event
  switch (metadata.status) {
    case 'success':
      return { status: 'success', output: metadata.output, attachments: metadata.attachments }
    case 'denied':
      return { status: 'denied', reason: metadata.reason }
    case 'expired':
    case 'cancelled':
      return { status: metadata.status }
    default:
      return { status: 'error', error: event.content }
  }
}
