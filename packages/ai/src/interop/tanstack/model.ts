import { InvalidOptionError } from '../../errors.ts'
import type { AnyTextAdapter } from '@tanstack/ai'
import type { ChatModel, FinishReason, ModelChunk, ModelRequest, ModelUsage } from '../../model/chatModel.ts'
import { ModelProviderError } from '../../model/ModelProviderError.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import { callWithRetries, type CallOptions } from '../../providers/adapters/http.ts'
import { isRecord } from '../../util/isRecord.ts'

export interface FromTanStackAdapterOptions extends Omit<CallOptions, 'fetch'> {
  /** Sent as a system prompt. */
  readonly system?: string
  /** The adapter's `modelOptions` (provider-specific request options). */
  readonly modelOptions?: Record<string, unknown>
}

/** Where TanStack's tool-call metadata (Gemini's thought signature, say) is kept in the thread. */
const KEY = 'tanstack'

/**
 * A TanStack AI text adapter (`openaiText('gpt-4.1')`, `anthropicText(...)`, `geminiText(...)`, ...)
 * as a `ChatModel`. Only its `chatStream` is used: Toolgate's runtime, not TanStack's agent loop,
 * runs the tools, so tools are declared with each tool's own JSON Schema, the runtime validates
 * the arguments, and approvals stay with the server. Calls get Toolgate's retry and timeout
 * policy; set the adapter's own SDK retries to 0 to avoid retrying twice.
 *
 * @example
 * import { openaiText } from '@tanstack/ai-openai'
 * createChatHandler({ model: fromTanStackAdapter(openaiText('gpt-4.1-mini', { maxRetries: 0 })), tools })
 */
export function fromTanStackAdapter(adapter: AnyTextAdapter, options: FromTanStackAdapterOptions = {}): ChatModel {
  if (!isRecord(adapter) || typeof adapter.chatStream !== 'function' || typeof adapter.model !== 'string') {
    throw new InvalidOptionError('fromTanStackAdapter', 'adapter', 'must be a TanStack AI text adapter (with `chatStream` and `model`)')
  }
  const provider = typeof adapter.name === 'string' ? adapter.name : 'TanStack AI'
  return {
    name: adapter.model,
    stream: (request) => callWithRetries(provider, options, request.signal, (signal) => streamAdapter(adapter, provider, options, { ...request, signal })),
  }
}

async function* streamAdapter(adapter: AnyTextAdapter, provider: string, options: FromTanStackAdapterOptions, request: ModelRequest): AsyncGenerator<ModelChunk> {
  const abortController = new AbortController()
  const abort = () => abortController.abort(request.signal.reason)
  request.signal.addEventListener('abort', abort, { once: true })
  if (request.signal.aborted) abort()
  const open = new Map<string, { streamed: boolean }>()
  let finished = false
  try {
    const stream = adapter.chatStream({
      model: adapter.model,
      messages: toModelMessages(request.messages) as never,
      tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })) as never,
      ...(options.system ? { systemPrompts: [options.system] } : {}),
      ...(options.modelOptions ? { modelOptions: options.modelOptions as never } : {}),
      abortController,
      // TanStack's engine passes a logger; adapters call it unguarded.
      logger: silentLogger,
    } as never)
    for await (const chunk of stream as AsyncIterable<Record<string, unknown>>) {
      request.signal.throwIfAborted()
      const delta = typeof chunk.delta === 'string' ? chunk.delta : ''
      switch (chunk.type) {
        case 'TEXT_MESSAGE_CONTENT':
          if (delta !== '') yield { type: 'text-delta', delta }
          break
        case 'REASONING_MESSAGE_CONTENT':
          if (delta !== '') yield { type: 'reasoning-delta', delta }
          break
        case 'TOOL_CALL_START': {
          const id = String(chunk.toolCallId)
          open.set(id, { streamed: false })
          yield { type: 'tool-call-start', toolCallId: id, toolName: String(chunk.toolCallName ?? chunk.toolName ?? '') }
          break
        }
        case 'TOOL_CALL_ARGS': {
          const call = open.get(String(chunk.toolCallId))
          if (call && delta !== '') {
            call.streamed = true
            yield { type: 'tool-call-delta', toolCallId: String(chunk.toolCallId), delta }
          }
          break
        }
        case 'TOOL_CALL_END': {
          const id = String(chunk.toolCallId)
          const call = open.get(id)
          if (!call) break
          open.delete(id)
          if (!call.streamed && chunk.input !== undefined) yield { type: 'tool-call-delta', toolCallId: id, delta: JSON.stringify(chunk.input) }
          yield { type: 'tool-call-end', toolCallId: id, ...(isRecord(chunk.metadata) ? { providerMetadata: { [KEY]: chunk.metadata } } : {}) }
          break
        }
        case 'RUN_ERROR':
          throw runError(provider, chunk)
        case 'RUN_FINISHED': {
          finished = true
          for (const id of open.keys()) yield { type: 'tool-call-end', toolCallId: id }
          open.clear()
          const usage = usageOf(chunk.usage)
          yield { type: 'finish', reason: finishReason(chunk.finishReason), ...(usage ? { usage } : {}) }
          break
        }
      }
    }
  } catch (error) {
    throw providerError(provider, error, request.signal)
  } finally {
    request.signal.removeEventListener('abort', abort)
  }
  request.signal.throwIfAborted()
  if (!finished) throw new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} stream ended before the model finished`)
}

const silentLogger: unknown = new Proxy({}, { get: () => () => {} })

/**
 * Adapters catch the SDK's errors and yield them as RUN_ERROR: `code` is the HTTP status when
 * there was one (as a string), `rawEvent` the provider's error body.
 */
function runError(provider: string, chunk: Record<string, unknown>): ModelProviderError {
  const error = isRecord(chunk.error) ? chunk.error : { message: chunk.message, code: chunk.code }
  const code = typeof error.code === 'string' ? error.code : typeof chunk.code === 'string' ? chunk.code : undefined
  const body = isRecord(chunk.rawEvent) ? chunk.rawEvent : {}
  const type = typeof body.type === 'string' ? body.type : typeof body.code === 'string' ? body.code : undefined
  const message = String(error.message ?? chunk.message ?? 'the adapter failed')
  if (code !== undefined && /^[1-5]\d\d$/.test(code)) {
    return new ModelProviderError('PROVIDER_HTTP_ERROR', provider, `${provider} answered ${code}: ${message}`, { status: Number(code), type })
  }
  return new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} stream failed: ${message}`, { type: type ?? code })
}

/** The neutral history as TanStack `ModelMessage`s (OpenAI-like: tool calls on the assistant, results as `tool` messages). */
function toModelMessages(messages: readonly ThreadMessage[]): unknown[] {
  return messages.map((message) => {
    if (message.role === 'user') return { role: 'user', content: message.content }
    if (message.role === 'tool') return { role: 'tool', content: message.content, toolCallId: message.toolCallId }
    return {
      role: 'assistant',
      content: message.content === '' ? null : message.content,
      ...(message.toolCalls.length > 0
        ? {
            toolCalls: message.toolCalls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
              ...(call.providerMetadata?.[KEY] ? { metadata: call.providerMetadata[KEY] } : {}),
            })),
          }
        : {}),
    }
  })
}

function finishReason(reason: unknown): FinishReason {
  return reason === 'stop' || reason === 'length' || reason === 'tool_calls' || reason === 'content_filter' ? reason : 'other'
}

function usageOf(usage: unknown): ModelUsage | undefined {
  if (!isRecord(usage) || Array.isArray(usage)) return undefined
  const num = (value: unknown) => (typeof value === 'number' ? value : undefined)
  const cached = isRecord(usage.promptTokensDetails) ? num(usage.promptTokensDetails.cachedTokens) : undefined
  const reasoning = isRecord(usage.completionTokensDetails) ? num(usage.completionTokensDetails.reasoningTokens) : undefined
  const counts = { inputTokens: num(usage.promptTokens), outputTokens: num(usage.completionTokens), cachedInputTokens: cached, reasoningTokens: reasoning }
  const defined = Object.entries(counts).filter(([, value]) => value !== undefined)
  return defined.length > 0 ? (Object.fromEntries(defined) as ModelUsage) : undefined
}

/** The provider SDK's HTTP error (`status`, `headers`, `error.type`) as a `ModelProviderError`; an abort stays an abort. */
function providerError(provider: string, error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || error instanceof ModelProviderError) return error
  if (isRecord(error) && typeof error.status === 'number') {
    const body = isRecord(error.error) ? error.error : {}
    const headers = error.headers
    const header = (name: string) =>
      headers instanceof Headers ? (headers.get(name) ?? undefined) : isRecord(headers) && typeof headers[name] === 'string' ? headers[name] : undefined
    const retryAfter = Number(header('retry-after'))
    return new ModelProviderError('PROVIDER_HTTP_ERROR', provider, `${provider} answered ${error.status}: ${String(error.message)}`, {
      status: error.status,
      type: typeof body.type === 'string' ? body.type : typeof error.type === 'string' ? error.type : undefined,
      requestId: header('x-request-id') ?? header('request-id'),
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined,
      cause: error,
    })
  }
  const message = error instanceof Error ? error.message : JSON.stringify(error)
  return new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} stream failed: ${message}`, { cause: error })
}
