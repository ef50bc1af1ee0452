import { isRecord } from '../../util/isRecord.ts'
import { capText } from '../../util/capText.ts'
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../util/jsonDepth.ts'
import type { AppCallRequest, PostRequest, MessageRequest, ResumeAnswer, ResumeRequest } from '../../protocol/requests.ts'
import type { GrantRequest } from '../../protocol/decisions.ts'
import { MAX_GRANT_TTL_MS } from '../decisions/grants.ts'
import { HttpError } from '../errors.ts'
import { requestHeader, wholeBody } from '../appRequest.ts'

// What a POST may carry, checked before anything else looks at it: a JSON body within the size
// limit, of one of the request shapes.

/** Thread ids: letters, digits, `_`, `-`, `.`, `:`; at most this many characters. */
export const MAX_THREAD_ID_LENGTH = 128
export const THREAD_ID = /^[A-Za-z0-9_.:-]+$/

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

/** Checks a POST body's shape (the compact protocol; other clients' bodies are their dialects': dialects/); the message says what is wrong and `path` where. */
export function parsePostRequest(body: unknown): PostRequest {
  if (!isRecord(body)) throw invalid('The body must be a JSON object', '(root)')
  const threadId = body.threadId === undefined ? undefined : checkedThreadId(body.threadId)
  if ('revokeGrant' in body) {
    if (typeof threadId !== 'string') throw invalid('`threadId` is required with `revokeGrant`', 'threadId')
    if (typeof body.revokeGrant !== 'string' || body.revokeGrant === '') throw invalid('`revokeGrant` must be a grant id', 'revokeGrant')
    return { threadId, revokeGrant: body.revokeGrant }
  }
  if ('appCall' in body) return parseAppCall(body.appCall, threadId)
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

function parseAppCall(appCall: unknown, threadId: string | undefined): AppCallRequest {
  if (threadId === undefined) throw invalid('`threadId` is required with `appCall`', 'threadId')
  if (!isRecord(appCall)) throw invalid('`appCall` must be `{ toolCallId, name, arguments }`', 'appCall')
  const { toolCallId, name, arguments: args = {} } = appCall
  if (typeof toolCallId !== 'string' || toolCallId === '' || toolCallId.length > 128) throw invalid('`toolCallId` must be the id of the call whose app asks', 'appCall.toolCallId')
  if (typeof name !== 'string' || name === '') throw invalid('`name` must be a tool name', 'appCall.name')
  if (!isRecord(args)) throw invalid('`arguments` must be an object', 'appCall.arguments')
  return { threadId, appCall: { toolCallId, name, arguments: args } }
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
  const { approved, reason, editedArgs, subagentRunId } = entry
  if (typeof approved !== 'boolean') throw invalid('`approved` must be a boolean', `${path}.approved`)
  if (subagentRunId !== undefined && (typeof subagentRunId !== 'string' || subagentRunId === '')) throw invalid('`subagentRunId` must be a non-empty string', `${path}.subagentRunId`)
  if (reason !== undefined && typeof reason !== 'string') throw invalid('`reason` must be a string', `${path}.reason`)
  if ('editedArgs' in entry && !approved) throw invalid('`editedArgs` only goes with `approved: true`', `${path}.editedArgs`)
  const grant = entry.grant === undefined ? undefined : parseGrant(entry.grant, approved, `${path}.grant`)
  return {
    interruptId,
    approved,
    ...(grant === undefined ? {} : { grant }),
    ...(reason === undefined ? {} : { reason }),
    ...('editedArgs' in entry ? { editedArgs } : {}),
    ...(subagentRunId === undefined ? {} : { subagentRunId: subagentRunId as string }),
  }
}

export function invalid(message: string, path: string): HttpError {
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
    const whole = wholeBody(request)
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
