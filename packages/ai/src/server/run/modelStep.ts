import type { FinishReason, ModelChunk, ModelRequest, ModelUsage } from '../../model/chatModel.ts'
import { ModelProviderError } from '../../model/ModelProviderError.ts'
import type { ProviderMetadata, ThreadAssistantMessage, ThreadMessage, ThreadReasoning, ThreadToolCall } from '../../protocol/messages.ts'
import { randomId } from '../../util/randomId.ts'
import { ToolgateError } from '../../errors.ts'
import { isRecord } from '../../util/isRecord.ts'
import { attachmentLoader } from './attachments.ts'
import { searchedTools } from './declaredTools.ts'
import { ModelError } from '../errors.ts'
import type { UsageTotals } from './Run.ts'
import type { StepRun } from './stepRun.ts'

interface OpenCall {
  /** The id the client and the stored thread know the call by. */
  readonly id: string
  readonly name: string
  args: string
  open: boolean
  providerMetadata: ProviderMetadata | undefined
}

/** One model call: the assistant message it produced (none when it said nothing), and how it failed, if it did. */
export interface StepOutcome {
  readonly message: ThreadAssistantMessage | undefined
  readonly error: ModelError | undefined
}

/**
 * Streams one model call as events and returns the assistant message it makes. Whatever ends the
 * step (the model finishing, failing, or the run aborting), the message keeps the text so far and
 * every call whose start went out, with the arguments that arrived: the stored thread holds what
 * the client was shown. The run answers calls that will not run.
 */
export function modelStep(run: StepRun): Promise<StepOutcome> {
  // Before the step starts: a middleware that throws ends the run, and is never taken for a model error.
  // Without a tool search or middleware nothing here waits: the step starts now, and one promise stands for it.
  const { toolSearch } = run.config
  if (!toolSearch && !run.middleware.any) return streamStep(run, run.messages, run.config.tools.modelTools)
  return preparedStep(run, toolSearch)
}

/** A step whose request a tool search or the `modelRequest` middleware makes first. */
async function preparedStep(run: StepRun, toolSearch: StepRun['config']['toolSearch']): Promise<StepOutcome> {
  const call = { messages: run.messages, tools: toolSearch ? await searchedTools(run, toolSearch) : run.config.tools.modelTools }
  const request = run.middleware.any ? await run.middleware.modelRequest(call) : call
  return streamStep(run, request.messages, request.tools)
}

function streamStep(run: StepRun, messages: ModelRequest['messages'], tools: ModelRequest['tools']): Promise<StepOutcome> {
  const { events, signal } = run
  const messageId = randomId('msg_')
  const calls: OpenCall[] = []
  const reasoning: ThreadReasoning[] = []
  /** The call a model id currently stands for; ids a model reuses get a new call each time. Made at the step's first call. */
  let byModelId: Map<string, OpenCall> | undefined
  /** Every call id the thread uses, gathered at the step's first call: a step that calls nothing does not walk the history. */
  let usedIds: Set<string> | undefined
  let text = ''
  events.stepStarted(messageId)
  const trace = run.trace?.modelCall(messages)
  let usage: ModelUsage | undefined
  let finishReason: FinishReason | undefined

  // Every chunk is checked where it enters (`checkedChunk`); one function per step reads them all.
  const onChunk = (value: ModelChunk) => {
    trace?.firstChunk()
    const chunk = checkedChunk(value)
    switch (chunk.type) {
      case 'text-delta':
        text += chunk.delta
        return events.text(chunk.delta)
      case 'reasoning-delta':
        return events.reasoning(chunk.delta)
      case 'reasoning':
        reasoning.push(chunk.providerMetadata ? { text: chunk.text, providerMetadata: chunk.providerMetadata } : { text: chunk.text })
        return
      case 'tool-call-start': {
        if (byModelId?.get(chunk.toolCallId)?.open) return
        const call: OpenCall = { id: uniqueCallId(chunk.toolCallId, (usedIds ??= toolCallIds(run.messages))), name: chunk.toolName, args: '', open: true, providerMetadata: undefined }
        byModelId ??= new Map()
        byModelId.set(chunk.toolCallId, call)
        calls.push(call)
        return events.toolCallStart(call.id, call.name)
      }
      case 'tool-call-delta': {
        const call = byModelId?.get(chunk.toolCallId)
        if (!call?.open) return
        call.args += chunk.delta
        return events.toolCallArgs(call.id, chunk.delta)
      }
      case 'tool-call-end': {
        const call = byModelId?.get(chunk.toolCallId)
        if (!call?.open) return
        call.open = false
        call.providerMetadata = chunk.providerMetadata
        return events.toolCallEnd(call.id)
      }
      case 'finish':
        finishReason = chunk.reason
        usage = chunk.usage
        if (chunk.usage) addUsage(run.usage, chunk.usage)
    }
  }

  let iterator: AsyncIterator<ModelChunk> | undefined
  /** The step's end, once the model finished, failed (`failed`: with `failure`) or the run aborted. */
  const end = (failed: boolean, failure: unknown): StepOutcome => {
    const error = failed && !signal.aborted ? new ModelError(failure) : undefined
    if (signal.aborted) iterator?.return?.()?.catch(() => {})
    events.stepEnded()
    trace?.end({
      usage,
      finishReason,
      output: () => ({ text, toolCalls: calls.map(({ id, name, args }) => ({ id, name, arguments: args })) }),
      ...(error ? { error: { type: error.cause instanceof ModelProviderError ? error.cause.code : error.code, message: error.publicMessage } } : {}),
    })

    if (text === '' && calls.length === 0 && reasoning.length === 0) return { message: undefined, error }
    // Optional keys set in place, not spread from conditional literals: a step's message is made once, its calls one by one.
    const toolCalls = calls.map(({ id, name, args, providerMetadata }) => {
      const call: { -readonly [K in keyof ThreadToolCall]: ThreadToolCall[K] } = { id, name, arguments: args }
      if (providerMetadata) call.providerMetadata = providerMetadata
      return call
    })
    const message: { -readonly [K in keyof ThreadAssistantMessage]: ThreadAssistantMessage[K] } = { role: 'assistant', id: messageId, content: text, toolCalls }
    if (reasoning.length > 0) message.reasoning = reasoning
    return { message, error }
  }

  try {
    // Key by key, not `{ ...request, signal, … }`: on Node 20 a literal that goes on after a spread is made by the runtime, slowly.
    iterator = run.config.model.stream({ messages, tools, signal, loadAttachment: attachmentLoader(run.config.attachments, run.head.id) })[Symbol.asyncIterator]()
  } catch (failure) {
    return settledNow(() => end(true, failure))
  }
  if (signal.aborted) return settledNow(() => end(false, undefined))
  return readUntilAborted(iterator, run, onChunk, end)
}

/** `outcome()` as a promise: settled with its value, or rejected with what it threw. */
function settledNow<T>(outcome: () => T): Promise<T> {
  try {
    return Promise.resolve(outcome())
  } catch (error) {
    return Promise.reject(error)
  }
}

/** A model (or adapter) yielded a chunk outside the `ModelChunk` contract. */
export class MalformedChunkError extends ToolgateError {
  readonly chunk: unknown

  constructor(problem: string, chunk: unknown) {
    super('MALFORMED_MODEL_CHUNK', `The model yielded a malformed chunk: ${problem}`)
    this.chunk = chunk
  }
}

const FINISH_REASONS: ReadonlySet<unknown> = new Set(['stop', 'tool_calls', 'length', 'content_filter', 'other'])

/**
 * Every chunk is checked where it enters: a number as a text delta would go out as invalid AG-UI
 * and be stored as text, and a chunk type the runtime does not know would be dropped unseen. A
 * malformed chunk ends the run (the browser gets a safe RUN_ERROR, `onError` the chunk).
 */
function checkedChunk(chunk: unknown): ModelChunk {
  const problem = chunkProblem(chunk)
  if (problem !== undefined) throw new MalformedChunkError(problem, chunk)
  return chunk as ModelChunk
}

function chunkProblem(chunk: unknown): string | undefined {
  if (!isRecord(chunk)) return 'not an object'
  switch (chunk.type) {
    // The chunks a model streams thousands of: their keys read by name (a read by a variable key is a megamorphic load per key), the problem worded only when there is one.
    case 'text-delta':
    case 'reasoning-delta':
      return typeof chunk.delta === 'string' ? undefined : stringProblem(chunk, 'delta')
    case 'reasoning':
      return stringProblem(chunk, 'text') ?? recordProblem(chunk, 'providerMetadata')
    case 'tool-call-start':
      return stringProblem(chunk, 'toolCallId') ?? stringProblem(chunk, 'toolName', true)
    case 'tool-call-delta':
      return typeof chunk.toolCallId === 'string' && typeof chunk.delta === 'string' ? undefined : (stringProblem(chunk, 'toolCallId') ?? stringProblem(chunk, 'delta'))
    case 'tool-call-end':
      return stringProblem(chunk, 'toolCallId') ?? recordProblem(chunk, 'providerMetadata')
    case 'finish':
      return FINISH_REASONS.has(chunk.reason) ? recordProblem(chunk, 'usage') : `unknown finish reason ${JSON.stringify(chunk.reason) ?? 'undefined'}`
    default:
      return `unknown chunk type ${JSON.stringify(chunk.type) ?? 'undefined'}`
  }
}

// Module functions, not closures per chunk: a model streams thousands of chunks a turn.
function stringProblem(chunk: Record<string, unknown>, key: string, nonEmpty = false): string | undefined {
  const value = chunk[key]
  if (typeof value === 'string' && (!nonEmpty || value !== '')) return undefined
  return `\`${key}\` of a "${String(chunk.type)}" chunk must be a ${nonEmpty ? 'non-empty ' : ''}string`
}

function recordProblem(chunk: Record<string, unknown>, key: string): string | undefined {
  return chunk[key] === undefined || isRecord(chunk[key]) ? undefined : `\`${key}\` of a "${String(chunk.type)}" chunk must be an object`
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
 * Hands `each` the iterator's values until it is done, fails or the run aborts, and settles with
 * the step's `end` as soon as one of those happens: a model that ignores its signal must not keep
 * the run alive. The reads take the iterator's own promises, each with the same two reactions
 * made once per step (an `await` per chunk makes its own, and an async function its promise); one
 * promise per step, not one per chunk, stands for the step (a model streams thousands of chunks a
 * turn), and the run, not a listener on its signal, says when it aborts (run/runAbort.ts). An abort
 * ends the step a microtask after it, never inside the call that aborted. Whether it aborted is
 * kept here as the run tells it, not read off the signal twice a chunk (Node's `aborted` getter
 * is a megamorphic load, several times the cost of the rest of a chunk's check).
 */
function readUntilAborted<T, R>(iterator: AsyncIterator<T>, run: StepRun, each: (value: T) => void, end: (failed: boolean, failure: unknown) => R): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    let ended = false
    // The run tells its abort at once, in the call that aborts the signal (run/runAbort.ts), and not at all if it already had.
    let aborted = run.signal.aborted
    const finish = (failed: boolean, failure: unknown) => {
      if (ended) return
      ended = true
      cancel()
      try {
        resolve(end(failed, failure))
      } catch (error) {
        reject(error)
      }
    }
    const cancel = run.whenAborted(() => {
      aborted = true
      queueMicrotask(() => finish(false, undefined))
    })
    const failed = (error: unknown) => finish(true, error)
    const read = (): void => {
      if (aborted) return finish(false, undefined)
      try {
        // A model's `next` that answers with a value or a thenable, not a promise, is read as `await` would.
        Promise.resolve(iterator.next()).then(took, failed)
      } catch (error) {
        finish(true, error)
      }
    }
    const took = (next: IteratorResult<T> | undefined) => {
      try {
        // Read after an abort, a chunk is dropped: the step already ended.
        if (next === undefined || next.done || aborted) return finish(false, undefined)
        each(next.value)
      } catch (error) {
        return finish(true, error)
      }
      read()
    }
    read()
  })
}

function addUsage(totals: UsageTotals, usage: ModelUsage): void {
  totals.inputTokens += count(usage.inputTokens)
  totals.outputTokens += count(usage.outputTokens)
  totals.cachedInputTokens += count(usage.cachedInputTokens)
  totals.reasoningTokens += count(usage.reasoningTokens)
  totals.reported = true
}

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0
}
