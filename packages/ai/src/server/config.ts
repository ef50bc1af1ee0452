import { InvalidOptionError } from '../errors.ts'
import type { ChatModel } from '../model/chatModel.ts'
import type { AnyTool } from '../tools/types.ts'
import { isRecord } from '../util/isRecord.ts'
import { memoryStore } from './stores/memory.ts'
import type { ThreadStore } from './threadStore.ts'
import { createToolRegistry, type ToolRegistry } from './toolRegistry.ts'

/** `create`: a new thread gets this id (record its owner now). `read`: GET. `write`: a message or a resume. */
export type ThreadAction = 'create' | 'read' | 'write'

export type Authorize = (request: Request, threadId: string, access: { readonly action: ThreadAction }) => boolean | Promise<boolean>

export type OnRunError = (error: unknown, run: { readonly threadId: string; readonly runId: string }) => void

export interface ChatHandlerOptions<TContext = undefined> {
  readonly model: ChatModel
  /** `.server()` tools run on the server; bare definitions are declared to the model and run in the browser. */
  readonly tools?: readonly AnyTool[]
  /** Where threads live. Default: `memoryStore()` (one process, lost on restart). */
  readonly store?: ThreadStore
  /** The app's data for tools and approval policies (`ctx.context`); a function is called per request. */
  readonly context?: TContext | ((request: Request) => TContext | Promise<TContext>)
  /** Return `false` to refuse a user access to a thread (403). */
  readonly authorize?: Authorize
  /** Model calls per user message, across resumes. Default 10. */
  readonly maxSteps?: number
  readonly limits?: ChatLimits
  /**
   * Called once for each run that ends with RUN_ERROR, with the full error (a model's error keeps
   * the provider's message and its `cause`); the browser only gets a safe summary. Default: `console.error`.
   */
  readonly onError?: OnRunError
}

export interface ChatLimits {
  /** Largest request body accepted; larger ones get 413. Default 1 MB. */
  readonly maxBodyBytes?: number
  /** Deny reasons and client error texts are cut to this many characters. Default 500. */
  readonly maxReasonLength?: number
  /** A server tool that runs longer is aborted and the model told so. Default 30 s; shorter than `runLeaseMs`. */
  readonly toolTimeoutMs?: number
  /**
   * How long a thread stays held by a run whose process stopped renewing it (a live run renews it
   * every third of this). After a crash, the thread takes requests again once it lapses. Default 60 s.
   */
  readonly runLeaseMs?: number
  /**
   * Messages a thread may hold (user, assistant and tool messages). A new message needs room for
   * itself, the results of interrupts it supersedes and a reply; without it the request is refused
   * (409 `THREAD_FULL`) and nothing changes. A model step that would not fit with a result for each
   * of its calls ends the run with RUN_ERROR `THREAD_FULL` and is not stored. Default 500.
   */
  readonly maxThreadMessages?: number
}

/** The options with defaults applied, as the runtime uses them. */
export interface ChatConfig {
  readonly model: ChatModel
  readonly tools: ToolRegistry
  readonly store: ThreadStore
  readonly limits: Required<ChatLimits>
  readonly maxSteps: number
  readonly authorize: Authorize | undefined
  readonly resolveContext: (request: Request) => Promise<unknown>
  readonly onError: OnRunError | undefined
}

const WHERE = 'createChatHandler'

/** Checks every option when the handler is created, so a misconfiguration fails at startup, never per request. */
export function resolveConfig<TContext>(options: ChatHandlerOptions<TContext>): ChatConfig {
  if (!isRecord(options)) throw new InvalidOptionError(WHERE, 'options', 'must be an object')
  const { model, store, authorize, onError, context } = options
  if (!isRecord(model) || typeof model.stream !== 'function') throw new InvalidOptionError(WHERE, 'model', 'must be a ChatModel with a `stream` method')
  if (store !== undefined && !isThreadStore(store)) throw new InvalidOptionError(WHERE, 'store', 'must be a ThreadStore (`head`, `messages` and `commit` methods)')
  if (authorize !== undefined && typeof authorize !== 'function') throw new InvalidOptionError(WHERE, 'authorize', 'must be a function')
  if (onError !== undefined && typeof onError !== 'function') throw new InvalidOptionError(WHERE, 'onError', 'must be a function')
  if (options.tools !== undefined && !Array.isArray(options.tools)) throw new InvalidOptionError(WHERE, 'tools', 'must be an array of tools')
  return {
    model,
    tools: createToolRegistry(options.tools ?? [], WHERE),
    store: store ?? memoryStore(),
    limits: resolveLimits(options.limits),
    maxSteps: positiveInteger(options.maxSteps, 'maxSteps', 10),
    authorize,
    onError,
    resolveContext: async (request) =>
      typeof context === 'function' ? (context as (request: Request) => unknown)(request) : context,
  }
}

function resolveLimits(limits: ChatLimits | undefined): Required<ChatLimits> {
  if (limits !== undefined && !isRecord(limits)) throw new InvalidOptionError(WHERE, 'limits', 'must be an object')
  const resolved = {
    maxBodyBytes: positiveInteger(limits?.maxBodyBytes, 'limits.maxBodyBytes', 1024 * 1024),
    maxReasonLength: positiveInteger(limits?.maxReasonLength, 'limits.maxReasonLength', 500),
    toolTimeoutMs: positiveInteger(limits?.toolTimeoutMs, 'limits.toolTimeoutMs', 30_000),
    runLeaseMs: positiveInteger(limits?.runLeaseMs, 'limits.runLeaseMs', 60_000),
    maxThreadMessages: positiveInteger(limits?.maxThreadMessages, 'limits.maxThreadMessages', 500),
  }
  // A message and its reply: fewer, and no thread could ever be answered.
  if (resolved.maxThreadMessages < 2) throw new InvalidOptionError(WHERE, 'limits.maxThreadMessages', 'must be at least 2')
  // A tool that could run past the lease could be taken for lost while it still runs.
  if (resolved.toolTimeoutMs >= resolved.runLeaseMs) {
    throw new InvalidOptionError(WHERE, 'limits.toolTimeoutMs', `must be shorter than \`limits.runLeaseMs\` (${resolved.runLeaseMs} ms), so no tool outlives its run's lease`)
  }
  return resolved
}

function positiveInteger(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidOptionError(WHERE, option, `must be a positive integer (got ${describe(value)})`)
  }
  return value
}

function isThreadStore(value: unknown): value is ThreadStore {
  return isRecord(value) && typeof value.head === 'function' && typeof value.messages === 'function' && typeof value.commit === 'function'
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : typeof value === 'number' ? String(value) : typeof value
}

/** Cuts user-supplied text the model will read, so one answer cannot flood the context. */
export function capText(text: string, maxLength: number): string {
  const chars = [...text]
  return chars.length <= maxLength ? text : `${chars.slice(0, maxLength).join('')}…`
}
