import { InvalidOptionError } from '../../errors.ts'
import type { ProviderMetadata, ThreadMessage, ThreadToolMessage } from '../../protocol/messages.ts'
import type { ChatModel, FinishReason, ModelChunk, ModelRequest, ModelUsage } from '../../model/chatModel.ts'
import { isRecord } from '../../util/isRecord.ts'
import { parseToolArguments } from '../../util/parseToolArguments.ts'
import {
  callWithRetries,
  checkCallOptions,
  endedEarly,
  mergeHeaders,
  parseEvent,
  postForEvents,
  readError,
  streamError,
  trimSlash,
  warnWithoutKey,
  type CallOptions,
} from './http.ts'
import { ToolDialect } from './toolDialect.ts'
import { loadToolFiles, type AcceptsFile, type ToolFile } from './toolFiles.ts'

export interface GeminiModelOptions extends CallOptions {
  /** `gemini-2.5-flash`, `gemini-2.5-pro`, ... */
  readonly model: string
  /** Sent as `x-goog-api-key`; left out when not given (a proxy that adds it). */
  readonly apiKey?: string
  /** Default `https://generativelanguage.googleapis.com/v1beta`. */
  readonly baseURL?: string
  /**
   * How tool schemas are declared: `gemini-json-schema` (`parametersJsonSchema`, JSON Schema as
   * written; Gemini 2.5 and later) or `gemini` (`parameters`, Gemini's OpenAPI subset, for older
   * models; what it cannot say moves into the description). Default `gemini-json-schema`.
   */
  readonly schemaDialect?: 'gemini' | 'gemini-json-schema'
  /**
   * Send the images (PNG, JPEG, WebP), PDFs and plain-text files that tools return as `parts` of
   * their `functionResponse` (multimodal function responses, Gemini 3 and later), so the model sees
   * them. Set `false` for older models: every file then reaches the model as the line describing
   * it in the result, as files of other types always do. Default `true`.
   */
  readonly toolResultFiles?: boolean
  /** The system instruction. */
  readonly system?: string
  readonly temperature?: number
  /** `generationConfig.maxOutputTokens`. */
  readonly maxOutputTokens?: number
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>
  /** Extra body fields, e.g. `{ generationConfig: { thinkingConfig: { includeThoughts: true } } }`. */
  readonly body?: Readonly<Record<string, unknown>>
}

const PROVIDER = 'Gemini'

/**
 * A `ChatModel` over the Gemini API's `streamGenerateContent` (SSE), with no SDK: text, thoughts,
 * parallel function calls (with their thought signatures carried across turns), finish reason and
 * usage. Tools are declared as `functionDeclarations` in the chosen dialect; calls come back under
 * the tools' own names and in their own argument shape (see `toolDialect.ts`).
 *
 * @example
 * createChatHandler({ model: geminiModel({ model: 'gemini-2.5-flash', apiKey: process.env.GEMINI_API_KEY }), tools })
 */
export function geminiModel(options: GeminiModelOptions): ChatModel {
  checkCallOptions('geminiModel', options)
  warnWithoutKey('geminiModel', options, { env: 'GEMINI_API_KEY', header: 'x-goog-api-key', baseURL: 'https://generativelanguage.googleapis.com/v1beta' })
  const dialect = options.schemaDialect ?? 'gemini-json-schema'
  if (dialect !== 'gemini' && dialect !== 'gemini-json-schema') throw new InvalidOptionError('geminiModel', 'schemaDialect', 'must be "gemini" or "gemini-json-schema"')
  const base = trimSlash(options.baseURL || 'https://generativelanguage.googleapis.com/v1beta')
  const url = `${base}/models/${encodeURIComponent(options.model)}:streamGenerateContent?alt=sse`
  return {
    name: options.model,
    stream: (request) => callWithRetries(PROVIDER, options, request.signal, (signal) => streamGemini(options, dialect, url, { ...request, signal })),
  }
}

async function* streamGemini(
  options: GeminiModelOptions,
  target: 'gemini' | 'gemini-json-schema',
  url: string,
  request: ModelRequest,
): AsyncGenerator<ModelChunk> {
  const dialect = new ToolDialect(request.tools, target, {})
  const generationConfig = {
    ...(isRecord(options.body?.generationConfig) ? options.body.generationConfig : {}),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
  }
  const body = {
    ...options.body,
    contents: toGeminiContents(request.messages, dialect, await loadToolFiles(request, acceptsFile, options.toolResultFiles)),
    ...(options.system ? { systemInstruction: { parts: [{ text: options.system }] } } : {}),
    // A fresh copy: the declarations are frozen and cached, and some gateways edit what they get.
    ...(dialect.declarations.length > 0 ? { tools: [{ functionDeclarations: structuredClone(dialect.declarations) }] } : {}),
    ...(Object.keys(generationConfig).length > 0 ? { generationConfig } : {}),
  }
  const headers = mergeHeaders(options.apiKey ? { 'x-goog-api-key': options.apiKey } : undefined, options.headers)
  const events = await postForEvents({ provider: PROVIDER, fetch: options.fetch, url, headers, body, signal: request.signal })

  const calls = dialect.calls()
  let reason: FinishReason | undefined
  let usage: ModelUsage | undefined
  let thoughts = ''
  let thoughtSignature: string | undefined
  let sawCall = false
  try {
    for await (const data of events) {
      const chunk = parseEvent(PROVIDER, data)
      if (chunk.error !== undefined && chunk.error !== null) throw streamError(PROVIDER, chunk.error)
      if (isRecord(chunk.usageMetadata)) usage = usageOf(chunk.usageMetadata)
      const candidate = Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined
      if (!isRecord(candidate)) {
        // A prompt blocked before any candidate: Gemini says why in `promptFeedback`.
        if (isRecord(chunk.promptFeedback) && typeof chunk.promptFeedback.blockReason === 'string') reason = 'content_filter'
        continue
      }
      const parts = isRecord(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : []
      for (const part of parts) {
        if (!isRecord(part)) continue
        if (part.thought === true) {
          if (typeof part.text === 'string' && part.text !== '') {
            thoughts += part.text
            yield { type: 'reasoning-delta', delta: part.text }
          }
          if (typeof part.thoughtSignature === 'string') thoughtSignature = part.thoughtSignature
          continue
        }
        if (isRecord(part.functionCall)) {
          // Gemini sends each call whole, arguments as an object, possibly several in one chunk.
          sawCall = true
          const call = part.functionCall
          const started = calls.start(typeof call.id === 'string' && call.id !== '' ? call.id : undefined, typeof call.name === 'string' ? call.name : '')
          yield* started.chunks
          yield* calls.delta(started.id, JSON.stringify(isRecord(call.args) ? call.args : {}))
          const gemini = {
            ...(typeof part.thoughtSignature === 'string' ? { thoughtSignature: part.thoughtSignature } : {}),
            ...(typeof call.id === 'string' && call.id !== '' ? { id: call.id } : {}),
          }
          yield* calls.end(started.id, Object.keys(gemini).length > 0 ? { gemini } : undefined)
          continue
        }
        if (typeof part.text === 'string' && part.text !== '') yield { type: 'text-delta', delta: part.text }
        if (typeof part.thoughtSignature === 'string') thoughtSignature = part.thoughtSignature
      }
      if (typeof candidate.finishReason === 'string') reason = finishReason(candidate.finishReason, sawCall)
    }
  } catch (error) {
    throw readError(PROVIDER, error, request.signal)
  }
  if (reason === undefined) throw endedEarly(PROVIDER)
  yield* calls.endAll()
  if (thoughts !== '' || thoughtSignature !== undefined) {
    const providerMetadata: ProviderMetadata | undefined = thoughtSignature ? { gemini: { thoughtSignature } } : undefined
    yield { type: 'reasoning', text: thoughts, ...(providerMetadata ? { providerMetadata } : {}) }
  }
  yield { type: 'finish', reason, ...(usage ? { usage } : {}) }
}

type Part = Record<string, unknown>

/**
 * The neutral history as Gemini `contents`: `user` and `model` turns, function responses as parts
 * of a user turn (merged, as Gemini wants the turns alternating), each call's thought signature
 * sent back on its part.
 */
function toGeminiContents(
  messages: readonly ThreadMessage[],
  dialect: ToolDialect<'gemini' | 'gemini-json-schema'>,
  files: ReadonlyMap<ThreadToolMessage, readonly ToolFile[]>,
): unknown[] {
  const out: { role: 'user' | 'model'; parts: Part[] }[] = []
  const push = (role: 'user' | 'model', parts: Part[]) => {
    if (parts.length === 0) return
    const last = out.at(-1)
    if (last?.role === role) last.parts.push(...parts)
    else out.push({ role, parts })
  }
  /** Gemini's own call ids (newer models send them), to answer each response under its call's id. */
  const geminiIds = new Map<string, string>()
  for (const message of messages) {
    if (message.role === 'user') push('user', message.content === '' ? [] : [{ text: message.content }])
    else if (message.role === 'tool') {
      const id = geminiIds.get(message.toolCallId)
      push('user', [
        {
          functionResponse: {
            ...(id ? { id } : {}),
            name: dialect.providerName(message.toolName),
            response: responseOf(message.content, message.status),
            ...(files.has(message) ? { parts: files.get(message)!.map(filePart) } : {}),
          },
        },
      ])
    } else {
      for (const call of message.toolCalls) {
        const id = call.providerMetadata?.gemini?.id
        if (typeof id === 'string') geminiIds.set(call.id, id)
      }
      const signature = message.reasoning?.map((block) => block.providerMetadata?.gemini?.thoughtSignature).find((s) => typeof s === 'string')
      push('model', [
        ...(message.content === '' ? [] : [{ text: message.content, ...(signature && message.toolCalls.length === 0 ? { thoughtSignature: signature } : {}) }]),
        ...message.toolCalls.map((call) => {
          const meta = call.providerMetadata?.gemini
          return {
            functionCall: {
              ...(typeof meta?.id === 'string' ? { id: meta.id } : {}),
              name: dialect.providerName(call.name),
              args: dialect.providerArguments(call.name, call.arguments),
            },
            ...(typeof meta?.thoughtSignature === 'string' ? { thoughtSignature: meta.thoughtSignature } : {}),
          }
        }),
      ])
    }
  }
  return out
}

/** Bytes only: Gemini's `fileData` takes its own file URIs, not the web addresses tools return. */
const acceptsFile: AcceptsFile = (mediaType, source) => source === 'bytes' && /^(image\/(png|jpeg|webp)|application\/pdf|text\/plain)$/.test(mediaType)

function filePart(file: ToolFile): Part {
  const displayName = file.filename ? { displayName: file.filename } : {}
  return 'url' in file
    ? { fileData: { mimeType: file.mediaType, fileUri: file.url, ...displayName } }
    : { inlineData: { mimeType: file.mediaType, data: file.base64, ...displayName } }
}

/** `functionResponse.response` must be an object: the output under `output`, an error under `error`. */
function responseOf(content: string, status: string): Record<string, unknown> {
  if (status !== 'success') return { error: content }
  const parsed = parseToolArguments(content)
  return { output: parsed.ok ? parsed.value : content }
}

function finishReason(reason: string, sawCall: boolean): FinishReason {
  switch (reason) {
    case 'STOP':
      // Gemini ends a turn of function calls with STOP too.
      return sawCall ? 'tool_calls' : 'stop'
    case 'FUNCTION_CALL':
      return 'tool_calls'
    case 'MAX_TOKENS':
      return 'length'
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
      return 'content_filter'
    default:
      return 'other'
  }
}

/** Gemini counts thoughts apart from the candidates; `outputTokens` includes them, as the contract says. */
function usageOf(usage: Record<string, unknown>): ModelUsage {
  const num = (value: unknown) => (typeof value === 'number' ? value : undefined)
  const candidates = num(usage.candidatesTokenCount)
  const thoughts = num(usage.thoughtsTokenCount)
  const output = candidates === undefined && thoughts === undefined ? undefined : (candidates ?? 0) + (thoughts ?? 0)
  const input = num(usage.promptTokenCount)
  const cached = num(usage.cachedContentTokenCount)
  return {
    ...(input === undefined ? {} : { inputTokens: input }),
    ...(output === undefined ? {} : { outputTokens: output }),
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
    ...(thoughts === undefined ? {} : { reasoningTokens: thoughts }),
  }
}
