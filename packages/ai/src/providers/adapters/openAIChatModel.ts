import type { ThreadMessage } from '../../protocol/messages.ts'
import type { ChatModel, FinishReason, ModelChunk, ModelRequest, ModelUsage } from '../../model/chatModel.ts'
import { isRecord } from '../../util/isRecord.ts'
import { callWithRetries, checkCallOptions, endedEarly, type CallOptions, mergeHeaders, parseEvent, postForEvents, readError, streamError, trimSlash, warnWithoutKey } from './http.ts'
import { ToolDialect, type ToolCallTranslator } from './toolDialect.ts'

export interface OpenAIChatModelOptions extends CallOptions {
  /** `gpt-4.1`, `gpt-4o-mini`, or any model an OpenAI-compatible server offers. */
  readonly model: string
  /** Sent as `Authorization: Bearer`; left out when not given (local servers). */
  readonly apiKey?: string
  /**
   * Default `https://api.openai.com/v1`. Any OpenAI-compatible server works: Ollama
   * (`http://localhost:11434/v1`), vLLM, LM Studio (`http://localhost:1234/v1`), OpenRouter
   * (`https://openrouter.ai/api/v1`), Groq (`https://api.groq.com/openai/v1`). Their quirks are
   * handled: calls without an id, the name arriving after the id, an index reused for a new call,
   * arguments split anywhere (or sent whole), no usage chunk, and `[DONE]` missing. Most of them
   * ignore or refuse `strict`: leave it off there.
   */
  readonly baseURL?: string
  /**
   * Declare tools with `strict: true` (Structured Outputs). Schemas are converted to strict rules
   * and what the model sends is mapped back before validation. Default `false`.
   */
  readonly strict?: boolean
  /** Sent as the first message (`role: 'system'`). */
  readonly system?: string
  readonly temperature?: number
  /** Extra request headers (`OpenAI-Organization`, a proxy's auth, ...). */
  readonly headers?: Readonly<Record<string, string>>
  /** Extra body fields, e.g. `{ parallel_tool_calls: false, max_completion_tokens: 1024 }`. */
  readonly body?: Readonly<Record<string, unknown>>
}

const PROVIDER = 'OpenAI'

/**
 * A `ChatModel` over OpenAI Chat Completions, streaming, with no SDK: text, parallel tool calls,
 * finish reason and usage. Tools are declared in OpenAI's envelope (renamed where OpenAI refuses a
 * name, strict schemas with `strict: true`); calls come back under the tools' own names and in
 * their own argument shape (see `toolDialect.ts`).
 *
 * @example
 * createChatHandler({ model: openAIChatModel({ model: 'gpt-4.1-mini', apiKey: process.env.OPENAI_API_KEY }), tools })
 */
export function openAIChatModel(options: OpenAIChatModelOptions): ChatModel {
  checkCallOptions('openAIChatModel', options)
  warnWithoutKey('openAIChatModel', options, { env: 'OPENAI_API_KEY', header: 'authorization', baseURL: 'https://api.openai.com/v1' })
  const url = `${trimSlash(options.baseURL || 'https://api.openai.com/v1')}/chat/completions`
  return { name: options.model, stream: (request) => callWithRetries(PROVIDER, options, request.signal, (signal) => streamChat(options, url, { ...request, signal })) }
}

async function* streamChat(options: OpenAIChatModelOptions, url: string, request: ModelRequest): AsyncGenerator<ModelChunk> {
  const dialect = new ToolDialect(request.tools, 'openai-chat', { strict: options.strict === true })
  const body = {
    ...options.body,
    model: options.model,
    messages: toOpenAIMessages(request.messages, dialect, options.system),
    ...(dialect.declarations.length > 0 ? { tools: dialect.declarations } : {}),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    stream: true,
    stream_options: { include_usage: true },
  }
  const headers = mergeHeaders(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : undefined, options.headers)
  const events = await postForEvents({ provider: PROVIDER, fetch: options.fetch, url, headers, body, signal: request.signal })

  const calls = new OpenAICalls(dialect.calls())
  let reason: FinishReason | undefined
  let usage: ModelUsage | undefined
  let done = false
  try {
    for await (const data of events) {
      if (data.trim() === '[DONE]') {
        done = true
        break
      }
      const chunk = parseEvent(PROVIDER, data)
      if (chunk.error !== undefined && chunk.error !== null) throw streamError(PROVIDER, chunk.error)
      if (isRecord(chunk.usage)) usage = usageOf(chunk.usage)
      const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => isRecord(c) && (c.index ?? 0) === 0) : undefined
      if (!isRecord(choice)) continue
      const delta = isRecord(choice.delta) ? choice.delta : {}
      if (typeof delta.content === 'string' && delta.content !== '') yield { type: 'text-delta', delta: delta.content }
      // A refusal (Structured Outputs) is what the model says instead of answering.
      if (typeof delta.refusal === 'string' && delta.refusal !== '') yield { type: 'text-delta', delta: delta.refusal }
      if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isRecord(call)) yield* calls.delta(call)
      if (typeof choice.finish_reason === 'string') reason = finishReason(choice.finish_reason)
    }
  } catch (error) {
    throw readError(PROVIDER, error, request.signal)
  }
  if (!done && reason === undefined) throw endedEarly(PROVIDER)
  yield* calls.endAll()
  yield { type: 'finish', reason: reason ?? 'other', ...(usage ? { usage } : {}) }
}

/**
 * OpenAI streams each call by `index`: the first delta brings the id and name, later ones pieces
 * of the arguments. Calls end with the response (a call is never reopened, so none is cut short).
 * Some compatible servers send the name after the id, or reuse an index for a new call (with a
 * new id): both are handled.
 */
class OpenAICalls {
  readonly #translator: ToolCallTranslator
  readonly #byIndex = new Map<number, { providerId: string | undefined; id: string | undefined; name: string; pending: string }>()

  constructor(translator: ToolCallTranslator) {
    this.#translator = translator
  }

  *delta(call: Record<string, unknown>): Generator<ModelChunk> {
    const index = typeof call.index === 'number' ? call.index : this.#byIndex.size
    const fn = isRecord(call.function) ? call.function : {}
    const providerId = typeof call.id === 'string' && call.id !== '' ? call.id : undefined
    let state = this.#byIndex.get(index)
    if (!state || (providerId !== undefined && state.providerId !== undefined && providerId !== state.providerId)) {
      state = { providerId, id: undefined, name: '', pending: '' }
      this.#byIndex.set(index, state)
    }
    state.providerId ??= providerId
    const args = typeof fn.arguments === 'string' ? fn.arguments : ''
    if (state.id !== undefined) return yield* this.#translator.delta(state.id, args)
    if (typeof fn.name === 'string') state.name += fn.name
    state.pending += args
    if (state.name !== '') yield* this.#start(state)
  }

  *endAll(): Generator<ModelChunk> {
    // A call whose name never came is still reported: the runtime answers it as an unknown tool.
    for (const state of this.#byIndex.values()) if (state.id === undefined) yield* this.#start(state)
    yield* this.#translator.endAll()
  }

  *#start(state: { providerId: string | undefined; id: string | undefined; name: string; pending: string }): Generator<ModelChunk> {
    const started = this.#translator.start(state.providerId, state.name)
    state.id = started.id
    yield* started.chunks
    yield* this.#translator.delta(started.id, state.pending)
  }
}

/**
 * The neutral history as Chat Completions messages; calls go by their provider names. A `tool`
 * message takes text only, so files a tool returned reach the model as the lines describing them.
 */
function toOpenAIMessages(messages: readonly ThreadMessage[], dialect: ToolDialect<'openai-chat'>, system: string | undefined): unknown[] {
  const out: unknown[] = system ? [{ role: 'system', content: system }] : []
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: message.content })
    else if (message.role === 'tool') out.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content })
    else if (message.toolCalls.length === 0) out.push({ role: 'assistant', content: message.content })
    else {
      out.push({
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: dialect.providerName(call.name), arguments: JSON.stringify(dialect.providerArguments(call.name, call.arguments)) },
        })),
      })
    }
  }
  return out
}

function finishReason(reason: string): FinishReason {
  if (reason === 'stop' || reason === 'length' || reason === 'tool_calls' || reason === 'content_filter') return reason
  return reason === 'function_call' ? 'tool_calls' : 'other'
}

/** Chat Completions usage, with the cached and reasoning tokens OpenAI reports in its details. */
function usageOf(usage: Record<string, unknown>): ModelUsage {
  const cached = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details.cached_tokens : undefined
  const reasoning = isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details.reasoning_tokens : undefined
  return {
    ...(typeof usage.prompt_tokens === 'number' ? { inputTokens: usage.prompt_tokens } : {}),
    ...(typeof usage.completion_tokens === 'number' ? { outputTokens: usage.completion_tokens } : {}),
    ...(typeof cached === 'number' ? { cachedInputTokens: cached } : {}),
    ...(typeof reasoning === 'number' ? { reasoningTokens: reasoning } : {}),
  }
}
