import type { ThreadToolMessage } from '../protocol/messages.ts'
import type { ThreadSnapshot } from '../protocol/thread.ts'
import type { AnyTool } from '../tools/types.ts'
import { ThreadDraft, type ToolCallChanges } from './draft.ts'

/**
 * Rebuilds the conversation from the server's stored thread, as after a reload: messages, each
 * call with its result folded in, and the calls still waiting marked by `applyInterrupt`.
 */
export function fromSnapshot(snapshot: ThreadSnapshot, tools: readonly AnyTool[]): ThreadDraft {
  const draft = new ThreadDraft(tools)
  const results = new Map<string, ThreadToolMessage>()
  for (const message of snapshot.messages) if (message.role === 'tool') results.set(message.toolCallId, message)

  for (const message of snapshot.messages) {
    if (message.role === 'user') draft.addUserMessage(message.content, message.id)
    if (message.role !== 'assistant') continue
    const target = draft.assistantMessage(message.id)
    if (message.content !== '') draft.appendText(target, message.content)
    for (const call of message.toolCalls) {
      draft.addCall(target, call.id, call.name, { input: parseArguments(call.arguments), ...outcome(results.get(call.id)) })
    }
  }
  return draft
}

/** A call's state from its stored result (none: its input is complete and it waits or runs). */
export function outcome(result: ThreadToolMessage | undefined): ToolCallChanges {
  if (!result) return { state: 'input-available' }
  switch (result.status) {
    case 'success':
      return {
        state: 'output-available',
        output: 'output' in result ? result.output : parseJson(result.content),
        ...(result.attachments ? { attachments: result.attachments } : {}),
      }
    case 'error':
      return { state: 'output-error', error: result.content }
    case 'denied':
      return { state: 'denied', approval: { approved: false, denyReason: result.reason } }
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
