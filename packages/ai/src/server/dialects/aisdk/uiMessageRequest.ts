import type { ResumeAnswer } from '../../../protocol/requests.ts'
import { isRecord } from '../../../util/isRecord.ts'
import type { ClientHistoryMessage } from '../agui/clientHistory.ts'
import { HttpError } from '../../errors.ts'
import { MAX_THREAD_ID_LENGTH } from '../../edge/requests.ts'
import type { AguiInput, ToolResultMessage } from '../agui/runAgentInput.ts'
import type { GivenOutput } from './heldOutputs.ts'

// What `useChat` posts through `DefaultChatTransport`: `{ id, messages: UIMessage[], trigger,
// messageId? }`, whole conversation included, or `{ id, message }` with only the last message (the
// AI SDK's documented `prepareSendMessagesRequest` for servers that keep the history). As for an
// AG-UI client, the server takes from it only what is new (the last user message, approval
// responses, browser-tool outputs) and checks the rest against the stored thread
// (agui/clientHistory.ts): it never takes history from the client.

/**
 * Whether a POST body is the AI SDK's chat request: `messages` (or a `message` object) beside the
 * chat's `id`, and no `threadId` (AG-UI's `RunAgentInput` has one; Toolgate's own `message` is text).
 */
export function isUIMessageRequest(body: unknown): body is Record<string, unknown> {
  return isRecord(body) && (Array.isArray(body.messages) || isRecord(body.message)) && !('threadId' in body) && ('trigger' in body || 'id' in body)
}

/** The request as the handler takes it, and what the answer's stream needs to know of the client's messages. */
export interface UIMessageRequest {
  readonly parsed: AguiInput
  /** The calls of the message the response continues (none for a new user message), with the stored message each belongs to. */
  readonly knownCalls: ReadonlyMap<string, string | undefined>
  /** Where in `messages` each `resume` answer came from, so refusals point there. */
  readonly answerPaths: readonly AnswerPath[]
  /** The body sent one `message` rather than `messages`. */
  readonly single: boolean
  /** The browser-tool outputs among the answers, told back as held when the step still waits (heldOutputs.ts). */
  readonly outputs: readonly GivenOutput[]
}

/** The part an answer came from, and where in it its interrupt id and its value sit. */
export interface AnswerPath {
  readonly part: string
  readonly interruptId: string
  readonly value: string
}

const THREAD_ID = /^[A-Za-z0-9_.:-]+$/

/** Checks the body's shape and picks out the new turn or the answers; 400 with `path` otherwise. */
export function parseUIMessageRequest(body: Record<string, unknown>): UIMessageRequest {
  const { id, trigger, messages } = body
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_THREAD_ID_LENGTH || !THREAD_ID.test(id)) {
    throw invalid(`\`id\` (the chat id, which is the thread's) must be 1 to ${MAX_THREAD_ID_LENGTH} letters, digits, \`_\`, \`-\`, \`.\` or \`:\``, 'id')
  }
  if (trigger === 'regenerate-message') {
    throw invalid('Regenerating a reply is not supported: the server keeps the thread, whose history is never rewritten; send a new message', 'trigger')
  }
  if (trigger !== undefined && trigger !== 'submit-message') throw invalid("`trigger` must be 'submit-message'", 'trigger')
  const single = !Array.isArray(messages)
  const checked = !single ? messages.map((message, index) => checkMessage(message, index, `messages[${index}]`)) : [checkMessage(body.message, 0, 'message')]
  const last = checked.at(-1)
  if (!last) throw invalid('`messages` must end with the new user message, or the assistant message with your answers', 'messages')

  if (last.role === 'user') {
    return { parsed: { threadId: id, message: userText(last), agui: true, history: historyOf(checked.slice(0, -1)) }, knownCalls: new Map(), answerPaths: [], single, outputs: [] }
  }
  if (last.role !== 'assistant') throw invalid('The last message must be a user message (a new turn) or the assistant message with your answers', `${last.path}.role`)
  const { answers, paths, outputs } = answersOf(last)
  if (answers.length === 0 && outputs.length === 0) {
    throw invalid(
      'The last message is the assistant message but answers nothing: respond to an approval (`addToolApprovalResponse`) or add a browser tool output (`addToolOutput`), or send a new user message',
      last.path,
    )
  }
  const knownCalls = new Map(
    last.parts.flatMap((part) => (isToolPart(part) && typeof part.toolCallId === 'string' ? [[part.toolCallId, stringOf(toolgateOf(part.callProviderMetadata)?.messageId)] as const] : [])),
  )
  // Browser outputs go as AG-UI `tool` messages do, by call: one restating the output the server
  // already holds (a page sends its own record of it again) is then no answer rather than a 409.
  const toolMessages: ToolResultMessage[] = outputs.map(({ toolCallId, answer }) => ({ index: last.index, id: undefined, toolCallId, answer }))
  return { parsed: { threadId: id, resume: answers, agui: true, history: historyOf(checked), toolMessages }, knownCalls, answerPaths: paths, single, outputs }
}

/**
 * Points a refusal of the handler's at the part it is about: `resume[2].interruptId` becomes
 * `messages[3].parts[1].approval.id`, and a history conflict at `messages[0]` of a body that sent
 * one `message` becomes `message`.
 */
export function atRequestPath(error: HttpError, request: UIMessageRequest): HttpError {
  if (request.single && error.path === 'messages[0]') return new HttpError(error.status, error.code, error.message, 'message')
  // A refused browser output names its `tool` message (parseUIMessageRequest made one per output):
  // the part's field when the message gave one output, else the message that gave them.
  const output = /^messages\[\d+\]\.(toolCallId|content|error)$/.exec(error.path ?? '')
  const [given] = request.outputs
  if (output && given) {
    const field = output[1] === 'toolCallId' ? '.toolCallId' : output[1] === 'content' ? '.output' : '.errorText'
    const path = request.outputs.length === 1 ? given.path + field : given.path.replace(/\.parts\[\d+\]$/, '')
    return new HttpError(error.status, error.code, error.message, path)
  }
  const match = error.path === undefined ? null : /^resume\[(\d+)\](\.interruptId|\.[\w.[\]]+)?$/.exec(error.path)
  const from = match ? request.answerPaths[Number(match[1])] : undefined
  if (!match || !from) return error
  const rest = match[2]
  const path = rest === undefined ? from.part : rest === '.interruptId' ? from.interruptId : rest.startsWith('.output') || rest.startsWith('.error') ? from.value : from.part
  return new HttpError(error.status, error.code, error.message, path)
}

interface CheckedMessage {
  readonly index: number
  readonly path: string
  readonly id: string | undefined
  readonly role: unknown
  readonly parts: readonly Record<string, unknown>[]
}

function checkMessage(message: unknown, index: number, path: string): CheckedMessage {
  if (!isRecord(message)) throw invalid('A message must be an object', path)
  if (message.role !== 'user' && message.role !== 'assistant' && message.role !== 'system') throw invalid("`role` must be 'user', 'assistant' or 'system'", `${path}.role`)
  if (!Array.isArray(message.parts)) throw invalid('`parts` must be an array', `${path}.parts`)
  message.parts.forEach((part, at) => {
    if (!isRecord(part) || typeof part.type !== 'string') throw invalid('A part must be an object with a `type`', `${path}.parts[${at}]`)
  })
  return { index, path, id: typeof message.id === 'string' ? message.id : undefined, role: message.role, parts: message.parts as Record<string, unknown>[] }
}

/** The new turn's text. A user message holds text only on the server: other parts are refused, not dropped. */
function userText(message: CheckedMessage): string {
  let text = ''
  for (const [at, part] of message.parts.entries()) {
    if (part.type === 'step-start') continue
    if (part.type !== 'text' || typeof part.text !== 'string') {
      throw invalid(`A user message may hold only text parts; a \`${String(part.type)}\` part is not taken`, `${message.path}.parts[${at}]`)
    }
    text += part.text
  }
  if (text.trim() === '') throw invalid('The user message needs text', `${message.path}.parts`)
  return text
}

/**
 * The answers in the continued message: approval responses, and outputs of browser tools the
 * server handed over (their part names the interrupt) that it has not stored a result for yet.
 */
function answersOf(message: CheckedMessage): { answers: ResumeAnswer[]; paths: AnswerPath[]; outputs: GivenOutput[] } {
  const answers: ResumeAnswer[] = []
  const paths: AnswerPath[] = []
  const outputs: GivenOutput[] = []
  for (const [at, part] of message.parts.entries()) {
    // A part the server handed out as `answered` repeats an answer it holds: taking it again would refuse the request (409).
    if (!isToolPart(part) || toolgateOf(part.callProviderMetadata)?.answered === true) continue
    const path = `${message.path}.parts[${at}]`
    if (part.state === 'approval-responded') {
      const { approval } = part
      if (!isRecord(approval)) throw invalid('An answered approval needs its `approval`', `${path}.approval`)
      if (typeof approval.id !== 'string' || approval.id === '') throw invalid('`approval.id` must be the id of the approval request', `${path}.approval.id`)
      if (typeof approval.approved !== 'boolean') throw invalid('`approval.approved` must be a boolean', `${path}.approval.approved`)
      if (approval.reason !== undefined && typeof approval.reason !== 'string') throw invalid('`approval.reason` must be a string', `${path}.approval.reason`)
      answers.push({ interruptId: approval.id, approved: approval.approved, ...(typeof approval.reason === 'string' && !approval.approved ? { reason: approval.reason } : {}) })
      paths.push({ part: path, interruptId: `${path}.approval.id`, value: `${path}.approval` })
      continue
    }
    const interruptId = toolgateOf(part.callProviderMetadata)?.interruptId
    if (typeof interruptId !== 'string' || toolgateOf(part.resultProviderMetadata)?.resultId !== undefined) continue
    let answer: GivenOutput['answer']
    if (part.state === 'output-available') {
      if (part.output === undefined) throw invalid('`output` must be a JSON value', `${path}.output`)
      answer = { output: part.output }
    } else if (part.state === 'output-error') {
      if (typeof part.errorText !== 'string') throw invalid('`errorText` must be a string', `${path}.errorText`)
      answer = { error: part.errorText }
    } else continue
    const toolName = part.type === 'dynamic-tool' ? stringOf(part.toolName) ?? '' : part.type.slice('tool-'.length)
    outputs.push({ toolCallId: String(part.toolCallId), toolName, input: part.input, messageId: stringOf(toolgateOf(part.callProviderMetadata)?.messageId), interruptId, answer, path })
  }
  return { answers, paths, outputs }
}

/**
 * The client's earlier messages as the history check compares them. An assistant `UIMessage`
 * spans a whole turn (several model steps, their results, and runs resumed after answers); each of
 * its text and call parts names the stored message (model step) it comes from, so it becomes one
 * entry per stored message, plus an entry for each result the server sent.
 */
function historyOf(messages: readonly CheckedMessage[]): ClientHistoryMessage[] {
  return messages.flatMap((message): ClientHistoryMessage[] => {
    const base = { index: message.index, toolCallId: undefined, toolCallIds: [] }
    if (message.role === 'user') {
      const text = message.parts.map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('')
      return [{ ...base, role: 'user', id: message.id, text }]
    }
    if (message.role !== 'assistant') return []
    const steps = new Map<string | undefined, { text: string | undefined; toolCallIds: string[] }>()
    const results: ClientHistoryMessage[] = []
    const stepOf = (id: string | undefined) => {
      let step = steps.get(id)
      if (!step) steps.set(id, (step = { text: undefined, toolCallIds: [] }))
      return step
    }
    for (const part of message.parts) {
      if (part.type === 'text' && typeof part.text === 'string') {
        const step = stepOf(stringOf(toolgateOf(part.providerMetadata)?.messageId))
        step.text = (step.text ?? '') + part.text
      } else if (isToolPart(part) && typeof part.toolCallId === 'string') {
        // A subagent's call (and its result) is its own: the thread stores the call of its agent.
        if (toolgateOf(part.callProviderMetadata)?.subagentRunId !== undefined) continue
        stepOf(stringOf(toolgateOf(part.callProviderMetadata)?.messageId)).toolCallIds.push(part.toolCallId)
        const settled = stringOf(toolgateOf(part.resultProviderMetadata)?.resultId) !== undefined || part.state === 'output-denied'
        if (settled) {
          const text = part.state === 'output-error' && typeof part.errorText === 'string' ? part.errorText : undefined
          results.push({ ...base, role: 'tool', id: undefined, text, toolCallId: part.toolCallId })
        }
      }
    }
    const assistants = [...steps].map(([id, step]): ClientHistoryMessage => ({ ...base, role: 'assistant', id, text: step.text, toolCallIds: step.toolCallIds }))
    return [...assistants, ...results]
  })
}

function isToolPart(part: Record<string, unknown>): part is Record<string, unknown> & { type: string } {
  return typeof part.type === 'string' && (part.type.startsWith('tool-') || part.type === 'dynamic-tool')
}

function toolgateOf(metadata: unknown): Record<string, unknown> | undefined {
  return isRecord(metadata) && isRecord(metadata.toolgate) ? metadata.toolgate : undefined
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

function invalid(message: string, path: string): HttpError {
  return new HttpError(400, 'INVALID_REQUEST', message, path)
}
