import { ToolgateError } from '../errors.ts'
import { ModelProviderError } from '../model/ModelProviderError.ts'
import type { ThreadMessage, ThreadToolCall } from '../protocol/messages.ts'
import { randomId } from '../util/randomId.ts'
import type { ModelChunk } from '../model/chatModel.ts'
import { append, type RunState } from './runState.ts'
import { ensureRoom } from './threadSize.ts'

/**
 * The model failed. `message` carries the provider's own words, for the server log; they may name
 * internal hosts or hint at an API key, so the browser gets `publicMessage` instead.
 */
export class ModelError extends ToolgateError {
  readonly publicMessage: string

  constructor(cause: unknown) {
    super('MODEL_ERROR', `The model failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.publicMessage = publicModelMessage(cause)
  }
}

/** `The model provider failed (HTTP 429, rate_limit_exceeded)`: the status and error type, never the provider's text. */
function publicModelMessage(cause: unknown): string {
  if (!(cause instanceof ModelProviderError)) return 'The model failed; see the server log'
  if (cause.code === 'PROVIDER_NETWORK_ERROR') return 'The model provider could not be reached; see the server log'
  const type = cause.type !== undefined && /^[\w.:-]{1,64}$/.test(cause.type) ? cause.type : undefined
  const details = [cause.status === undefined ? undefined : `HTTP ${cause.status}`, type].filter((detail) => detail !== undefined)
  return details.length > 0 ? `The model provider failed (${details.join(', ')})` : 'The model provider failed; see the server log'
}

interface OpenCall {
  /** The id the client and the stored thread know the call by. */
  readonly id: string
  readonly name: string
  args: string
  open: boolean
}

/**
 * Streams one model call as AG-UI events and adds the assistant message to the working thread.
 * Returns the tool calls the model made.
 *
 * Whatever ends the step (the model finishing, failing, or the run aborting), the assistant message
 * keeps the text so far and every call whose TOOL_CALL_START went out, and a call still open is
 * closed with TOOL_CALL_END, with the arguments that arrived: the stored thread holds what the
 * client was shown. The caller answers calls that will not run (`runTurn`), so a reload shows the
 * same calls and outcomes as the live stream. The one exception: a step that does not fit in the
 * thread with a result for each call (`limits.maxThreadMessages`) is not stored, and the run ends
 * with RUN_ERROR `THREAD_FULL`.
 */
export async function modelStep(run: RunState): Promise<ThreadToolCall[]> {
  const { emit, signal } = run
  const messageId = randomId('msg_')
  const calls: OpenCall[] = []
  /** The call a model id currently stands for; ids a model reuses get a new call each time. */
  const byModelId = new Map<string, OpenCall>()
  const usedIds = toolCallIds(run.thread.messages)
  let text = ''
  let textId: string | undefined
  let segments = 0

  // AG-UI wants a text message closed before a tool call starts; text after it opens a new one.
  const closeText = () => {
    if (textId !== undefined) emit({ type: 'TEXT_MESSAGE_END', messageId: textId })
    textId = undefined
  }
  const onChunk = (chunk: ModelChunk) => {
    switch (chunk.type) {
      case 'text-delta':
        if (!chunk.delta) return
        if (textId === undefined) {
          textId = segments++ === 0 ? messageId : randomId('msg_')
          emit({ type: 'TEXT_MESSAGE_START', messageId: textId, role: 'assistant' })
        }
        text += chunk.delta
        return emit({ type: 'TEXT_MESSAGE_CONTENT', messageId: textId, delta: chunk.delta })
      case 'tool-call-start': {
        closeText()
        if (byModelId.get(chunk.toolCallId)?.open) return
        const call: OpenCall = { id: uniqueCallId(chunk.toolCallId, usedIds), name: chunk.toolName, args: '', open: true }
        byModelId.set(chunk.toolCallId, call)
        calls.push(call)
        return emit({ type: 'TOOL_CALL_START', toolCallId: call.id, toolCallName: call.name, parentMessageId: messageId })
      }
      case 'tool-call-delta': {
        const call = byModelId.get(chunk.toolCallId)
        if (!call?.open || !chunk.delta) return
        call.args += chunk.delta
        return emit({ type: 'TOOL_CALL_ARGS', toolCallId: call.id, delta: chunk.delta })
      }
      case 'tool-call-end': {
        const call = byModelId.get(chunk.toolCallId)
        if (!call?.open) return
        call.open = false
        return emit({ type: 'TOOL_CALL_END', toolCallId: call.id })
      }
      case 'finish':
        if (chunk.usage) addUsage(run, chunk.usage)
    }
  }

  let failure: unknown
  let iterator: AsyncIterator<ModelChunk> | undefined
  try {
    iterator = run.config.model.stream({ messages: run.thread.messages, tools: run.config.toolset.modelTools, signal })[Symbol.asyncIterator]()
    for (;;) {
      const next = await nextUnlessAborted(iterator, signal)
      if (next === undefined || next.done) break
      onChunk(next.value)
    }
  } catch (error) {
    if (!signal.aborted) failure = error
  }
  if (signal.aborted) iterator?.return?.()?.catch(() => {})

  closeText()
  for (const call of calls) if (call.open) emit({ type: 'TOOL_CALL_END', toolCallId: call.id })
  const toolCalls = calls.map(({ id, name, args }) => ({ id, name, arguments: args }))
  if (text !== '' || toolCalls.length > 0) {
    // The step is stored only with room for a result of each call, so every call can be answered.
    ensureRoom(run, 1 + toolCalls.length)
    append(run, { role: 'assistant', id: messageId, content: text, toolCalls })
  }
  if (failure !== undefined) throw new ModelError(failure)
  return toolCalls
}

/** Every tool call id the thread already uses, by its calls and its results. */
function toolCallIds(messages: readonly ThreadMessage[]): Set<string> {
  const ids = new Set<string>()
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls) ids.add(call.id)
    else if (message.role === 'tool') ids.add(message.toolCallId)
  }
  return ids
}

/**
 * The model's id for a new call, unless the thread or this step already uses it: OpenAI-compatible
 * servers may send `call_0` in every step, and history, results and the client key calls by id.
 */
function uniqueCallId(modelId: string, used: Set<string>): string {
  let id = modelId
  while (id === '' || used.has(id)) id = randomId('call_')
  used.add(id)
  return id
}

/**
 * The iterator's next result, or `undefined` as soon as `signal` aborts (it never rejects on
 * abort): a model that ignores its signal must not keep the run alive.
 */
function nextUnlessAborted<T>(iterator: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T> | undefined> {
  if (signal.aborted) return Promise.resolve(undefined)
  return new Promise<IteratorResult<T> | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined)
    signal.addEventListener('abort', onAbort, { once: true })
    iterator.next().then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (error) => (signal.removeEventListener('abort', onAbort), reject(error)),
    )
  })
}

function addUsage(run: RunState, usage: { inputTokens?: number; outputTokens?: number }): void {
  run.usage.inputTokens += count(usage.inputTokens)
  run.usage.outputTokens += count(usage.outputTokens)
  run.usage.reported = true
}

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0
}
