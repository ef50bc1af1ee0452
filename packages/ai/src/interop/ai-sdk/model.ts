import { InvalidOptionError } from '../../errors.ts'
import type { LanguageModelV2, LanguageModelV2StreamPart, LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import type { ChatModel, FinishReason, ModelChunk, ModelRequest, ModelUsage } from '../../model/chatModel.ts'
import { ModelProviderError } from '../../model/ModelProviderError.ts'
import type { ProviderMetadata, ThreadMessage } from '../../protocol/messages.ts'
import { callWithRetries, type CallOptions } from '../../providers/adapters/http.ts'
import { isRecord } from '../../util/isRecord.ts'
import { parseToolArguments } from '../../util/parseToolArguments.ts'

export interface FromAISdkModelOptions extends Omit<CallOptions, 'fetch'> {
  /** Passed on as `providerOptions` with every call, e.g. `{ openai: { reasoningEffort: 'low' } }`. */
  readonly providerOptions?: Record<string, Record<string, unknown>>
  /** Sent as the system message. */
  readonly system?: string
  readonly temperature?: number
  readonly maxOutputTokens?: number
}

type AISdkModel = LanguageModelV2 | LanguageModelV3
type StreamPart = LanguageModelV2StreamPart | LanguageModelV3StreamPart

/** Where the AI SDK's own provider metadata is kept in the thread, apart from Toolgate's native adapters' keys. */
const KEY = 'ai-sdk'

/**
 * Any Vercel AI SDK language model (`@ai-sdk/openai`, `@ai-sdk/anthropic`, `@ai-sdk/google`,
 * `@ai-sdk/openai-compatible`, ...; specification v2 or v3) as a `ChatModel`. Tools are declared
 * with each tool's own JSON Schema and come back under their own names; the runtime validates the
 * arguments and owns approvals, as with the native adapters. Reasoning and provider metadata
 * (thinking signatures, thought signatures, reasoning items) go back with the history. Calls get
 * Toolgate's retry and timeout policy (the AI SDK retries in `generateText`, not in its providers).
 *
 * @example
 * import { openai } from '@ai-sdk/openai'
 * createChatHandler({ model: fromAISdkModel(openai('gpt-4.1-mini')), tools })
 */
export function fromAISdkModel(model: AISdkModel, options: FromAISdkModelOptions = {}): ChatModel {
  if (!isRecord(model) || typeof model.doStream !== 'function' || (model.specificationVersion !== 'v2' && model.specificationVersion !== 'v3')) {
    throw new InvalidOptionError('fromAISdkModel', 'model', 'must be an AI SDK language model (specification v2 or v3)')
  }
  const provider = typeof model.provider === 'string' ? model.provider : 'AI SDK'
  return {
    name: model.modelId,
    stream: (request) => callWithRetries(provider, options, request.signal, (signal) => streamModel(model, provider, options, { ...request, signal })),
  }
}

async function* streamModel(model: AISdkModel, provider: string, options: FromAISdkModelOptions, request: ModelRequest): AsyncGenerator<ModelChunk> {
  let result: { stream: ReadableStream<StreamPart> }
  try {
    result = await (model as LanguageModelV3).doStream({
      prompt: toPrompt(request.messages, options.system) as never,
      tools: request.tools.map((tool) => ({ type: 'function' as const, name: tool.name, description: tool.description, inputSchema: tool.inputSchema as never })),
      abortSignal: request.signal,
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
      ...(options.providerOptions ? { providerOptions: options.providerOptions as never } : {}),
    })
  } catch (error) {
    throw providerError(provider, error, request.signal)
  }
  const reader = result.stream.getReader()
  const open = new Set<string>()
  const reasoning = new Map<string, string>()
  let finished = false
  try {
    for (;;) {
      const { done, value: part } = await reader.read()
      if (done) break
      request.signal.throwIfAborted()
      switch (part.type) {
        case 'text-delta': {
          const delta = 'delta' in part ? part.delta : (part as { textDelta?: string }).textDelta
          if (typeof delta === 'string' && delta !== '') yield { type: 'text-delta', delta }
          break
        }
        case 'reasoning-start':
          reasoning.set(part.id, '')
          break
        case 'reasoning-delta':
          reasoning.set(part.id, (reasoning.get(part.id) ?? '') + part.delta)
          if (part.delta !== '') yield { type: 'reasoning-delta', delta: part.delta }
          break
        case 'reasoning-end': {
          const metadata = wrap(part.providerMetadata)
          yield { type: 'reasoning', text: reasoning.get(part.id) ?? '', ...(metadata ? { providerMetadata: metadata } : {}) }
          reasoning.delete(part.id)
          break
        }
        case 'tool-input-start':
          open.add(part.id)
          yield { type: 'tool-call-start', toolCallId: part.id, toolName: part.toolName }
          break
        case 'tool-input-delta':
          if (open.has(part.id) && part.delta !== '') yield { type: 'tool-call-delta', toolCallId: part.id, delta: part.delta }
          break
        case 'tool-call': {
          // The whole call; streamed before as tool-input-* by most providers, else only here.
          if (!open.has(part.toolCallId)) {
            yield { type: 'tool-call-start', toolCallId: part.toolCallId, toolName: part.toolName }
            if (part.input !== '') yield { type: 'tool-call-delta', toolCallId: part.toolCallId, delta: part.input }
          }
          open.delete(part.toolCallId)
          const metadata = wrap(part.providerMetadata)
          yield { type: 'tool-call-end', toolCallId: part.toolCallId, ...(metadata ? { providerMetadata: metadata } : {}) }
          break
        }
        case 'error':
          throw providerError(provider, part.error, request.signal)
        case 'finish': {
          finished = true
          const usage = usageOf(part.usage)
          yield* [...open].map((id): ModelChunk => ({ type: 'tool-call-end', toolCallId: id }))
          open.clear()
          yield { type: 'finish', reason: finishReason(part.finishReason), ...(usage ? { usage } : {}) }
          break
        }
      }
    }
  } catch (error) {
    throw providerError(provider, error, request.signal)
  } finally {
    reader.releaseLock()
  }
  request.signal.throwIfAborted()
  if (!finished) throw new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} stream ended before the model finished`)
}

function wrap(metadata: unknown): ProviderMetadata | undefined {
  return isRecord(metadata) && Object.keys(metadata).length > 0 ? { [KEY]: metadata } : undefined
}

function unwrap(metadata: ProviderMetadata | undefined): Record<string, unknown> | undefined {
  const inner = metadata?.[KEY]
  return inner && Object.keys(inner).length > 0 ? { providerOptions: inner } : undefined
}

/** The neutral history as an AI SDK prompt (the same in v2 and v3). */
function toPrompt(messages: readonly ThreadMessage[], system: string | undefined): unknown[] {
  const out: unknown[] = system ? [{ role: 'system', content: system }] : []
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: [{ type: 'text', text: message.content }] })
    else if (message.role === 'tool') {
      const parsed = parseToolArguments(message.content)
      const output =
        message.status !== 'success'
          ? { type: 'error-text', value: message.content }
          : parsed.ok
            ? { type: 'json', value: parsed.value }
            : { type: 'text', value: message.content }
      out.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: message.toolCallId, toolName: message.toolName, output }] })
    } else {
      out.push({
        role: 'assistant',
        content: [
          ...(message.reasoning ?? []).map((block) => ({ type: 'reasoning', text: block.text, ...unwrap(block.providerMetadata) })),
          ...(message.content === '' ? [] : [{ type: 'text', text: message.content }]),
          ...message.toolCalls.map((call) => {
            const parsed = parseToolArguments(call.arguments)
            return { type: 'tool-call', toolCallId: call.id, toolName: call.name, input: parsed.ok ? parsed.value : {}, ...unwrap(call.providerMetadata) }
          }),
        ],
      })
    }
  }
  return out
}

function finishReason(reason: unknown): FinishReason {
  const unified = isRecord(reason) ? reason.unified : reason
  switch (unified) {
    case 'stop':
    case 'length':
      return unified
    case 'tool-calls':
      return 'tool_calls'
    case 'content-filter':
      return 'content_filter'
    default:
      return 'other'
  }
}

/** v3 nests the counts (`inputTokens.total`); v2 has them flat. */
function usageOf(usage: unknown): ModelUsage | undefined {
  if (!isRecord(usage)) return undefined
  const num = (value: unknown) => (typeof value === 'number' ? value : undefined)
  const input = isRecord(usage.inputTokens) ? usage.inputTokens : undefined
  const output = isRecord(usage.outputTokens) ? usage.outputTokens : undefined
  const counts = {
    inputTokens: input ? num(input.total) : num(usage.inputTokens),
    outputTokens: output ? num(output.total) : num(usage.outputTokens),
    cachedInputTokens: input ? num(input.cacheRead) : num(usage.cachedInputTokens),
    reasoningTokens: output ? num(output.reasoning) : num(usage.reasoningTokens),
  }
  const defined = Object.entries(counts).filter(([, value]) => value !== undefined)
  return defined.length > 0 ? (Object.fromEntries(defined) as ModelUsage) : undefined
}

/** The AI SDK's `APICallError` (status, body, headers) as a `ModelProviderError`; an abort stays an abort. */
function providerError(provider: string, error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || error instanceof ModelProviderError) return error
  if (isRecord(error) && typeof error.statusCode === 'number') {
    const headers = isRecord(error.responseHeaders) ? error.responseHeaders : {}
    const data = isRecord(error.data) && isRecord(error.data.error) ? error.data.error : isRecord(error.data) ? error.data : {}
    const type = typeof data.type === 'string' ? data.type : typeof data.code === 'string' ? data.code : typeof data.status === 'string' ? data.status : undefined
    const requestId = [headers['x-request-id'], headers['request-id']].find((id): id is string => typeof id === 'string')
    const retryAfter = Number(headers['retry-after'])
    return new ModelProviderError('PROVIDER_HTTP_ERROR', provider, `${provider} answered ${error.statusCode}: ${String(error.message)}`, {
      status: error.statusCode,
      type,
      requestId,
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined,
      cause: error,
    })
  }
  const message = error instanceof Error ? error.message : JSON.stringify(error)
  return new ModelProviderError('PROVIDER_STREAM_ERROR', provider, `${provider} stream failed: ${message}`, { cause: error })
}
