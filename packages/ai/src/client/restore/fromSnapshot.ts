import type { ThreadToolMessage } from '../../protocol/messages.ts'
import type { ThreadSnapshot } from '../../protocol/thread.ts'
import type { AnyTool } from '../../tools/types.ts'
import { ThreadDraft, type CallOutcome } from '../draft/index.ts'

/**
 * Rebuilds the conversation from the server's stored thread, as after a reload: messages, each
 * call with its result folded in; the calls still waiting are marked when the client pauses on them.
 */
export function fromSnapshot(snapshot: ThreadSnapshot, tools: readonly AnyTool[]): ThreadDraft {
  const draft = new ThreadDraft(tools)
  const results = new Map<string, ThreadToolMessage>()
  for (const message of snapshot.messages) if (message.role === 'tool') results.set(message.toolCallId, message)

  for (const message of snapshot.messages) {
    if (message.role === 'user') draft.addUserMessage(message.content, message.id)
    if (message.role !== 'assistant') continue
    const target = draft.assistantMessage(message.id)
    if (message.stopped) draft.markStopped(target)
    if (message.content !== '') draft.appendText(target, message.content)
    for (const call of message.toolCalls) {
      const added = draft.addCall(target, call.id, call.name, { value: parseArguments(call.arguments) })
      const result = results.get(call.id)
      if (result) draft.settle(added, outcomeOf(result), result.decision)
    }
  }
  // Answers the server holds while the rest of their batch waits: the calls show them as the answering page did.
  for (const answer of snapshot.answers ?? []) {
    const call = draft.call(answer.toolCallId)
    if (!call) continue
    if (!('approved' in answer)) draft.settle(call, 'output' in answer ? { status: 'success', output: answer.output } : { status: 'error', error: answer.error })
    else if (answer.approved) draft.approve(call, 'editedArgs' in answer ? { value: answer.editedArgs } : undefined)
    else draft.settle(call, { status: 'denied', reason: answer.reason }, answer.decision)
  }
  return draft
}

/** How a stored result says its call ended. */
function outcomeOf(result: ThreadToolMessage): CallOutcome {
  switch (result.status) {
    case 'success':
      return { status: 'success', output: 'output' in result ? result.output : parseJson(result.content), attachments: result.attachments }
    case 'error':
      return { status: 'error', error: result.content }
    case 'denied':
      return { status: 'denied', reason: result.reason }
    case 'expired':
    case 'cancelled':
      return { status: result.status }
  }
}

/**
 * The rule of `util/parseToolArguments.ts` (blank means `{}`), with text that is not JSON shown as
 * sent. Inlined because its result object would cost the browser bundle more than this line.
 */
function parseArguments(text: string): unknown {
  return text.trim() === '' ? {} : parseJson(text)
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
