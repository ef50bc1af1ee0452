import type { ChatEvent, ToolCallResultEvent } from '../protocol/events.ts'
import type { ToolInterrupt } from '../protocol/interrupts.ts'
import { hasEnded, type CallOutcome, type ThreadDraft, type ToolCallDraft } from './draft.ts'
import { finishPartialJson } from './partialJson.ts'

/** What an event means for the run, beyond the messages it edits. */
export type RunSignal =
  | { readonly type: 'started'; readonly threadId: string }
  | { readonly type: 'finished'; readonly interrupts: readonly ToolInterrupt[] }
  | { readonly type: 'failed'; readonly message: string; readonly code: string | undefined }

/**
 * Applies one event to the thread. Events about ids the client never saw (arguments before their
 * call started, say) are skipped: the stream stays usable and a reload shows the server's truth.
 */
export function applyEvent(draft: ThreadDraft, event: ChatEvent): RunSignal | undefined {
  switch (event.type) {
    case 'RUN_STARTED':
      return { type: 'started', threadId: event.threadId }
    case 'RUN_FINISHED':
      return { type: 'finished', interrupts: event.outcome?.type === 'interrupt' ? event.outcome.interrupts : [] }
    case 'RUN_ERROR':
      return { type: 'failed', message: event.message, code: event.code }
    case 'TEXT_MESSAGE_START':
      draft.assistantMessage(event.messageId)
      return undefined
    case 'TEXT_MESSAGE_CONTENT':
      if (event.delta !== '') draft.appendText(draft.assistantMessage(event.messageId), event.delta)
      return undefined
    case 'TOOL_CALL_START':
      if (!draft.call(event.toolCallId)) {
        const message = event.parentMessageId ? draft.assistantMessage(event.parentMessageId) : draft.lastAssistantMessage()
        draft.addCall(message, event.toolCallId, event.toolCallName)
      }
      return undefined
    case 'TOOL_CALL_ARGS': {
      const call = draft.call(event.toolCallId)
      if (call?.parser && event.delta !== '') {
        call.parser.push(event.delta)
        draft.touch(call)
      }
      return undefined
    }
    case 'TOOL_CALL_END': {
      const call = draft.call(event.toolCallId)
      if (call?.parser) endArguments(draft, call)
      return undefined
    }
    case 'TOOL_CALL_RESULT': {
      const call = draft.call(event.toolCallId)
      if (call) applyResult(draft, call, event)
      return undefined
    }
    default:
      return undefined
  }
}

/**
 * Malformed or cut arguments keep what could be read (before `finishPartialJson` pads the text);
 * the server, which validates, reports the failure.
 */
function endArguments(draft: ThreadDraft, call: ToolCallDraft): void {
  const read = call.parser!.value()
  const result = finishPartialJson(call.parser!)
  const input = 'value' in result ? result.value : read
  draft.argumentsComplete(call, input)
}

/** An outcome this client already knows (a denial, a client tool's result) stands, unless it only stopped the call. */
function applyResult(draft: ThreadDraft, call: ToolCallDraft, event: ToolCallResultEvent): void {
  if (!call.stopped && hasEnded(call)) return
  draft.settle(call, resultOutcome(event))
}

function resultOutcome(event: ToolCallResultEvent): CallOutcome {
  switch (event.status) {
    case 'success':
      return { status: 'success', output: event.output, attachments: event.attachments }
    case 'denied':
      return { status: 'denied', reason: event.reason }
    default:
      return { status: 'error', error: event.content }
  }
}
