import { isRecord } from '../../../util/isRecord.ts'
import type { MessageRequest, ResumeAnswer, ResumeRequest } from '../../../protocol/requests.ts'
import { checkedThreadId, invalid, MAX_THREAD_ID_LENGTH, parseAnswer, THREAD_ID } from '../../edge/requests.ts'
import { clientHistoryOf, type ClientHistoryMessage } from './clientHistory.ts'

// AG-UI's request: a `RunAgentInput`, read into a message or answers plus what its client adds (its
// `messages` before the new turn, its tools, its `tool` messages), checked by hand so the runtime
// does not carry `@ag-ui/core` and its Zod.

/** Whether a POST body is a `RunAgentInput` (the compact protocol has neither field). */
export function isRunAgentInput(body: unknown): body is Record<string, unknown> {
  return isRecord(body) && ('messages' in body || 'runId' in body)
}

/**
 * A parsed AG-UI `RunAgentInput` (or an AI SDK body read as one, dialects/aisdk/): a new message, or
 * answers (maybe none). Its client chose the thread id (created on first use when `authorize`
 * allows `create`) and expects AG-UI events even where the compact protocol answers JSON (a resume
 * that leaves interrupts open).
 */
export type AguiInput = (MessageRequest | ResumeRequest) & AguiFields

/** What an AG-UI `RunAgentInput` adds: its `messages` before the new turn, checked against the thread. */
export interface AguiFields {
  readonly agui: true
  readonly history?: readonly ClientHistoryMessage[]
  /** `RunAgentInput.tools`, as sent: only those the app accepts are read (see frontendTools.ts). */
  readonly declaredTools?: readonly unknown[]
  /** The `tool` messages of `messages` before the new turn: answers to calls that wait for the browser, or history (toolMessages.ts). */
  readonly toolMessages?: readonly ToolResultMessage[]
  /** `messages` ends with a `tool` message: the input means to answer something. */
  readonly endsWithTool?: true
  /** The client's id of its new user message: stored under it (when free), so client and thread agree. */
  readonly messageId?: string
  /** `RunAgentInput.protocolVersion`: sent by AG-UI 1.0 clients, absent before (see protocolVersion.ts). */
  readonly protocolVersion?: string
}

/** An AG-UI `tool` message as an answer: its result (`content`, read as JSON when it parses) or its `error`. */
export interface ToolResultMessage {
  /** Its index in `messages`, for the error's path. */
  readonly index: number
  readonly id: string | undefined
  readonly toolCallId: string
  readonly answer: { readonly output: unknown } | { readonly error: string }
}

/**
 * AG-UI 1.0 `RunAgentInput` (`threadId`, `runId`, `messages`, `tools`, `context`, `state`,
 * `forwardedProps`, `resume?`). The server stays the authority: of `messages` it takes only the
 * last one, when it is a user message (the new turn), and never history (the rest is compared with
 * the stored thread: see clientHistory.ts); `tools` a client declares
 * are ignored unless the app accepts them by name (frontendTools.ts); `resume` answers pending interrupts.
 * A new user message beside `cancelled` entries is one step: the message supersedes (denies) what
 * waits. Checked by hand so the runtime does not carry `@ag-ui/core` and its Zod.
 */
export function parseRunAgentInput(body: Record<string, unknown>): AguiInput {
  const { messages, resume } = body
  const threadId = checkedThreadId(body.threadId)
  if (body.runId !== undefined && typeof body.runId !== 'string') throw invalid('`runId` must be a string', 'runId')
  if (!Array.isArray(messages)) throw invalid('`messages` must be an array', 'messages')
  if (body.tools !== undefined && !Array.isArray(body.tools)) throw invalid('`tools` must be an array', 'tools')
  const declaredTools = (body.tools as unknown[] | undefined) ?? []
  const answers = resume === undefined ? [] : parseAguiResume(resume)
  const last: unknown = messages.at(-1)
  const text = isRecord(last) && last.role === 'user' ? userText(last.content, `messages[${messages.length - 1}].content`) : undefined

  const before = text === undefined ? messages : messages.slice(0, -1)
  const toolMessages = toolMessagesOf(before)
  const protocolVersion = typeof body.protocolVersion === 'string' ? { protocolVersion: body.protocolVersion } : {}
  const aguiFields = { agui: true, history: clientHistoryOf(before), declaredTools, toolMessages, ...protocolVersion } as const
  if (text !== undefined && answers.every((answer) => 'approved' in answer && !answer.approved)) {
    // Cancellations beside a new message: the new turn denies every open interrupt anyway.
    const messageId = isRecord(last) && typeof last.id === 'string' && last.id.length <= MAX_THREAD_ID_LENGTH && THREAD_ID.test(last.id) ? last.id : undefined
    return { threadId, message: text, ...aguiFields, ...(messageId === undefined ? {} : { messageId }) }
  }
  // Without a new message, the input answers: `resume` entries, `tool` messages for frontend tool
  // calls (which of them answer is known only against the thread), or nothing, when a client only
  // asks where the thread stands (a reload, a reconnect): the claim tells these apart.
  return { threadId, resume: answers, ...aguiFields, ...(isRecord(last) && last.role === 'tool' ? { endsWithTool: true as const } : {}) }
}

/** The `tool` messages among `messages`, each with the answer it would give. */
function toolMessagesOf(messages: readonly unknown[]): ToolResultMessage[] {
  return messages.flatMap((message, index): ToolResultMessage[] => {
    // A subagent's results (attributed by AG-UI 1.0) answer nothing of the run: its calls run on the server.
    if (!isRecord(message) || message.role !== 'tool' || message.subagentRunId !== undefined) return []
    const path = `messages[${index}]`
    if (typeof message.toolCallId !== 'string' || message.toolCallId === '') throw invalid('A tool message needs its `toolCallId`', `${path}.toolCallId`)
    if (message.error !== undefined && typeof message.error !== 'string') throw invalid('`error` must be a string', `${path}.error`)
    const id = typeof message.id === 'string' ? message.id : undefined
    if (typeof message.error === 'string') return [{ index, id, toolCallId: message.toolCallId, answer: { error: message.error } }]
    const content = typeof message.content === 'string' ? message.content : Array.isArray(message.content) ? textOfParts(message.content) : undefined
    if (content === undefined) throw invalid('A tool message needs `content`: a string or text parts', `${path}.content`)
    return [{ index, id, toolCallId: message.toolCallId, answer: { output: jsonOrText(content) } }]
  })
}

/** A tool's result as AG-UI carries it (structured data serialised into text): the JSON value when it is one, else the text. */
function jsonOrText(content: string): unknown {
  try {
    return JSON.parse(content)
  } catch {
    return content
  }
}

function textOfParts(parts: readonly unknown[]): string {
  return parts.map((part) => (isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('')
}

function userText(content: unknown, path: string): string {
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? textOfParts(content)
        : undefined
  if (text === undefined || text.trim() === '') throw invalid('The user message needs text content', path)
  return text
}

/**
 * AG-UI resume entries: `{ interruptId, status: 'resolved' | 'cancelled', payload? }`. `cancelled`
 * denies; `resolved` carries an approval (`{ approved, editedArgs?, reason? }`) or, for a client
 * tool, its result (`{ output }`, `{ error }`, or any other JSON value as the output). Whether the
 * answer fits its interrupt is checked against the stored interrupt, as for the compact body.
 */
function parseAguiResume(resume: unknown): ResumeAnswer[] {
  if (!Array.isArray(resume) || resume.length === 0) throw invalid('`resume` must be a non-empty array', 'resume')
  const seen = new Set<string>()
  return resume.map((entry, index) => {
    const path = `resume[${index}]`
    if (!isRecord(entry)) throw invalid('A resume entry must be an object', path)
    const { interruptId, status, payload } = entry
    if (typeof interruptId !== 'string' || interruptId === '') throw invalid('`interruptId` must be a non-empty string', `${path}.interruptId`)
    if (seen.has(interruptId)) throw invalid('The same interrupt is answered twice', `${path}.interruptId`)
    seen.add(interruptId)
    if (status === 'cancelled') return { interruptId, approved: false }
    if (status !== 'resolved') throw invalid("`status` must be 'resolved' or 'cancelled'", `${path}.status`)
    if (isRecord(payload) && ('approved' in payload || 'output' in payload || 'error' in payload)) {
      // The subagent run an entry answers, as AG-UI puts routing keys: in its `metadata`.
      const routed = 'approved' in payload && isRecord(entry.metadata) && entry.metadata.subagentRunId !== undefined ? { subagentRunId: entry.metadata.subagentRunId } : {}
      return parseAnswer({ ...payload, ...routed, interruptId }, `${path}.payload`)
    }
    if (payload === undefined) throw invalid('A resolved entry needs a `payload`', `${path}.payload`)
    return { interruptId, output: payload }
  })
}
