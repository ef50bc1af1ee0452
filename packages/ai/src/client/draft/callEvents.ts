import type { RunEvent, ToolCallResultEvent } from '../../protocol/events.ts'
import type { ReadEvent } from '../stream/index.ts'
import { applyEvent } from './applyEvent.ts'
import { applySubagentEvent } from './subagents.ts'
import { hasEnded, type CallOutcome, type ThreadDraft, type ToolCallDraft } from './threadDraft.ts'

/**
 * Applies a tool call's event, or a subagent's (`subagents.ts`), to the draft: in the call-reading
 * chunk (`chunks/`), which the stream loads before it hands on a call's start or result, or any
 * event that carries a `subagentRunId`. Events about calls the client never saw are skipped.
 */
export function applyCallEvent(draft: ThreadDraft, event: ReadEvent | RunEvent): void {
  if ('subagentRunId' in event) {
    if (applySubagentEvent(draft, event as typeof event & { readonly subagentRunId: string })) return
    // Not a subagent's own (a call's arguments or result are found by the call), or one this draft never saw start: as the run's own.
    const { subagentRunId: _attributed, ...own } = event
    if (!own.type.startsWith('TOOL_CALL_')) return applyEvent(draft, own as ReadEvent)
  }
  switch (event.type) {
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
