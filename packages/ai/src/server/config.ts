import { InvalidOptionError } from '../errors.ts'
import { fetchRequest } from './appRequest.ts'
import { isToolSearch } from '../tools/toolSearch.ts'
import type { AnyTool } from '../tools/types.ts'
import { isRecord } from '../util/isRecord.ts'
import type { Principal } from '../protocol/decisions.ts'
import { ANONYMOUS } from './decisions/records.ts'
import { reviewLinkKey } from './decisions/reviewLinks.ts'
import { DEFAULT_LINK_TTL_MS } from './decisions/approvalRequests.ts'
import type { ChatConfig, ChatHandlerOptions, ChatLimits, DecisionRecordOptions, DevtoolsRuns, ReviewLinkOptions } from './options.ts'
import { decisionRecordKey, secretProblem } from './decisions/recordKey.ts'
import { UNSIGNED_DECISIONS, warnOnce } from './warnings.ts'
import { recentRuns } from './devtools/recentRuns.ts'
import { checkContext } from './run/context.ts'
import { middlewareProblem } from './run/middleware.ts'
import { createToolRegistry, type ToolRegistry } from '../tools/toolRegistry.ts'
import { memoryEventLog, memoryStore } from './stores/memory.ts'
import { isMemoryAttachmentStore, memoryAttachmentStore } from './stores/memoryAttachments.ts'
import type { AttachmentStore } from './thread/attachmentStore.ts'
import type { ThreadStore } from './thread/threadStore.ts'
import { ThreadCache } from './thread/threadCache.ts'
import { RunClock } from './run/runClock.ts'

const WHERE = 'createChatHandler'

/** Checks every option when the handler is created, so a misconfiguration fails at startup, never per request. */
export function resolveConfig<TContext>(options: ChatHandlerOptions<TContext, readonly AnyTool[]>): ChatConfig {
  if (!isRecord(options)) throw new InvalidOptionError(WHERE, 'options', 'must be an object')
  const { model, store, authorize, onError, context, toolErrorMessage, telemetry, identify, onDecision } = options
  if (identify !== undefined && typeof identify !== 'function') throw new InvalidOptionError(WHERE, 'identify', 'must be a function of the request')
  if (onDecision !== undefined && typeof onDecision !== 'function') throw new InvalidOptionError(WHERE, 'onDecision', 'must be a function')
  if (telemetry !== undefined && !(isRecord(telemetry) && typeof telemetry.run === 'function' && typeof telemetry.requestStarted === 'function')) {
    throw new InvalidOptionError(WHERE, 'telemetry', 'must be made by `openTelemetry()` from `@toolgate/ai/telemetry`')
  }
  if (!isRecord(model) || typeof model.stream !== 'function') throw new InvalidOptionError(WHERE, 'model', 'must be a ChatModel with a `stream` method')
  if (store !== undefined && !isThreadStore(store)) throw new InvalidOptionError(WHERE, 'store', 'must be a ThreadStore (`head`, `messages`, `commit` and `decisions` methods)')
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
  const limits = resolveLimits(options.limits)
  // Only a shared store pays a round trip for a head or a history; the memory store's are at hand.
  const threadCache = threads.pipelines === true ? new ThreadCache() : undefined
  return {
    model,
    tools,
    store: threadCache ? threadCache.observe(threads) : threads,
    threadCache,
    eventLog: threads.events ?? memoryEventLog(),
    liveRuns: new Map(),
    runClock: new RunClock(limits.runLeaseMs),
    watchers: { count: 0, byPrincipal: new Map() },
    limits,
    maxSteps: positiveInteger(options.maxSteps, 'maxSteps', 10),
    authorize,
    onError,
    toolErrorMessage,
    middleware: options.middleware ?? [],
    toolSearch: search,
    attachments: attachmentsOf(options.attachments, threads),
    frontendTools: frontendToolNames(options.frontendTools, tools),
    identify: identify ? async (request) => checkPrincipal(await identify(request)) : () => ANONYMOUS_PRINCIPAL,
    onDecision,
    recordKey: recordKeyOf(options),
    reviewLinks: resolveReviewLinks(options.reviewLinks),
    onApprovalRequested: checkedFunction(options.onApprovalRequested, 'onApprovalRequested'),
    onExpired: checkedFunction(options.onExpired, 'onExpired'),
    telemetry,
    devtools: devtoolsRuns(options.devtools),
    resolveContext: contextResolver(tools, context),
    resolveRequesterContext: requesterContextResolver(tools, context, checkedFunction(options.requesterContext, 'requesterContext')),
  }
}

/** Who a request is when the app has no `identify`: one settled answer serves every request (no promise made per request). */
const ANONYMOUS_PRINCIPAL = Promise.resolve(ANONYMOUS)

/**
 * The app's context for a request, checked against the tools' `contextSchema`s. A context that is
 * not a function, with no schema to check it, is the same for every request: one settled answer
 * serves them all (with a schema it is checked per request, as the app may change the object).
 */
function contextResolver(tools: ToolRegistry, context: unknown): ChatConfig['resolveContext'] {
  if (typeof context === 'function') return async (request) => checkContext(tools, await (context as (request: Request) => unknown)(fetchRequest(request)))
  if (tools.names.some((name) => tools.get(name)?.tool.contextSchema !== undefined)) return () => Promise.resolve(checkContext(tools, context))
  const same = Promise.resolve(context)
  return () => same
}

/**
 * The context for a requester, from the app's `requesterContext`; without it, the app's `context`
 * for a bare request that carries nobody's credentials: never the approver's.
 */
function requesterContextResolver(tools: ToolRegistry, context: unknown, forRequester: ((requester: Principal) => unknown) | undefined): ChatConfig['resolveRequesterContext'] {
  if (forRequester) return async (requester) => checkContext(tools, await forRequester(requester))
  const resolve = contextResolver(tools, context)
  return () => resolve(new Request('http://localhost/', { method: 'POST' }))
}

function checkedFunction<T>(value: T | undefined, option: string): T | undefined {
  if (value !== undefined && typeof value !== 'function') throw new InvalidOptionError(WHERE, option, 'must be a function')
  return value
}

function resolveReviewLinks(links: ReviewLinkOptions | undefined): ChatConfig['reviewLinks'] {
  if (links === undefined) return undefined
  if (!isRecord(links)) throw new InvalidOptionError(WHERE, 'reviewLinks', 'must be `{ secret, url?, ttlMs? }`')
  const { secret, url, ttlMs } = links
  const problem = secretProblem(secret)
  if (problem) throw new InvalidOptionError(WHERE, 'reviewLinks.secret', problem)
  if (url !== undefined && typeof url !== 'function') throw new InvalidOptionError(WHERE, 'reviewLinks.url', 'must be a function of the token')
  return {
    key: reviewLinkKey(secret),
    url: url ?? ((token) => token),
    ttlMs: positiveInteger(ttlMs, 'reviewLinks.ttlMs', DEFAULT_LINK_TTL_MS),
  }
}

/**
 * The records' key: `decisions.secret`, else the review links' (derived apart, so neither signs
 * for the other). Reviewers or audit hooks without either are warned about once: their records
 * prove nothing against someone who can write the store.
 */
function recordKeyOf(options: ChatHandlerOptions<unknown, readonly AnyTool[]>): Promise<CryptoKey> | undefined {
  const given: DecisionRecordOptions | undefined = options.decisions
  if (given !== undefined) {
    if (!isRecord(given)) throw new InvalidOptionError(WHERE, 'decisions', 'must be `{ secret }`')
    const problem = secretProblem(given.secret)
    if (problem) throw new InvalidOptionError(WHERE, 'decisions.secret', problem)
    return keyOf(given.secret)
  }
  const linkSecret = isRecord(options.reviewLinks) ? options.reviewLinks.secret : undefined
  if (linkSecret !== undefined && !secretProblem(linkSecret)) return keyOf(linkSecret)
  if (options.onApprovalRequested !== undefined || options.onExpired !== undefined || options.onDecision !== undefined) warnOnce(UNSIGNED_DECISIONS)
  return undefined
}

function keyOf(secret: string | Uint8Array): Promise<CryptoKey> {
  const key = decisionRecordKey(secret)
  key.catch(() => {}) // a failure is the first record's to report, not an unhandled rejection at startup
  return key
}


/** An app's `identify` that returns something other than a principal is a bug of the app: the request fails (500), it is never let through as someone. */
function checkPrincipal(principal: unknown): Principal {
  if (principal === undefined || principal === null) return ANONYMOUS
  const problem = principalProblem(principal)
  if (problem) throw new InvalidOptionError(WHERE, 'identify', problem)
  const { id, name, roles } = principal as Principal
  return { id, ...(name === undefined ? {} : { name }), ...(roles === undefined ? {} : { roles: [...roles] }) }
}

/** What is wrong with a principal an app gave (`identify`'s, or `decide`'s `by`), if anything. */
export function principalProblem(principal: unknown): string | undefined {
  return !isRecord(principal)
    ? 'must return `{ id, name?, roles? }` or undefined'
    : typeof principal.id !== 'string' || principal.id === ''
      ? 'returned a principal without a non-empty string `id`'
      : principal.name !== undefined && typeof principal.name !== 'string'
        ? 'returned a principal whose `name` is not a string'
        : principal.roles !== undefined && !(Array.isArray(principal.roles) && principal.roles.every((role) => typeof role === 'string'))
          ? 'returned a principal whose `roles` is not an array of strings'
          : undefined
}
function devtoolsRuns(devtools: unknown): DevtoolsRuns | undefined {
  if (devtools === undefined || devtools === false) return undefined
  const forced = isRecord(devtools) && devtools.allowInProduction === true
  if (devtools !== true && !forced) throw new InvalidOptionError(WHERE, 'devtools', 'must be `true`, `false` or `{ allowInProduction: true }`')
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.NODE_ENV
  // Any spelling counts: `Production`, `PRODUCTION`, ` production ` all mean the app is in production.
  if (typeof env === 'string' && env.trim().toLowerCase() === 'production' && !forced) {
    throw new InvalidOptionError(WHERE, 'devtools', 'is refused when NODE_ENV is "production": the panel shows stored arguments and answers; pass `{ allowInProduction: true }` to serve it anyway')
  }
  return recentRuns()
}

/**
 * The thread store's files unless the app chose; a memory attachment store beside a store that
 * shares threads across instances serves a file on the instance that made it only, so it is
 * warned about (once per process, as a Node warning `TOOLGATE_LOCAL_ATTACHMENTS`).
 */
function attachmentsOf(given: AttachmentStore | undefined, threads: ThreadStore): AttachmentStore {
  if (given === undefined) return threads.attachments ?? memoryAttachmentStore()
  if (threads.attachments !== undefined && isMemoryAttachmentStore(given)) warnOnce(LOCAL_ATTACHMENTS)
  return given
}

const LOCAL_ATTACHMENTS = {
  code: 'TOOLGATE_LOCAL_ATTACHMENTS',
  message:
    'createChatHandler: `attachments` is a memoryAttachmentStore() beside a thread store shared by every instance: a file a tool returns is served only by the instance that made it. Leave `attachments` out to keep files in the thread store.',
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
    maxAgentDepth: positiveInteger(limits?.maxAgentDepth, 'limits.maxAgentDepth', 3),
    interruptTtlMs: limits?.interruptTtlMs === 0 ? 0 : positiveInteger(limits?.interruptTtlMs, 'limits.interruptTtlMs', 0),
    watchMs: positiveInteger(limits?.watchMs, 'limits.watchMs', 25_000),
    // A held watch costs ~10.5 KB of heap with its connection, ~7 KB on one already open (bench/memory.bench.ts,
    // 1,000 held): 4,000 is ~42 MB, which a default Node heap carries beside its runs; past it a watch gets 429.
    maxWatchers: positiveInteger(limits?.maxWatchers, 'limits.maxWatchers', 4_000),
    maxWatchersPerPrincipal: positiveInteger(limits?.maxWatchersPerPrincipal, 'limits.maxWatchersPerPrincipal', 20),
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
  return isRecord(value) && typeof value.head === 'function' && typeof value.messages === 'function' && typeof value.commit === 'function' && typeof value.decisions === 'function'
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : typeof value === 'number' ? String(value) : typeof value
}
