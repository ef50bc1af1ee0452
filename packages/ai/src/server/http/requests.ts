import { isRecord } from '../../util/isRecord.ts'
import { capText } from '../../util/capText.ts'
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../util/jsonDepth.ts'
import type { PostRequest, MessageRequest, ResumeAnswer, ResumeRequest } from '../../protocol/requests.ts'
import type { GrantRequest } from '../../protocol/decisions.ts'
import { MAX_GRANT_TTL_MS } from '../decisions/grants.ts'
import { clientHistoryOf, type ClientHistoryMessage } from '../agui/clientHistory.ts'
import { HttpError } from '../errors.ts'
import { NodeRequest, requestHeader } from './nodeRequest.ts'

// What a POST may carry, checked before anything else looks at it: a JSON body within the size
// limit, of one of the request shapes.

/**
 * A parsed POST. `agui` marks an AG-UI `RunAgentInput`: its client chose the thread id (created on
 * first use when `authorize` allows `create`) and expects AG-UI events even where the compact
 * protocol answers JSON (a resume that leaves interrupts open).
 */
export type ParsedRequest = PostRequest & AguiFields

/** What an AG-UI `RunAgentInput` adds: its `messages` before the new turn, checked against the thread. */
export interface AguiFields {
  readonly agui?: true
  readonly history?: readonly ClientHistoryMessage[]
  /** `RunAgentInput.tools`, as sent: only those the app accepts are read (see frontendTools.ts). */
  readonly declaredTools?: readonly unknown[]
  /** The `tool` messages of `messages` before the new turn: answers to calls that wait for the browser, or history (claim/toolMessages.ts). */
  readonly toolMessages?: readonly ToolResultMessage[]
  /** `messages` ends with a `tool` message: the input means to answer something. */
  readonly endsWithTool?: true
  /** The client's id of its new user message: stored under it (when free), so client and thread agree. */
  readonly messageId?: string
}

/** An AG-UI `tool` message as an answer: its result (`content`, read as JSON when it parses) or its `error`. */
export interface ToolResultMessage {
  /** Its index in `messages`, for the error's path. */
  readonly index: number
  readonly id: string | undefined
  readonly toolCallId: string
  readonly answer: { readonly output: unknown } | { readonly error: string }
}

/** Thread ids: letters, digits, `_`, `-`, `.`, `:`; at most this many characters. */
export const MAX_THREAD_ID_LENGTH = 128
const THREAD_ID = /^[A-Za-z0-9_.:-]+$/

/**
 * A thread id from a request (body or query), checked before any store sees it: every id the
 * server makes fits, and so must a client's. A NUL or another control character would otherwise
 * reach a store that cannot hold it (PostgreSQL `text` refuses U+0000) and fail there.
 */
export function checkedThreadId(threadId: unknown, path = 'threadId'): string {
  if (typeof threadId !== 'string' || threadId === '') throw invalid('`threadId` must be a non-empty string', path)
  if (threadId.length > MAX_THREAD_ID_LENGTH || !THREAD_ID.test(threadId)) {
    throw invalid(`\`threadId\` must be 1 to ${MAX_THREAD_ID_LENGTH} letters, digits, \`_\`, \`-\`, \`.\` or \`:\``, path)
  }
  return threadId
}

/** Checks a POST body's shape; the message says what is wrong and `path` where. */
export function parsePostRequest(body: unknown): ParsedRequest {
  if (!isRecord(body)) throw invalid('The body must be a JSON object', '(root)')
  if ('messages' in body || 'runId' in body) return parseRunAgentInput(body)
  const threadId = body.threadId === undefined ? undefined : checkedThreadId(body.threadId)
  if ('revokeGrant' in body) {
    if (typeof threadId !== 'string') throw invalid('`threadId` is required with `revokeGrant`', 'threadId')
    if (typeof body.revokeGrant !== 'string' || body.revokeGrant === '') throw invalid('`revokeGrant` must be a grant id', 'revokeGrant')
    return { threadId, revokeGrant: body.revokeGrant }
  }
  if ('review' in body) {
    if (typeof body.review !== 'string' || body.review === '') throw invalid('`review` must be the review link\'s token', 'review')
    if ('message' in body || 'resume' in body || 'stop' in body) throw invalid('Send `review` with its `answer` alone', '(root)')
    const answer = parseAnswer(body.answer, 'answer')
    if (!('approved' in answer)) throw invalid('A review answers with `approved` (and `editedArgs` or `reason`)', 'answer')
    return { review: body.review, answer, ...(typeof threadId === 'string' ? { threadId } : {}) }
  }
  if ('stop' in body) {
    if (body.stop !== true) throw invalid('`stop` must be `true`', 'stop')
    if (typeof threadId !== 'string') throw invalid('`threadId` is required with `stop`', 'threadId')
    if ('message' in body || 'resume' in body) throw invalid('Send `stop` alone', '(root)')
    return { threadId, stop: true }
  }
  const hasMessage = 'message' in body
  const hasResume = 'resume' in body
  if (hasMessage === hasResume) throw invalid('Send either `message` (a new turn) or `resume` (answers to interrupts)', '(root)')
  if (hasMessage) return parseMessage(body.message, threadId)
  if (threadId === undefined) throw invalid('`threadId` is required with `resume`', 'threadId')
  return parseResume(body.resume, threadId)
}

function parseMessage(message: unknown, threadId: string | undefined): MessageRequest {
  if (typeof message !== 'string' || message.trim() === '') throw invalid('`message` must be a non-empty string', 'message')
  return threadId === undefined ? { message } : { threadId, message }
}

function parseResume(resume: unknown, threadId: string): ResumeRequest {
  if (!Array.isArray(resume) || resume.length === 0) throw invalid('`resume` must be a non-empty array of answers', 'resume')
  const seen = new Set<string>()
  const answers = resume.map((entry, index) => {
    const answer = parseAnswer(entry, `resume[${index}]`)
    if (seen.has(answer.interruptId)) throw invalid('The same interrupt is answered twice', `resume[${index}].interruptId`)
    seen.add(answer.interruptId)
    return answer
  })
  return { threadId, resume: answers }
}

function parseGrant(grant: unknown, approved: boolean, path: string): GrantRequest {
  if (!approved) throw invalid('`grant` only goes with `approved: true`', path)
  if (!isRecord(grant)) throw invalid('`grant` must be `{ sameArguments?, ttlMs? }`', path)
  const { sameArguments, ttlMs } = grant
  if (sameArguments !== undefined && typeof sameArguments !== 'boolean') throw invalid('`sameArguments` must be a boolean', `${path}.sameArguments`)
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && (ttlMs as number) > 0 && (ttlMs as number) <= MAX_GRANT_TTL_MS)) {
    throw invalid(`\`ttlMs\` must be a positive integer of milliseconds, at most ${MAX_GRANT_TTL_MS} (a year; leave it out for the thread's life)`, `${path}.ttlMs`)
  }
  return { ...(sameArguments === undefined ? {} : { sameArguments }), ...(ttlMs === undefined ? {} : { ttlMs: ttlMs as number }) }
}

export function parseAnswer(entry: unknown, path: string): ResumeAnswer {
  if (!isRecord(entry)) throw invalid('An answer must be an object', path)
  const { interruptId } = entry
  if (typeof interruptId !== 'string' || interruptId === '') throw invalid('`interruptId` must be a non-empty string', `${path}.interruptId`)
  const kinds = (['approved', 'output', 'error'] as const).filter((key) => key in entry)
  if (kinds.length !== 1) {
    throw invalid('An answer carries exactly one of `approved` (an approval), `output` or `error` (a client tool result)', path)
  }
  if (kinds[0] === 'output') {
    if (entry.output === undefined) throw invalid('`output` must be a JSON value', `${path}.output`)
    return { interruptId, output: entry.output }
  }
  if (kinds[0] === 'error') {
    if (typeof entry.error !== 'string') throw invalid('`error` must be a string', `${path}.error`)
    return { interruptId, error: entry.error }
  }
  const { approved, reason, editedArgs } = entry
  if (typeof approved !== 'boolean') throw invalid('`approved` must be a boolean', `${path}.approved`)
  if (reason !== undefined && typeof reason !== 'string') throw invalid('`reason` must be a string', `${path}.reason`)
  if ('editedArgs' in entry && !approved) throw invalid('`editedArgs` only goes with `approved: true`', `${path}.editedArgs`)
  const grant = entry.grant === undefined ? undefined : parseGrant(entry.grant, approved, `${path}.grant`)
  return {
    interruptId,
    approved,
    ...(grant === undefined ? {} : { grant }),
    ...(reason === undefined ? {} : { reason }),
    ...('editedArgs' in entry ? { editedArgs } : {}),
  }
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
function parseRunAgentInput(body: Record<string, unknown>): ParsedRequest {
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
  const aguiFields = { agui: true, history: clientHistoryOf(before), declaredTools, toolMessages } as const
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
    if (!isRecord(message) || message.role !== 'tool') return []
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
      return parseAnswer({ ...payload, interruptId }, `${path}.payload`)
    }
    if (payload === undefined) throw invalid('A resolved entry needs a `payload`', `${path}.payload`)
    return { interruptId, output: payload }
  })
}

function invalid(message: string, path: string): HttpError {
  return new HttpError(400, 'INVALID_REQUEST', message, path)
}

/**
 * Reads a JSON body without ever buffering more than `maxBytes`. Requiring a JSON content type
 * also makes cross-site form posts impossible (they would need a CORS preflight).
 */
export function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  try {
    const type = requestHeader(request, 'content-type') ?? ''
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
      throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with `content-type: application/json`')
    }
    const declared = Number(requestHeader(request, 'content-length'))
    if (declared > maxBytes) throw tooLarge(maxBytes)
    // A body read whole under `toNodeHandler` (a chat message) is parsed in one step from its bytes:
    // no async function per stage, only the promise the bytes come in.
    const whole = request instanceof NodeRequest ? request.wholeBody() : undefined
    if (whole) return whole.then((bytes) => parseJson(decodeWhole(bytes, maxBytes)))
    return readText(request, maxBytes).then(parseJson)
  } catch (error) {
    return Promise.reject(error)
  }
}

function parseJson(text: string): unknown {
  // Checked on the text, before parsing: a deep answer would overflow whatever walks it later.
  if (exceedsJsonDepth(text)) throw new HttpError(400, 'JSON_TOO_DEEP', `The body nests deeper than the limit of ${MAX_JSON_DEPTH} levels`)
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new HttpError(400, 'INVALID_JSON', `The body is not valid JSON: ${capText((error as Error).message, 200)}`)
  }
}

/** Decodes whole bodies: one decoder serves every request (a decoder per call costs more than a short body's parse). */
const utf8 = new TextDecoder()

function decodeWhole(bytes: Uint8Array, maxBytes: number): string {
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes)
  return utf8.decode(bytes)
}

async function readText(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return ''
  const reader = request.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    size += value.byteLength
    if (size > maxBytes) {
      reader.cancel().catch(() => {})
      throw tooLarge(maxBytes)
    }
    text += decoder.decode(value, { stream: true })
  }
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${maxBytes} bytes`)
}
