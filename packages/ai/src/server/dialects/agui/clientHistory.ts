import type { ThreadMessage } from '../../../protocol/messages.ts'
import { isRecord } from '../../../util/isRecord.ts'
import type { ChatConfig } from '../../options.ts'
import { HttpError } from '../../errors.ts'
import type { StoredThread } from '../../claim/intent.ts'

// An AG-UI client sends the whole conversation as it sees it with every run (`RunAgentInput.messages`).
// The server never takes history from it: the stored thread is the truth. But a client whose history
// says something the thread does not (an assistant reply the server never sent, a tool result that
// differs, a user message that was never stored) is out of step, and is told so with a 409 rather
// than answered as if it were not. Messages the thread has no notion of (system, developer, activity,
// reasoning) are the client's own business and are not compared, nor are a subagent's (`subagentRunId`).

/** One message of `RunAgentInput.messages` before the new turn, as far as it is compared. */
export interface ClientHistoryMessage {
  /** Its index in `messages`, for the error's path. */
  readonly index: number
  readonly role: 'user' | 'assistant' | 'tool'
  readonly id: string | undefined
  /** Text content; `undefined` when the client sent none (nothing to compare). */
  readonly text: string | undefined
  /** `tool`: the call it answers. */
  readonly toolCallId: string | undefined
  /** `assistant`: the ids of the calls it made. */
  readonly toolCallIds: readonly string[]
}

/** The comparable messages of a `RunAgentInput.messages` slice. */
export function clientHistoryOf(messages: readonly unknown[]): ClientHistoryMessage[] {
  return messages.flatMap((message, index): ClientHistoryMessage[] => {
    if (!isRecord(message) || (message.role !== 'user' && message.role !== 'assistant' && message.role !== 'tool')) return []
    // A subagent's messages (AG-UI 1.0 attributes them) are its own: the thread stores the run's.
    if (message.subagentRunId !== undefined) return []
    if (message.role === 'tool' && isApprovalMark(message.content)) return []
    const toolCalls = Array.isArray(message.toolCalls) ? message.toolCalls : []
    return [
      {
        index,
        role: message.role,
        id: typeof message.id === 'string' ? message.id : undefined,
        text: textOf(message.content),
        toolCallId: typeof message.toolCallId === 'string' ? message.toolCallId : undefined,
        toolCallIds: toolCalls.flatMap((call) => (isRecord(call) && typeof call.id === 'string' ? [call.id] : [])),
      },
    ]
  })
}

/**
 * Refuses (409 `HISTORY_CONFLICT`, with the message's path) a client history that contradicts the
 * stored thread. `thread` undefined: the thread does not exist yet, so any history contradicts it.
 * Returns whether the client is behind the thread without contradicting it (it missed the end of a
 * run: an assistant message cut short, results or messages it never got; or it sent no history at
 * all to a thread that has one): its run then begins with the stored thread (`MESSAGES_SNAPSHOT`).
 */
export async function checkClientHistory(
  config: ChatConfig,
  thread: StoredThread | undefined,
  history: readonly ClientHistoryMessage[],
): Promise<boolean> {
  if (!thread) {
    if (history.length > 0) throw conflict(history[0]!, 'The thread has no history yet: send only the new user message')
    return false
  }
  const { head } = thread
  const stored = [...(await thread.messages), ...(head.step ? [head.step.message, ...head.step.results] : [])]
  // A client may carry its own answer to a call that waits (it answers through `resume` too).
  const waiting = new Set(head.step?.interrupts.map((interrupt) => interrupt.toolCallId))
  const compared = history.filter((message) => !(message.role === 'tool' && message.toolCallId !== undefined && waiting.has(message.toolCallId)))
  const found = compare(stored, compared, (name) => config.frontendTools.has(name))
  if ('why' in found) throw conflict(found.message, found.why)
  return found.behind
}

/** The first contradiction, or whether the client lacks part of `stored` (it may leave out user messages, not the rest). */
function compare(
  stored: readonly ThreadMessage[],
  history: readonly ClientHistoryMessage[],
  isFrontendTool: (name: string) => boolean,
): { message: ClientHistoryMessage; why: string } | { behind: boolean } {
  const assistants = new Map<string, ThreadMessage & { role: 'assistant' }>()
  const results = new Map<string, ThreadMessage & { role: 'tool' }>()
  const userTexts: string[] = []
  for (const message of stored) {
    if (message.role === 'assistant') assistants.set(message.id, message)
    else if (message.role === 'tool') results.set(message.toolCallId, message)
    else userTexts.push(message.content)
  }
  const turns = turnsOf(stored)
  let behind = false
  const seen = new Set<string>() // stored assistant ids and answered call ids the client has
  let nextUser = 0 // user messages must appear in the stored order (some may be left out)
  for (const message of history) {
    if (message.role === 'user') {
      const found = message.text === undefined ? nextUser : userTexts.indexOf(message.text, nextUser)
      if (found === -1) return { message, why: 'The thread has no such user message at this point' }
      nextUser = found + 1
    } else if (message.role === 'assistant') {
      const known = message.id === undefined ? undefined : assistants.get(message.id)
      // While the thread's run streams, its reply is not stored yet: such a message supersedes that
      // run first (claim/supersede.ts), which stores it. Only then is an unknown id a real conflict.
      if (!known) return { message, why: message.id === undefined ? 'This assistant message has no `id` to find it by in the thread' : `The thread has no assistant message with id ${JSON.stringify(message.id)}` }
      // A client may hold a turn's steps as one message (TanStack AI does): under the id of one of
      // them, with the texts of consecutive steps joined, and their calls.
      const steps = stepsHeld(turns.get(known.id)!, known, message) ?? [known]
      for (const step of steps) seen.add(step.id)
      const content = steps.map((step) => step.content).join('')
      if (message.text !== undefined && message.text !== '' && message.text !== content) {
        // The client lost the end of the stream: what it has is the start of the stored reply.
        if (!content.startsWith(message.text)) return { message, why: 'The assistant message differs from the stored one' }
        behind = true
      }
      const calls = new Set(steps.flatMap((step) => step.toolCalls.map((call) => call.id)))
      if (message.toolCallIds.some((id) => !calls.has(id))) return { message, why: 'The assistant message has tool calls the stored one does not' }
      if (message.toolCallIds.length < calls.size) behind = true
    } else {
      const known = message.toolCallId === undefined ? undefined : results.get(message.toolCallId)
      if (!known) return { message, why: 'The thread has no result for this tool call, and no call waiting for one' }
      seen.add(`call:${known.toolCallId}`)
      // A frontend tool's result is the client's own `tool` message, stored under its id in the server's words.
      if (message.id !== undefined && message.id === known.id && isFrontendTool(known.toolName)) continue
      if (message.text !== undefined && message.text !== known.content) return { message, why: 'The tool result differs from the stored one' }
    }
  }
  const missing = [...assistants.keys()].some((id) => !seen.has(id)) || [...results.keys()].some((id) => !seen.has(`call:${id}`))
  return { behind: behind || missing || (history.length === 0 && stored.length > 0) }
}

type StoredAssistant = ThreadMessage & { role: 'assistant' }

/** Each stored assistant message's turn: the assistant messages between two user messages. */
function turnsOf(stored: readonly ThreadMessage[]): Map<string, readonly StoredAssistant[]> {
  const turns = new Map<string, StoredAssistant[]>()
  let turn: StoredAssistant[] = []
  for (const message of stored) {
    if (message.role === 'user') turn = []
    if (message.role !== 'assistant') continue
    turn.push(message)
    turns.set(message.id, turn)
  }
  return turns
}

/**
 * The consecutive steps of `turn`, `step` among them, that the client's message holds whole: their
 * texts joined are its text and their calls its calls. Fewest steps first; none when no run of
 * steps matches (the message is then compared with `step` alone).
 */
function stepsHeld(turn: readonly StoredAssistant[], step: StoredAssistant, message: ClientHistoryMessage): readonly StoredAssistant[] | undefined {
  const at = turn.indexOf(step)
  for (let length = 1; length <= turn.length; length++) {
    for (let from = Math.max(0, at - length + 1); from <= at && from + length <= turn.length; from++) {
      const steps = turn.slice(from, from + length)
      const calls = steps.flatMap((each) => each.toolCalls.map((call) => call.id))
      const text = steps.map((each) => each.content).join('')
      if ((message.text === undefined || message.text === '' || message.text === text) && calls.length === message.toolCallIds.length && message.toolCallIds.every((id) => calls.includes(id))) return steps
    }
  }
  return undefined
}

/**
 * TanStack AI records a person's approval as a `tool` message of the call (`{ approved,
 * pendingExecution: true }`) until the call's result arrives. It is no result, and says nothing the
 * thread could contradict: a tab that missed the result (another tab answered) still holds it.
 */
function isApprovalMark(content: unknown): boolean {
  if (typeof content !== 'string' || !content.includes('"pendingExecution"')) return false
  try {
    const parsed: unknown = JSON.parse(content)
    return isRecord(parsed) && parsed.pendingExecution === true && typeof parsed.approved === 'boolean'
  } catch {
    return false
  }
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  return content.map((part) => (isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('')
}

function conflict(message: ClientHistoryMessage, why: string): HttpError {
  return new HttpError(409, 'HISTORY_CONFLICT', `${why}; the server keeps the thread's history and never takes it from the client`, `messages[${message.index}]`)
}
