import { InvalidOptionError } from '../errors.ts'
import { fetchRequest } from './http/nodeRequest.ts'
import type { ChatModel } from '../model/chatModel.ts'
import { isToolSearch, type ToolSearch } from '../tools/toolSearch.ts'
import type { AnyTool, InferToolContext } from '../tools/types.ts'
import { isRecord } from '../util/isRecord.ts'
import { memoryAttachmentStore, type AttachmentStore } from './attachments.ts'
import { checkContext } from './context.ts'
import { middlewareProblem, type ChatMiddleware } from './middleware.ts'
import { memoryEventLog, memoryStore } from './stores/memory.ts'
import type { RunEventLog, ThreadStore } from './threadStore.ts'
import { createToolRegistry, type ToolRegistry } from './toolRegistry.ts'

/** `create`: a new thread gets this id (record its owner now). `read`: GET. `write`: a message or a resume. */
export type ThreadAction = 'create' | 'read' | 'write'

export type Authorize = (request: Request, threadId: string, access: { readonly action: ThreadAction }) => boolean | Promise<boolean>

/** Where a failure happened that the browser only hears about in general terms. */
export interface ErrorScope {
  readonly threadId: string
  readonly runId: string
  /** `run`: the run ended with RUN_ERROR. `tool`: a server tool threw. `approval-policy`: a `needsApproval` policy threw. */
  readonly source: 'run' | 'tool' | 'approval-policy'
  readonly toolCallId?: string
  readonly toolName?: string
}

export type OnError = (error: unknown, scope: ErrorScope) => void

/** The call whose tool threw, as `toolErrorMessage` receives it. */
export interface FailedCall {
  readonly toolName: string
  readonly toolCallId: string
}

/**
 * What the handler's `context` must be for `TTools`: every tool's `contextSchema` input at once
 * (the registered context for tools without one).
 */
export type ToolsContext<TTools extends readonly AnyTool[]> = (
  TTools[number] extends infer TTool ? (TTool extends AnyTool ? (context: InferToolContext<TTool>) => void : never) : never
) extends (context: infer TContext) => void
  ? TContext
  : unknown

/** `context` becomes a required option once a tool needs values that `undefined` cannot give. */
export type ContextOption<TTools extends readonly AnyTool[]> = undefined extends ToolsContext<TTools>
  ? {}
  : { readonly context: unknown }

export interface ChatHandlerOptions<TContext = undefined, TTools extends readonly AnyTool[] = readonly AnyTool[]> {
  readonly model: ChatModel
  /**
   * `.server()` tools run on the server; bare definitions are declared to the model and run in the
   * browser. A `toolSearch(...)` instead declares, for each model call, the tools that fit the
   * conversation (and those already called in the thread); any of its tools can run.
   */
  readonly tools?: TTools | ToolSearch<TTools>
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
   * Called with every error the browser only gets a safe summary of: once for each run that ends
   * with RUN_ERROR (a model's error keeps the provider's message and its `cause`), for each server
   * tool that throws anything but a `ToolError`, and for each approval policy that throws.
   * Default: `console.error`.
   */
  readonly onError?: OnError
  /**
   * The text the model and the browser get when a server tool throws anything but a `ToolError`
   * (whose message passes through). Return `undefined` for the default, `Tool "name" failed`.
   * Its text is stored and streamed: never include the error's own message unless you know it is safe.
   */
  readonly toolErrorMessage?: (error: unknown, call: FailedCall) => string | undefined
  /**
   * Hooks on each model request and response and on each tool call's input and output, run in this
   * order; see `ChatMiddleware`. A hook that throws ends the run with a safe RUN_ERROR.
   */
  readonly middleware?: readonly ChatMiddleware[]
  /** Where files that tools return (`toolResult()`) are kept. Default: `memoryAttachmentStore()`. */
  readonly attachments?: AttachmentStore
  /**
   * AG-UI frontend tools the handler accepts, by name: tools a client declares in
   * `RunAgentInput.tools` and runs itself (answered through `resume`, like a `.client()` tool). Any
   * other declared tool is ignored: by default the model sees only the server's tools.
   */
  readonly frontendTools?: readonly string[]
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
  /**
   * Largest single message, as JSON in UTF-8 bytes: a user message beyond it gets 413, a client
   * tool's result or edited arguments 413, and a server tool's output is replaced by an error the
   * model reads. Default 256 KB.
   */
  readonly maxMessageBytes?: number
  /**
   * Largest thread, as JSON in UTF-8 bytes. A new message that does not fit is refused (409
   * `THREAD_FULL`); a run that reaches it ends with RUN_ERROR `THREAD_FULL` before its next model
   * call (a step under way is stored whole, so a thread may pass it by one step). Default 8 MB.
   */
  readonly maxThreadBytes?: number
  /** Most bytes of files one tool result (`toolResult()`) may carry; more makes the call fail with a clear error and stores nothing. Default 5 MB. */
  readonly maxAttachmentBytes?: number
  /**
   * How long an interrupt takes answers; it carries the moment as `expiresAt`, and a later answer gets
   * 410 `INTERRUPT_EXPIRED`. Default 0: interrupts do not expire.
   */
  readonly interruptTtlMs?: number
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
  readonly onError: OnError | undefined
  readonly toolErrorMessage: ((error: unknown, call: FailedCall) => string | undefined) | undefined
  /** Runs' events for readers that (re)attach: the store's log, or this process's. */
  readonly events: RunEventLog
  /** The runs this process is running, by id, each with what stops it at once. */
  readonly liveRuns: Map<string, AbortController>
  readonly middleware: readonly ChatMiddleware[]
  /** Picks the tools declared to each model call; without it, every tool is declared. */
  readonly toolSearch: ToolSearch | undefined
  readonly attachments: AttachmentStore
  /** Names of the AG-UI frontend tools accepted (see `ChatHandlerOptions.frontendTools`). */
  readonly frontendTools: ReadonlySet<string>
}

const WHERE = 'createChatHandler'

/** Checks every option when the handler is created, so a misconfiguration fails at startup, never per request. */
export function resolveConfig<TContext>(options: ChatHandlerOptions<TContext, readonly AnyTool[]>): ChatConfig {
  if (!isRecord(options)) throw new InvalidOptionError(WHERE, 'options', 'must be an object')
  const { model, store, authorize, onError, context, toolErrorMessage } = options
  if (!isRecord(model) || typeof model.stream !== 'function') throw new InvalidOptionError(WHERE, 'model', 'must be a ChatModel with a `stream` method')
  if (store !== undefined && !isThreadStore(store)) throw new InvalidOptionError(WHERE, 'store', 'must be a ThreadStore (`head`, `messages` and `commit` methods)')
  if (authorize !== undefined && typeof authorize !== 'function') throw new InvalidOptionError(WHERE, 'authorize', 'must be a function')
  if (onError !== undefined && typeof onError !== 'function') throw new InvalidOptionError(WHERE, 'onError', 'must be a function')
  if (toolErrorMessage !== undefined && typeof toolErrorMessage !== 'function') throw new InvalidOptionError(WHERE, 'toolErrorMessage', 'must be a function')
  const search = isToolSearch(options.tools) ? options.tools : undefined
  if (options.tools !== undefined && !search && !Array.isArray(options.tools)) throw new InvalidOptionError(WHERE, 'tools', 'must be an array of tools or a toolSearch()')
  const { attachments } = options
  if (attachments !== undefined && !(isRecord(attachments) && typeof attachments.put === 'function' && typeof attachments.get === 'function')) {
    throw new InvalidOptionError(WHERE, 'attachments', 'must be an AttachmentStore (`put` and `get` methods)')
  }
  const middlewareIssue = options.middleware === undefined ? undefined : middlewareProblem(options.middleware)
  if (middlewareIssue) throw new InvalidOptionError(WHERE, middlewareIssue.option, middlewareIssue.problem)
  const tools = createToolRegistry(search ? search.tools : ((options.tools as readonly AnyTool[] | undefined) ?? []), WHERE)
  const threads = store ?? memoryStore()
  return {
    model,
    tools,
    store: threads,
    events: threads.events ?? memoryEventLog(),
    liveRuns: new Map(),
    limits: resolveLimits(options.limits),
    maxSteps: positiveInteger(options.maxSteps, 'maxSteps', 10),
    authorize,
    onError,
    toolErrorMessage,
    middleware: options.middleware ?? [],
    toolSearch: search,
    attachments: options.attachments ?? memoryAttachmentStore(),
    frontendTools: frontendToolNames(options.frontendTools, tools),
    resolveContext: async (request) =>
      checkContext(tools, typeof context === 'function' ? await (context as (request: Request) => unknown)(fetchRequest(request)) : context),
  }
}

function frontendToolNames(names: unknown, tools: ToolRegistry): ReadonlySet<string> {
  if (names === undefined) return new Set()
  if (!Array.isArray(names)) throw new InvalidOptionError(WHERE, 'frontendTools', 'must be an array of tool names')
  names.forEach((name: unknown, index) => {
    if (typeof name !== 'string' || name === '') throw new InvalidOptionError(WHERE, `frontendTools[${index}]`, 'must be a non-empty string')
    if (tools.get(name)) throw new InvalidOptionError(WHERE, `frontendTools[${index}]`, `names the server's own tool "${name}"; a client cannot redefine it`)
  })
  return new Set(names as string[])
}

function resolveLimits(limits: ChatLimits | undefined): Required<ChatLimits> {
  if (limits !== undefined && !isRecord(limits)) throw new InvalidOptionError(WHERE, 'limits', 'must be an object')
  const resolved = {
    maxBodyBytes: positiveInteger(limits?.maxBodyBytes, 'limits.maxBodyBytes', 1024 * 1024),
    maxReasonLength: positiveInteger(limits?.maxReasonLength, 'limits.maxReasonLength', 500),
    toolTimeoutMs: positiveInteger(limits?.toolTimeoutMs, 'limits.toolTimeoutMs', 30_000),
    runLeaseMs: positiveInteger(limits?.runLeaseMs, 'limits.runLeaseMs', 60_000),
    maxThreadMessages: positiveInteger(limits?.maxThreadMessages, 'limits.maxThreadMessages', 500),
    maxMessageBytes: positiveInteger(limits?.maxMessageBytes, 'limits.maxMessageBytes', 256 * 1024),
    maxThreadBytes: positiveInteger(limits?.maxThreadBytes, 'limits.maxThreadBytes', 8 * 1024 * 1024),
    maxAttachmentBytes: positiveInteger(limits?.maxAttachmentBytes, 'limits.maxAttachmentBytes', 5 * 1024 * 1024),
    interruptTtlMs: limits?.interruptTtlMs === 0 ? 0 : positiveInteger(limits?.interruptTtlMs, 'limits.interruptTtlMs', 0),
  }
  if (resolved.maxMessageBytes > resolved.maxThreadBytes) {
    throw new InvalidOptionError(WHERE, 'limits.maxMessageBytes', `must not exceed \`limits.maxThreadBytes\` (${resolved.maxThreadBytes})`)
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
