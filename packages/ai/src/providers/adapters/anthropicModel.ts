import { InvalidOptionError } from '../../errors.ts'
import type { ThreadMessage, ThreadToolMessage } from '../../protocol/messages.ts'
import type { ChatModel, FinishReason, ModelChunk, ModelRequest } from '../../model/chatModel.ts'
import { isRecord } from '../../util/isRecord.ts'
import { callWithRetries, checkCallOptions, endedEarly, type CallOptions, mergeHeaders, parseEvent, postForEvents, readError, streamError, trimSlash, warnWithoutKey } from './http.ts'
import { ToolDialect } from './toolDialect.ts'
import { loadToolFiles, type AcceptsFile, type ToolFile } from './toolFiles.ts'

export interface AnthropicModelOptions extends CallOptions {
  /** `claude-sonnet-4-5`, `claude-haiku-4-5`, ... */
  readonly model: string
  /** Sent as `x-api-key`; left out when not given (a proxy that adds it). */
  readonly apiKey?: string
  /** Default `https://api.anthropic.com`. */
  readonly baseURL?: string
  /** `max_tokens`, which the Messages API requires. Default 4096. */
  readonly maxTokens?: number
  /**
   * Declare tools with `strict: true` (strict tool use; sends the structured-outputs beta header).
   * What the model sends is mapped back before validation. Default `false`.
   */
  readonly strict?: boolean
  /**
   * Extended thinking: `{ budgetTokens: 2048 }` sends `thinking: { type: 'enabled', budget_tokens }`.
   * Thinking streams as reasoning; each block is stored with its signature and sent back with the
   * history, as Anthropic requires when a turn continues after tool use.
   */
  readonly thinking?: { readonly budgetTokens: number }
  /**
   * Send the images (JPEG, PNG, GIF, WebP) and PDFs that tools return inside their `tool_result`
   * blocks, so the model sees them. Other files, and all files when `false`, reach the model as the
   * line describing them in the result's text. Default `true`.
   */
  readonly toolResultFiles?: boolean
  /** The system prompt. */
  readonly system?: string
  readonly temperature?: number
  /** Extra request headers; an `anthropic-beta` given here is kept beside the one strict mode adds. */
  readonly headers?: Readonly<Record<string, string>>
  /** Extra body fields, e.g. `{ tool_choice: { type: 'auto', disable_parallel_tool_use: true } }`. */
  readonly body?: Readonly<Record<string, unknown>>
}

const PROVIDER = 'Anthropic'
const API_VERSION = '2023-06-01'
const STRICT_BETA = 'structured-outputs-2025-11-13'

/**
 * A `ChatModel` over the Anthropic Messages API, streaming, with no SDK: text, tool use (several
 * calls per turn), stop reason and usage. Tools are declared in Anthropic's envelope; calls come
 * back under the tools' own names and in their own argument shape (see `toolDialect.ts`).
 */
export function anthropicModel(options: AnthropicModelOptions): ChatModel {
  checkCallOptions('anthropicModel', options)
  warnWithoutKey('anthropicModel', options, { env: 'ANTHROPIC_API_KEY', header: 'x-api-key', baseURL: 'https://api.anthropic.com' })
  if (options.thinking !== undefined && (!Number.isInteger(options.thinking?.budgetTokens) || options.thinking.budgetTokens < 1024)) {
    throw new InvalidOptionError('anthropicModel', 'thinking.budgetTokens', 'must be an integer of at least 1024')
  }
  const maxTokens = options.maxTokens ?? 4096
  if (!Number.isInteger(maxTokens) || maxTokens < 1) throw new InvalidOptionError('anthropicModel', 'maxTokens', 'must be a positive integer')
  const url = `${trimSlash(options.baseURL || 'https://api.anthropic.com')}/v1/messages`
  return { name: options.model, stream: (request) => callWithRetries(PROVIDER, options, request.signal, (signal) => streamMessages(options, maxTokens, url, { ...request, signal })) }
}

async function* streamMessages(options: AnthropicModelOptions, maxTokens: number, url: string, request: ModelRequest): AsyncGenerator<ModelChunk> {
  const dialect = new ToolDialect(request.tools, 'anthropic', { strict: options.strict === true })
  const body = {
    ...options.body,
    model: options.model,
    max_tokens: maxTokens,
    ...(options.system ? { system: options.system } : {}),
    messages: toAnthropicMessages(request.messages, dialect, await loadToolFiles(request, acceptsFile, options.toolResultFiles)),
    ...(dialect.declarations.length > 0 ? { tools: dialect.declarations } : {}),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.thinking ? { thinking: { type: 'enabled', budget_tokens: options.thinking.budgetTokens } } : {}),
    stream: true,
  }
  const strict = dialect.declarations.some((tool) => tool.strict === true)
  const headers = mergeHeaders({ 'anthropic-version': API_VERSION }, options.apiKey ? { 'x-api-key': options.apiKey } : undefined, options.headers)
  if (strict) headers['anthropic-beta'] = [headers['anthropic-beta'], STRICT_BETA].filter(Boolean).join(',')
  const events = await postForEvents({ provider: PROVIDER, fetch: options.fetch, url, headers, body, signal: request.signal })

  const calls = dialect.calls()
  /** Content block index → tool call id, with the `input` of `content_block_start` for servers that send it whole. */
  const blocks = new Map<number, { id: string; input: unknown; streamed: boolean }>()
  /** Content block index → a thinking block being streamed (text and signature), or a redacted one. */
  const thinking = new Map<number, { text: string; signature: string; redacted?: string }>()
  let reason: FinishReason | undefined
  let inputTokens: number | undefined
  let outputTokens: number | undefined
  let cachedInputTokens: number | undefined
  let stopped = false
  try {
    for await (const data of events) {
      const event = parseEvent(PROVIDER, data)
      switch (event.type) {
        case 'message_start': {
          const usage = isRecord(event.message) && isRecord(event.message.usage) ? event.message.usage : {}
          inputTokens = inputTokensOf(usage) ?? inputTokens
          outputTokens = numberOr(usage.output_tokens, outputTokens)
          cachedInputTokens = numberOr(usage.cache_read_input_tokens, cachedInputTokens)
          break
        }
        case 'content_block_start': {
          const block = isRecord(event.content_block) ? event.content_block : {}
          if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') yield { type: 'text-delta', delta: block.text }
          if (block.type === 'thinking' && typeof event.index === 'number') {
            const text = typeof block.thinking === 'string' ? block.thinking : ''
            thinking.set(event.index, { text, signature: typeof block.signature === 'string' ? block.signature : '' })
            if (text !== '') yield { type: 'reasoning-delta', delta: text }
          }
          if (block.type === 'redacted_thinking' && typeof event.index === 'number' && typeof block.data === 'string') {
            thinking.set(event.index, { text: '', signature: '', redacted: block.data })
          }
          if (block.type === 'tool_use' && typeof event.index === 'number') {
            const started = calls.start(typeof block.id === 'string' ? block.id : undefined, typeof block.name === 'string' ? block.name : '')
            blocks.set(event.index, { id: started.id, input: block.input, streamed: false })
            yield* started.chunks
          }
          break
        }
        case 'content_block_delta': {
          const delta = isRecord(event.delta) ? event.delta : {}
          if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '') yield { type: 'text-delta', delta: delta.text }
          const thought = typeof event.index === 'number' ? thinking.get(event.index) : undefined
          if (thought && delta.type === 'thinking_delta' && typeof delta.thinking === 'string' && delta.thinking !== '') {
            thought.text += delta.thinking
            yield { type: 'reasoning-delta', delta: delta.thinking }
          }
          if (thought && delta.type === 'signature_delta' && typeof delta.signature === 'string') thought.signature += delta.signature
          const block = typeof event.index === 'number' ? blocks.get(event.index) : undefined
          if (delta.type === 'input_json_delta' && block && typeof delta.partial_json === 'string') {
            block.streamed ||= delta.partial_json !== ''
            yield* calls.delta(block.id, delta.partial_json)
          }
          break
        }
        case 'content_block_stop': {
          const thought = typeof event.index === 'number' ? thinking.get(event.index) : undefined
          if (thought) {
            thinking.delete(event.index as number)
            const anthropic = thought.redacted !== undefined ? { redactedData: thought.redacted } : { signature: thought.signature }
            yield { type: 'reasoning', text: thought.text, providerMetadata: { anthropic } }
            break
          }
          const block = typeof event.index === 'number' ? blocks.get(event.index) : undefined
          if (!block) break
          if (!block.streamed && isRecord(block.input) && Object.keys(block.input).length > 0) yield* calls.delta(block.id, JSON.stringify(block.input))
          blocks.delete(event.index as number)
          yield* calls.end(block.id)
          break
        }
        case 'message_delta': {
          const delta = isRecord(event.delta) ? event.delta : {}
          if (typeof delta.stop_reason === 'string') reason = stopReason(delta.stop_reason)
          const usage = isRecord(event.usage) ? event.usage : {}
          inputTokens = inputTokensOf(usage) ?? inputTokens
          outputTokens = numberOr(usage.output_tokens, outputTokens)
          cachedInputTokens = numberOr(usage.cache_read_input_tokens, cachedInputTokens)
          break
        }
        case 'message_stop':
          stopped = true
          break
        case 'error':
          throw streamError(PROVIDER, event.error)
      }
      if (stopped) break
    }
  } catch (error) {
    throw readError(PROVIDER, error, request.signal)
  }
  if (!stopped && reason === undefined) throw endedEarly(PROVIDER)
  yield* calls.endAll()
  const usage =
    inputTokens === undefined && outputTokens === undefined
      ? undefined
      : { inputTokens, outputTokens, ...(cachedInputTokens ? { cachedInputTokens } : {}) }
  yield { type: 'finish', reason: reason ?? 'other', ...(usage ? { usage } : {}) }
}

type Block = Record<string, unknown>

/**
 * The neutral history as Messages API turns: tool results become `tool_result` blocks of a user
 * turn, and consecutive turns of one role are merged (the API wants them alternating).
 */
function toAnthropicMessages(messages: readonly ThreadMessage[], dialect: ToolDialect<'anthropic'>, files: ReadonlyMap<ThreadToolMessage, readonly ToolFile[]>): unknown[] {
  const out: { role: 'user' | 'assistant'; content: Block[] }[] = []
  const push = (role: 'user' | 'assistant', content: Block[]) => {
    if (content.length === 0) return
    const last = out.at(-1)
    if (last?.role === role) last.content.push(...content)
    else out.push({ role, content })
  }
  for (const message of messages) {
    if (message.role === 'user') push('user', message.content === '' ? [] : [{ type: 'text', text: message.content }])
    else if (message.role === 'tool') {
      push('user', [
        {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          content: files.has(message) ? [{ type: 'text', text: message.content }, ...files.get(message)!.map(fileBlock)] : message.content,
          ...(message.status === 'success' ? {} : { is_error: true }),
        },
      ])
    } else {
      push('assistant', [
        // Thinking goes back first, signed as Anthropic sent it; blocks from other providers are left out.
        ...(message.reasoning ?? []).flatMap((block): Block[] => {
          const meta = block.providerMetadata?.anthropic
          if (typeof meta?.redactedData === 'string') return [{ type: 'redacted_thinking', data: meta.redactedData }]
          return typeof meta?.signature === 'string' && meta.signature !== '' ? [{ type: 'thinking', thinking: block.text, signature: meta.signature }] : []
        }),
        ...(message.content === '' ? [] : [{ type: 'text', text: message.content }]),
        ...message.toolCalls.map((call) => ({
          type: 'tool_use',
          id: call.id,
          name: dialect.providerName(call.name),
          input: dialect.providerArguments(call.name, call.arguments),
        })),
      ])
    }
  }
  return out
}

/** Images (JPEG, PNG, GIF, WebP) and PDFs, as bytes or by URL, are what a `tool_result` takes. */
const acceptsFile: AcceptsFile = (mediaType) => IMAGE_TYPES.has(mediaType) || mediaType === 'application/pdf'
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])

function fileBlock(file: ToolFile): Block {
  const source = 'url' in file ? { type: 'url', url: file.url } : { type: 'base64', media_type: file.mediaType, data: file.base64 }
  return IMAGE_TYPES.has(file.mediaType) ? { type: 'image', source } : { type: 'document', source, ...(file.filename ? { title: file.filename } : {}) }
}

function stopReason(reason: string): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'tool_use':
      return 'tool_calls'
    case 'refusal':
      return 'content_filter'
    default:
      return 'other'
  }
}

/** Input tokens with the cached ones, which Anthropic counts apart. */
function inputTokensOf(usage: Record<string, unknown>): number | undefined {
  const parts = [usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens].filter((n): n is number => typeof n === 'number')
  return parts.length === 0 ? undefined : parts.reduce((sum, n) => sum + n, 0)
}

function numberOr(value: unknown, fallback: number | undefined): number | undefined {
  return typeof value === 'number' ? value : fallback
}
