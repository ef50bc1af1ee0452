import { ToolgateError } from '../errors.ts'
import type { ToolCallPart } from '../protocol/messages.ts'
import { randomId } from '../util/randomId.ts'
import type { ModelChunk } from './model.ts'
import { append, type RunState } from './runState.ts'

export class ModelError extends ToolgateError {
  constructor(cause: unknown) {
    super('MODEL_ERROR', `The model failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  }
}

interface OpenCall {
  readonly id: string
  readonly name: string
  args: string
  open: boolean
}

/**
 * Streams one model call as AG-UI events and adds the assistant message to the working thread.
 * Returns the tool calls the model made. On abort, text so far is kept and unfinished calls are
 * dropped, so the thread stays consistent.
 */
export async function modelStep(run: RunState): Promise<ToolCallPart[]> {
  const { emit, signal } = run
  const messageId = randomId('msg_')
  const calls = new Map<string, OpenCall>()
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
      case 'tool-call-start':
        closeText()
        if (calls.has(chunk.toolCallId)) return
        calls.set(chunk.toolCallId, { id: chunk.toolCallId, name: chunk.toolName, args: '', open: true })
        return emit({ type: 'TOOL_CALL_START', toolCallId: chunk.toolCallId, toolCallName: chunk.toolName, parentMessageId: messageId })
      case 'tool-call-delta': {
        const call = calls.get(chunk.toolCallId)
        if (!call?.open || !chunk.delta) return
        call.args += chunk.delta
        return emit({ type: 'TOOL_CALL_ARGS', toolCallId: call.id, delta: chunk.delta })
      }
      case 'tool-call-end': {
        const call = calls.get(chunk.toolCallId)
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
      const next = await untilAborted(iterator.next(), signal)
      if (next === undefined || next.done) break
      onChunk(next.value)
    }
  } catch (error) {
    if (!signal.aborted) failure = error
  }
  if (signal.aborted) iterator?.return?.()?.catch(() => {})

  closeText()
  const complete = signal.aborted || failure !== undefined ? [] : [...calls.values()]
  for (const call of complete) if (call.open) emit({ type: 'TOOL_CALL_END', toolCallId: call.id })
  const toolCalls = complete.map(({ id, name, args }) => ({ id, name, arguments: args }))
  if (text !== '' || toolCalls.length > 0) append(run, { role: 'assistant', id: messageId, content: text, toolCalls })
  if (failure !== undefined) throw new ModelError(failure)
  return toolCalls
}

/** A model that ignores its signal must not keep the run alive: stop waiting when it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined)
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
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
