import type { AgUiMessage } from '../../protocol/events.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import { resultMetadata, type RunEvents } from './runEvents.ts'
import type { ThreadHead } from '../thread/threadStore.ts'

// The stored thread as AG-UI messages, for `MESSAGES_SNAPSHOT`: what an AG-UI client that was behind
// (a dropped stream, a reload, a fresh agent) replaces its list with. Ids are the stored ones, the
// same the events carried, so a client's later `messages` compare cleanly. Reasoning stays out (a
// client keeps its own reasoning messages when a snapshot has none).

/** The history of `head` (`stored`), then its open step (the calls that still wait, the results so far), then `after`. */
export function threadAsAgUi(stored: readonly ThreadMessage[], head: ThreadHead | undefined, after: readonly ThreadMessage[] = []): AgUiMessage[] {
  const step = head?.step
  return [...stored, ...(step ? [step.message, ...step.results] : []), ...after].map(toAgUiMessage)
}

function toAgUiMessage(message: ThreadMessage): AgUiMessage {
  if (message.role === 'user') return { id: message.id, role: 'user', content: message.content }
  if (message.role === 'tool') {
    return {
      id: message.id,
      role: 'tool',
      toolCallId: message.toolCallId,
      content: message.content,
      ...(message.status === 'error' ? { error: message.content } : {}),
      metadata: resultMetadata(message),
    }
  }
  const toolCalls = message.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } }))
  return { id: message.id, role: 'assistant', ...(message.content === '' ? {} : { content: message.content }), ...(toolCalls.length > 0 ? { toolCalls } : {}) }
}

/**
 * Sends the snapshot. AG-UI clients reconcile a snapshot with their list: a message they hold keeps
 * its place and takes the snapshot's content, the ones they lack are added at the end, the rest go.
 * That keeps the order only when the messages the client holds come first in the snapshot, in the
 * same order (a client that missed the tail); otherwise (a fresh agent holding only its new message,
 * a client missing results in the middle) an empty snapshot clears its list first.
 */
export function sendSnapshot(events: RunEvents, messages: readonly AgUiMessage[], held: readonly string[]): void {
  const ids = new Set(messages.map((message) => message.id))
  const kept = held.filter((id) => ids.has(id))
  if (kept.some((id, index) => messages[index]?.id !== id)) events.messagesSnapshot([])
  events.messagesSnapshot(messages)
}
