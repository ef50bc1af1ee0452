import type { AnyTool } from '../tools/types.ts'
import { resolveLimits, type ChatLimits, type ResolvedLimits } from './limits.ts'
import { memoryStore } from './memoryStore.ts'
import type { ChatModel } from '../model/chatModel.ts'
import type { ThreadStore } from './threadStore.ts'
import { createToolset, type Toolset } from './toolset.ts'

/** `create`: a new thread gets this id (record its owner now). `read`: GET. `write`: a message or a resume. */
export type ThreadAction = 'create' | 'read' | 'write'

export type Authorize = (request: Request, threadId: string, access: { readonly action: ThreadAction }) => boolean | Promise<boolean>

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

export type OnRunError = (error: unknown, run: { readonly threadId: string; readonly runId: string }) => void

/** The options with defaults applied, as the runtime uses them. */
export interface ChatConfig {
  readonly model: ChatModel
  readonly toolset: Toolset
  readonly store: ThreadStore
  readonly limits: ResolvedLimits
  readonly maxSteps: number
  readonly authorize: Authorize | undefined
  readonly resolveContext: (request: Request) => Promise<unknown>
  readonly onError: OnRunError | undefined
}

export function resolveConfig<TContext>(options: ChatHandlerOptions<TContext>): ChatConfig {
  if (!options || typeof options.model?.stream !== 'function') {
    throw new TypeError('createChatHandler needs a `model` with a `stream` method')
  }
  const maxSteps = options.maxSteps ?? 10
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new TypeError('`maxSteps` must be a positive integer')
  if (options.onError !== undefined && typeof options.onError !== 'function') throw new TypeError('`onError` must be a function')
  const { context } = options
  return {
    model: options.model,
    toolset: createToolset(options.tools ?? []),
    store: options.store ?? memoryStore(),
    limits: resolveLimits(options.limits),
    maxSteps,
    authorize: options.authorize,
    onError: options.onError,
    resolveContext: async (request) =>
      typeof context === 'function' ? (context as (request: Request) => unknown)(request) : context,
  }
}
