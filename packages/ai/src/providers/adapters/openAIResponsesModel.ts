import type { ProviderMetadata, ThreadMessage, ThreadToolMessage } from '../../protocol/messages.ts'
import type { ChatModel, FinishReason, ModelChunk, ModelRequest, ModelUsage } from '../../model/chatModel.ts'
import { isRecord } from '../../util/isRecord.ts'
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
import { dataUrlOf, loadToolFiles, type AcceptsFile, type ToolFile } from './toolFiles.ts'

export interface OpenAIResponsesModelOptions extends CallOptions {
  /** `gpt-5`, `o4-mini`, `gpt-4.1`, ... */
  readonly model: string
  /** Sent as `Authorization: Bearer`; left out when not given. */
  readonly apiKey?: string
  /** Default `https://api.openai.com/v1`. */
  readonly baseURL?: string
  /** Declare function tools with `strict: true`; what the model sends is mapped back before validation. Default `false`. */
  readonly strict?: boolean
  /**
   * Send the images (PNG, JPEG, WebP, GIF) and PDFs that tools return inside their
   * `function_call_output` (as `input_image` / `input_file` items), so the model sees them. Set
   * `false` for OpenAI-compatible servers that take only text there: every file then reaches the
   * model as the line describing it in the result, as files of other types always do. Default `true`.
   */
  readonly toolResultFiles?: boolean
  /** Sent as `instructions`. */
  readonly system?: string
  readonly temperature?: number
  /** `reasoning.effort` for reasoning models; `summary: 'auto'` is asked for so the user sees the reasoning. */
  readonly reasoningEffort?: 'minimal' | 'low' | 'medium' | 'high'
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>
  /** Extra body fields, e.g. `{ parallel_tool_calls: false, max_output_tokens: 1024 }`. */
  readonly body?: Readonly<Record<string, unknown>>
}

const PROVIDER = 'OpenAI'

/**
 * A `ChatModel` over the OpenAI Responses API, streaming and stateless (`store: false`), with no
 * SDK: text, function calls (several per turn), reasoning summaries, usage. The thread is sent
 * whole every time: reasoning items come back with their encrypted content and go out again
 * with the history (`providerMetadata.openai`), so a reasoning model keeps its chain of thought
 * across tool calls without OpenAI storing anything.
 *
 * @example
 * createChatHandler({ model: openAIResponsesModel({ model: 'gpt-5-mini', apiKey: process.env.OPENAI_API_KEY }), tools })
 */
export function openAIResponsesModel(options: OpenAIResponsesModelOptions): ChatModel {
  checkCallOptions('openAIResponsesModel', options)
  warnWithoutKey('openAIResponsesModel', options, { env: 'OPENAI_API_KEY', header: 'authorization', baseURL: 'https://api.openai.com/v1' })
  const url = `${trimSlash(options.baseURL || 'https://api.openai.com/v1')}/responses`
  return {
    name: options.model,
    stream: (request) => callWithRetries(PROVIDER, options, request.signal, (signal) => streamResponses(options, url, { ...request, signal })),
  }
}

async function* streamResponses(options: OpenAIResponsesModelOptions, url: string, request: ModelRequest): AsyncGenerator<ModelChunk> {
  const dialect = new ToolDialect(request.tools, 'openai-responses', { strict: options.strict === true })
  const body = {
    store: false,
    include: ['reasoning.encrypted_content'],
    ...options.body,
    model: options.model,
    input: toResponsesInput(request.messages, dialect, await loadToolFiles(request, acceptsFile, options.toolResultFiles)),
    ...(options.system ? { instructions: options.system } : {}),
    ...(dialect.declarations.length > 0 ? { tools: dialect.declarations } : {}),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.reasoningEffort ? { reasoning: { effort: options.reasoningEffort, summary: 'auto' } } : {}),
    stream: true,
  }
  const headers = mergeHeaders(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : undefined, options.headers)
  const events = await postForEvents({ provider: PROVIDER, fetch: options.fetch, url, headers, body, signal: request.signal })

  const calls = dialect.calls()
  /** Output item id → our call id, and whether its arguments came as deltas. */
  const items = new Map<string, { id: string; streamed: boolean }>()
  let reason: FinishReason | undefined
  let usage: ModelUsage | undefined
  let sawCall = false
  try {
    for await (const data of events) {
      const event = parseEvent(PROVIDER, data)
      switch (event.type) {
        case 'response.output_text.delta':
        case 'response.refusal.delta':
          if (typeof event.delta === 'string' && event.delta !== '') yield { type: 'text-delta', delta: event.delta }
          break
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta':
          if (typeof event.delta === 'string' && event.delta !== '') yield { type: 'reasoning-delta', delta: event.delta }
          break
        case 'response.output_item.added': {
          const item = isRecord(event.item) ? event.item : {}
          if (item.type !== 'function_call') break
          sawCall = true
          const started = calls.start(typeof item.call_id === 'string' ? item.call_id : undefined, typeof item.name === 'string' ? item.name : '')
          items.set(String(item.id ?? started.id), { id: started.id, streamed: false })
          yield* started.chunks
          break
        }
        case 'response.function_call_arguments.delta': {
          const call = items.get(String(event.item_id))
          if (!call || typeof event.delta !== 'string') break
          call.streamed ||= event.delta !== ''
          yield* calls.delta(call.id, event.delta)
          break
        }
        case 'response.output_item.done': {
          const item = isRecord(event.item) ? event.item : {}
          if (item.type === 'reasoning') yield reasoningOf(item)
          if (item.type !== 'function_call') break
          const call = items.get(String(item.id))
          if (!call) break
          if (!call.streamed && typeof item.arguments === 'string') yield* calls.delta(call.id, item.arguments)
          yield* calls.end(call.id, typeof item.id === 'string' ? { openai: { itemId: item.id } } : undefined)
          break
        }
        case 'response.completed':
        case 'response.incomplete': {
          const response = isRecord(event.response) ? event.response : {}
          if (isRecord(response.usage)) usage = usageOf(response.usage)
          const incomplete = isRecord(response.incomplete_details) ? response.incomplete_details.reason : undefined
          reason =
            event.type === 'response.completed' ? (sawCall ? 'tool_calls' : 'stop') : incomplete === 'content_filter' ? 'content_filter' : incomplete === 'max_output_tokens' ? 'length' : 'other'
          break
        }
        case 'response.failed': {
          const response = isRecord(event.response) ? event.response : {}
          throw streamError(PROVIDER, response.error ?? { message: 'the response failed' })
        }
        case 'error':
          throw streamError(PROVIDER, isRecord(event.error) ? event.error : event)
      }
      if (reason !== undefined) break
    }
  } catch (error) {
    throw readError(PROVIDER, error, request.signal)
  }
  if (reason === undefined) throw endedEarly(PROVIDER)
  yield* calls.endAll()
  yield { type: 'finish', reason, ...(usage ? { usage } : {}) }
}

/** A finished reasoning item: its summary is what the user sees; the item goes back with the history. */
function reasoningOf(item: Record<string, unknown>): ModelChunk {
  const summary = Array.isArray(item.summary) ? item.summary.filter(isRecord) : []
  const text = summary.map((part) => (typeof part.text === 'string' ? part.text : '')).join('\n\n')
  const openai = {
    ...(typeof item.id === 'string' ? { itemId: item.id } : {}),
    ...(typeof item.encrypted_content === 'string' ? { encryptedContent: item.encrypted_content } : {}),
  }
  const providerMetadata: ProviderMetadata | undefined = Object.keys(openai).length > 0 ? { openai } : undefined
  return { type: 'reasoning', text, ...(providerMetadata ? { providerMetadata } : {}) }
}

/** The neutral history as Responses `input` items: reasoning items first, then the text, then the calls. */
function toResponsesInput(
  messages: readonly ThreadMessage[],
  dialect: ToolDialect<'openai-responses'>,
  files: ReadonlyMap<ThreadToolMessage, readonly ToolFile[]>,
): unknown[] {
  const out: unknown[] = []
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: message.content })
    else if (message.role === 'tool') {
      const output = files.has(message) ? [{ type: 'input_text', text: message.content }, ...files.get(message)!.map(fileItem)] : message.content
      out.push({ type: 'function_call_output', call_id: message.toolCallId, output })
    }
    else {
      for (const block of message.reasoning ?? []) {
        const meta = block.providerMetadata?.openai
        // Only OpenAI's own reasoning items go back, and only with their encrypted content (nothing is stored server-side).
        if (typeof meta?.itemId !== 'string' || typeof meta.encryptedContent !== 'string') continue
        out.push({
          type: 'reasoning',
          id: meta.itemId,
          summary: block.text === '' ? [] : [{ type: 'summary_text', text: block.text }],
          encrypted_content: meta.encryptedContent,
        })
      }
      if (message.content !== '') out.push({ role: 'assistant', content: message.content })
      for (const call of message.toolCalls) {
        out.push({
          type: 'function_call',
          call_id: call.id,
          name: dialect.providerName(call.name),
          arguments: JSON.stringify(dialect.providerArguments(call.name, call.arguments)),
        })
      }
    }
  }
  return out
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif'])
const acceptsFile: AcceptsFile = (mediaType) => IMAGE_TYPES.has(mediaType) || mediaType === 'application/pdf'

function fileItem(file: ToolFile): Record<string, unknown> {
  if (IMAGE_TYPES.has(file.mediaType)) return { type: 'input_image', image_url: dataUrlOf(file), detail: 'auto' }
  const named = { filename: file.filename ?? 'file.pdf' }
  return 'url' in file ? { type: 'input_file', file_url: file.url, ...named } : { type: 'input_file', file_data: dataUrlOf(file), ...named }
}

function usageOf(usage: Record<string, unknown>): ModelUsage {
  const cached = isRecord(usage.input_tokens_details) ? usage.input_tokens_details.cached_tokens : undefined
  const reasoning = isRecord(usage.output_tokens_details) ? usage.output_tokens_details.reasoning_tokens : undefined
  return {
    ...(typeof usage.input_tokens === 'number' ? { inputTokens: usage.input_tokens } : {}),
    ...(typeof usage.output_tokens === 'number' ? { outputTokens: usage.output_tokens } : {}),
    ...(typeof cached === 'number' ? { cachedInputTokens: cached } : {}),
    ...(typeof reasoning === 'number' ? { reasoningTokens: reasoning } : {}),
  }
}
