import { ToolgateError, ToolValidationError } from '../../errors.ts'
import type { ModelTool } from '../../model/chatModel.ts'
import type { ThreadAssistantMessage, ThreadMessage, ThreadToolMessage } from '../../protocol/messages.ts'
import type { AnyTool } from '../../tools/types.ts'
import { validateToolInput, validateToolOutput } from '../../tools/validateToolValue.ts'
import { isRecord } from '../../util/isRecord.ts'

// Middleware: the app's hooks around a run's model calls and tool calls. Each hook runs in
// registration order and sees what the previous one returned; returning `undefined` keeps the
// value. A replacement is validated again where the tool has a schema. A hook that throws (or
// returns a value that fails the schema) ends the run with RUN_ERROR `INTERNAL`: the browser is
// told nothing of the error, `onError` gets it whole.

type Awaitable<T> = T | Promise<T>

/** What every hook receives beside its value. */
export interface MiddlewareContext {
  readonly threadId: string
  readonly runId: string
  /** The app's `context`, as the handler resolved it for this request. */
  readonly context: unknown
  /** Aborted when the run stops. */
  readonly signal: AbortSignal
}

/** What one model call is sent. */
export interface ModelCall {
  readonly messages: readonly ThreadMessage[]
  readonly tools: readonly ModelTool[]
}

/** A call of the model's whose input passed the tool's schema, before approval and execution. */
export interface ToolInputCall {
  readonly toolCallId: string
  readonly toolName: string
  /** The validated input. */
  readonly input: unknown
}

/** A server tool's validated output, before it is stored, streamed and read by the model. */
export interface ToolOutputResult {
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
  readonly output: unknown
}

declare const refusal: unique symbol
/** Returned by a `toolInput` hook to refuse the call: `message` is the error the model reads. */
export interface ToolRefusal {
  readonly [refusal]: true
  readonly message: string
}

const refusals = new WeakSet<object>()

/** Refuses a call from a `toolInput` hook: it does not run, and the model reads `message` as its result. */
export function refuseToolCall(message: string): ToolRefusal {
  const value = Object.freeze({ message: String(message) }) as ToolRefusal
  refusals.add(value)
  return value
}

export interface ChatMiddleware {
  /** Named in errors and logs. */
  readonly name?: string
  /** Before each model call: return `{ messages?, tools? }` to change what the model is sent (this call only). */
  readonly modelRequest?: (call: ModelCall, ctx: MiddlewareContext) => Awaitable<Partial<ModelCall> | undefined | void>
  /**
   * After each model step that completed, before its calls are planned and it is stored: return a
   * replacement message. The stream already showed the original to the browser.
   */
  readonly modelResponse?: (message: ThreadAssistantMessage, ctx: MiddlewareContext) => Awaitable<ThreadAssistantMessage | undefined | void>
  /** After validation, before approval and execution: return a new input (validated again), or `refuseToolCall(message)`. */
  readonly toolInput?: (call: ToolInputCall, ctx: MiddlewareContext) => Awaitable<unknown>
  /** A server tool's output before it is stored and sent to the model: return a replacement (validated again), e.g. redacted. */
  readonly toolOutput?: (result: ToolOutputResult, ctx: MiddlewareContext) => Awaitable<unknown>
}

type Hook = 'modelRequest' | 'modelResponse' | 'toolInput' | 'toolOutput'
const HOOKS: readonly Hook[] = ['modelRequest', 'modelResponse', 'toolInput', 'toolOutput']

/** A middleware threw, or returned a value its hook cannot take. Ends the run. */
export class MiddlewareError extends ToolgateError {
  readonly hook: Hook
  readonly middleware: string

  constructor(middleware: string, hook: Hook, problem: string, options?: ErrorOptions) {
    super('MIDDLEWARE_ERROR', `Middleware ${middleware} failed in \`${hook}\`: ${problem}`, options)
    this.hook = hook
    this.middleware = middleware
  }
}

/** Checks `createChatHandler({ middleware })` at startup. Returns the problem, if any. */
export function middlewareProblem(middleware: unknown): { option: string; problem: string } | undefined {
  if (!Array.isArray(middleware)) return { option: 'middleware', problem: 'must be an array' }
  for (const [index, entry] of middleware.entries()) {
    if (!isRecord(entry)) return { option: `middleware[${index}]`, problem: 'must be an object of hooks' }
    for (const hook of HOOKS) {
      if (entry[hook] !== undefined && typeof entry[hook] !== 'function') return { option: `middleware[${index}].${hook}`, problem: 'must be a function' }
    }
    if (entry.name !== undefined && typeof entry.name !== 'string') return { option: `middleware[${index}].name`, problem: 'must be a string' }
  }
  return undefined
}

export type InputDecision = { readonly input: unknown; readonly replaced: boolean } | { readonly refused: string }

/** One run's middleware. A failure in `toolOutput` is held (tool calls run in parallel) and thrown once the step is stored. */
export class RunMiddleware {
  readonly #list: readonly ChatMiddleware[]
  readonly #ctx: MiddlewareContext
  #failure: MiddlewareError | undefined

  constructor(list: readonly ChatMiddleware[], ctx: MiddlewareContext) {
    this.#list = list
    this.#ctx = ctx
  }

  /** Whether the app gave any middleware: without, a caller may skip the hooks (and their awaits) altogether. */
  get any(): boolean {
    return this.#list.length > 0
  }

  async modelRequest(call: ModelCall): Promise<ModelCall> {
    let current = call
    for (const [index, middleware] of this.#list.entries()) {
      if (!middleware.modelRequest) continue
      const next = await this.#run(index, 'modelRequest', () => middleware.modelRequest!(current, this.#ctx))
      if (next === undefined) continue
      if (!isRecord(next) || (next.messages !== undefined && !Array.isArray(next.messages)) || (next.tools !== undefined && !Array.isArray(next.tools))) {
        throw new MiddlewareError(nameOf(middleware, index), 'modelRequest', 'return `{ messages?, tools? }` with arrays, or nothing')
      }
      current = { messages: next.messages ?? current.messages, tools: next.tools ?? current.tools }
    }
    return current
  }

  async modelResponse(message: ThreadAssistantMessage): Promise<ThreadAssistantMessage> {
    let current = message
    for (const [index, middleware] of this.#list.entries()) {
      if (!middleware.modelResponse) continue
      const next = await this.#run(index, 'modelResponse', () => middleware.modelResponse!(current, this.#ctx))
      if (next === undefined) continue
      if (!isAssistantMessage(next)) {
        throw new MiddlewareError(nameOf(middleware, index), 'modelResponse', 'return an assistant message (`role`, `id`, `content`, `toolCalls`), or nothing')
      }
      current = next
    }
    return current
  }

  async toolInput(call: ToolInputCall, tool: AnyTool): Promise<InputDecision> {
    let input = call.input
    let replaced = false
    for (const [index, middleware] of this.#list.entries()) {
      if (!middleware.toolInput) continue
      const next = await this.#run(index, 'toolInput', () => middleware.toolInput!({ ...call, input }, this.#ctx))
      if (next === undefined) continue
      if (typeof next === 'object' && next !== null && refusals.has(next)) return { refused: (next as ToolRefusal).message }
      input = await this.#revalidate(index, middleware, 'toolInput', () => validateToolInput(tool, next))
      replaced = true
    }
    return { input, replaced }
  }

  /** Never throws: a failing hook withholds the output (the model reads an error) and ends the run after the step is stored. */
  async toolOutput(result: ThreadToolMessage, input: unknown, tool: AnyTool, rebuild: (output: unknown) => ThreadToolMessage): Promise<ThreadToolMessage> {
    if (result.status !== 'success' || !this.#list.some((middleware) => middleware.toolOutput)) return result
    let output = result.output
    let replaced = false
    try {
      for (const [index, middleware] of this.#list.entries()) {
        if (!middleware.toolOutput) continue
        const current = output
        const next = await this.#run(index, 'toolOutput', () =>
          middleware.toolOutput!({ toolCallId: result.toolCallId, toolName: result.toolName, input, output: current }, this.#ctx),
        )
        if (next === undefined) continue
        output = await this.#revalidate(index, middleware, 'toolOutput', () => validateToolOutput(tool, next))
        replaced = true
      }
    } catch (error) {
      this.#failure ??= error as MiddlewareError
      const { output: _withheld, ...rest } = result
      return { ...rest, content: `The result of tool "${result.toolName}" was withheld: the server failed to process it`, status: 'error' }
    }
    return replaced ? rebuild(output) : result
  }

  /** Throws the first `toolOutput` failure of the run, once. */
  throwIfFailed(): void {
    const failure = this.#failure
    this.#failure = undefined
    if (failure) throw failure
  }

  async #run<T>(index: number, hook: Hook, call: () => Awaitable<T>): Promise<T> {
    try {
      return await call()
    } catch (error) {
      if (error instanceof MiddlewareError) throw error
      const middleware = this.#list[index]!
      throw new MiddlewareError(nameOf(middleware, index), hook, error instanceof Error ? error.message : String(error), { cause: error })
    }
  }

  async #revalidate(index: number, middleware: ChatMiddleware, hook: Hook, validate: () => Promise<unknown>): Promise<unknown> {
    try {
      return await validate()
    } catch (error) {
      const problem = error instanceof ToolValidationError ? `its replacement fails the tool's schema:\n${error.message}` : String(error)
      throw new MiddlewareError(nameOf(middleware, index), hook, problem, { cause: error })
    }
  }
}

function nameOf(middleware: ChatMiddleware, index: number): string {
  return middleware.name ? `"${middleware.name}"` : `#${index}`
}

function isAssistantMessage(value: unknown): value is ThreadAssistantMessage {
  return (
    isRecord(value) &&
    value.role === 'assistant' &&
    typeof value.id === 'string' &&
    typeof value.content === 'string' &&
    Array.isArray(value.toolCalls) &&
    value.toolCalls.every((call) => isRecord(call) && typeof call.id === 'string' && typeof call.name === 'string' && typeof call.arguments === 'string')
  )
}

let none: RunMiddleware | undefined
/**
 * The middleware of every run of a handler that has none: nothing to bind to a run, and nothing
 * ever held (no hook runs). Made on first use, not at import: Workers refuse an `AbortController`
 * made in a module's global scope.
 */
export const noMiddleware = (): RunMiddleware => (none ??= new RunMiddleware([], { threadId: '', runId: '', context: undefined, signal: new AbortController().signal }))
