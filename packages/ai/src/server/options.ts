import type { ChatModel } from '../model/chatModel.ts'
import type { DecisionRecord, Principal, Reviewers, SubagentHop } from '../protocol/decisions.ts'
import type { ToolSearch } from '../tools/toolSearch.ts'
import type { AnyTool, InferToolContext } from '../tools/types.ts'
import type { AttachmentStore } from './thread/attachmentStore.ts'
import type { ChatMiddleware } from './run/middleware.ts'
import type { ToolRegistry } from '../tools/toolRegistry.ts'
import type { ThreadCache } from './thread/threadCache.ts'
import type { RunEventLog, ThreadStore } from './thread/threadStore.ts'
import type { RunClock } from './run/runClock.ts'
import type { ChatTelemetry } from '../telemetry/hooks.ts'

// The handler's options as an app writes them, and as the runtime holds them once checked
// (`resolveConfig` in config.ts). Types only: every step of a turn reads them, none is imported back.

/** `create`: a new thread gets this id (record its owner now). `read`: GET. `write`: a message or a resume. */
export type ThreadAction = 'create' | 'read' | 'write'

export type Authorize = (request: Request, threadId: string, access: { readonly action: ThreadAction }) => boolean | Promise<boolean>

/** Where a failure happened that the browser only hears about in general terms. */
export interface ErrorScope {
  readonly threadId: string
  readonly runId: string
  /** `run`: the run ended with RUN_ERROR. `tool`: a server tool threw. `approval-policy`: a `needsApproval` policy threw. `decision-hook`: `onDecision` or `onApprovalRequested` threw. */
  readonly source: 'run' | 'tool' | 'approval-policy' | 'decision-hook'
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
  /**
   * The app's context for the person who asked, when a run resumes on someone else's decision (a
   * reviewer in the chat, a review link, `handler.decide`): a resumed tool acts for its requester,
   * never for the approver, and no requester's request is at hand then. Given the principal
   * `identify` gave the requester. Without it, a `context` function is called with a bare request
   * that carries nobody's credentials (a `context` value is the same for everyone).
   */
  readonly requesterContext?: (requester: Principal) => TContext | Promise<TContext>
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
  /**
   * Where files that tools return (`toolResult()`) are kept. Default: the thread store's own
   * (`redisStore` and `postgresStore` keep them beside the threads, for every instance), else
   * `memoryAttachmentStore()`.
   */
  readonly attachments?: AttachmentStore
  /**
   * AG-UI frontend tools the handler accepts, by name: tools a client declares in
   * `RunAgentInput.tools` and runs itself (answered through `resume`, like a `.client()` tool). Any
   * other declared tool is ignored: by default the model sees only the server's tools.
   */
  readonly frontendTools?: readonly string[]
  /**
   * Who is asking: the principal (`{ id, name?, roles? }`) of a request, from the app's own auth
   * (a session cookie, a verified token), never from the body. Every decision is attributed to it,
   * and reviewer-only approvals check it. `undefined` (and no `identify`): `{ id: 'anonymous' }`.
   */
  readonly identify?: (request: Request) => Principal | undefined | Promise<Principal | undefined>
  /**
   * Called with every decision record once it is stored (approvals, edits, denials, expiries,
   * cancellations, calls run under a grant), for the app's own audit log. It runs after the
   * write; what it throws goes to `onError` and changes nothing.
   */
  readonly onDecision?: (record: DecisionRecord) => void | Promise<void>
  /**
   * The secret that signs the decision records (HMAC-SHA-256 under a key derived from it): a
   * record changed, recomputed, appended or removed by someone who can write the store, but does
   * not hold this secret, is refused with `DECISION_RECORD_ALTERED` when read. Default: the review
   * links' secret (`reviewLinks.secret`), when given; without either, records carry a plain
   * SHA-256 chain, which catches accidental edits only. Keep it out of the store's reach.
   */
  readonly decisions?: DecisionRecordOptions
  /** Signed, single-use review links for reviewers (`needsApproval` returning `reviewers`): the secret, the page that opens them, their lifetime. */
  readonly reviewLinks?: ReviewLinkOptions
  /**
   * Called once a call waits for reviewers, after it is stored: the arguments, the reason, who
   * asked, who must decide and a link for each, for the app to post to Slack or send by email.
   * What it throws goes to `onError`.
   */
  readonly onApprovalRequested?: (request: ApprovalRequest) => void | Promise<void>
  /**
   * Called when an approval passes its `expiresAt` unanswered (`limits.interruptTtlMs`, or an
   * escalation's `ttlMs`): return `{ reviewers, ttlMs? }` to send it to other reviewers with a fresh
   * expiry (recorded as `escalated`; `onApprovalRequested` is called for them), or `undefined` to
   * let it end `expired`. Expiry is settled when due by whichever instance looks first (a reader of
   * the thread, or the timer of the instance that asked). Instances racing to settle the same
   * expiry may each ask (one answer is recorded): decide here, notify in `onApprovalRequested`,
   * which is called once. What it throws goes to `onError`, and the approval expires.
   */
  readonly onExpired?: (approval: ExpiredApproval) => Escalation | undefined | Promise<Escalation | undefined>
  /**
   * OpenTelemetry traces and metrics: `openTelemetry()` from `@toolgate/ai/telemetry` (which needs
   * `@opentelemetry/api`). Without it nothing of OpenTelemetry is loaded and nothing is recorded.
   */
  readonly telemetry?: ChatTelemetry
  /**
   * Serves the devtools panel (`@toolgate/ai-react/devtools`) the thread as the server holds it, on
   * `GET ?threadId=&devtools`, to readers `authorize` lets read the thread; events carry AG-UI
   * `timestamp`s for its timeline. Default `false`. Refused when `NODE_ENV` is `production` (any case, spaces around ignored)
   * unless `{ allowInProduction: true }`: it shows stored arguments, answers and leases.
   */
  readonly devtools?: boolean | { readonly allowInProduction: true }
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
   * How deep agent tools (`agentTool`) may nest below the run's own model (default 3: an agent's
   * agent's agent). A deeper call does not start: its agent fails with `AGENT_DEPTH_LIMIT`, which
   * the calling model reads as the call's error.
   */
  readonly maxAgentDepth?: number
  /**
   * How long an interrupt takes answers; it carries the moment as `expiresAt`, and a later answer gets
   * 410 `INTERRUPT_EXPIRED`. Default 0: interrupts do not expire.
   */
  readonly interruptTtlMs?: number
  /**
   * How long a `GET ?threadId&watch=<version>` waits for the thread to change before it answers
   * 204 (the client asks again). Default 25 s, under the idle timeouts of common proxies.
   */
  readonly watchMs?: number
  /** Watches waiting at once in this process at most; one more is refused with 429 `TOO_MANY_WATCHERS`. Default 4,000 (each holds about 10 KB of heap with its connection: `npm run bench`, memory.bench.ts). */
  readonly maxWatchers?: number
  /**
   * Watches one principal (`identify`) may hold at once in this process; one more is refused with
   * 429 `TOO_MANY_WATCHERS`, and others' watches are not. Default 20. Requests without a principal
   * (no `identify`) share the anonymous one, which only `maxWatchers` bounds.
   */
  readonly maxWatchersPerPrincipal?: number
}

/** The options with defaults applied, as the runtime uses them. */
export interface ChatConfig {
  readonly model: ChatModel
  readonly tools: ToolRegistry
  /** The app's store; on a store that `pipelines`, observed by `threadCache`. */
  readonly store: ThreadStore
  /** The threads this instance wrote last, with their history (thread/threadCache.ts); only beside a store that `pipelines`. */
  readonly threadCache: ThreadCache | undefined
  readonly limits: Required<ChatLimits>
  readonly maxSteps: number
  readonly authorize: Authorize | undefined
  readonly resolveContext: (request: Request) => Promise<unknown>
  /** The context for a requester whose request is not at hand (claim/requesterContext.ts). */
  readonly resolveRequesterContext: (requester: Principal) => Promise<unknown>
  readonly onError: OnError | undefined
  readonly toolErrorMessage: ((error: unknown, call: FailedCall) => string | undefined) | undefined
  /** Runs' events for readers that (re)attach: the store's log, or this process's. */
  readonly eventLog: RunEventLog
  /** The runs this process is running, by id, each with what stops it at once. */
  readonly liveRuns: Map<string, AbortController>
  /** Ticks for the live runs: their heartbeats and stop checks. */
  readonly runClock: RunClock
  /** How many `GET ?watch` requests wait now in this process (bounded by `limits.maxWatchers`). */
  readonly watchers: { count: number; readonly byPrincipal: Map<string, number> }
  readonly middleware: readonly ChatMiddleware[]
  /** Picks the tools declared to each model call; without it, every tool is declared. */
  readonly toolSearch: ToolSearch | undefined
  readonly attachments: AttachmentStore
  /** Names of the AG-UI frontend tools accepted (see `ChatHandlerOptions.frontendTools`). */
  readonly frontendTools: ReadonlySet<string>
  /** The request's principal (`identify`, else anonymous), checked. */
  readonly identify: (request: Request) => Promise<Principal>
  readonly onDecision: ((record: DecisionRecord) => void | Promise<void>) | undefined
  /** The key the decision records are signed with (`decisions.secret`, else `reviewLinks.secret`); `undefined`: a plain digest chain. */
  readonly recordKey: Promise<CryptoKey> | undefined
  readonly reviewLinks: { readonly key: Promise<CryptoKey>; readonly url: (token: string) => string; readonly ttlMs: number } | undefined
  readonly onApprovalRequested: ((request: ApprovalRequest) => void | Promise<void>) | undefined
  readonly onExpired: ((approval: ExpiredApproval) => Escalation | undefined | Promise<Escalation | undefined>) | undefined
  readonly telemetry: ChatTelemetry | undefined
  /** The runs this process started, by thread, for the devtools panel; `undefined` when it is off. */
  readonly devtools: DevtoolsRuns | undefined
}

/** Recent runs of each thread, as this process saw them start. */
export interface DevtoolsRuns {
  add(threadId: string, run: { readonly runId: string; readonly startedAt: number; readonly kind: string }): void
  of(threadId: string): readonly { readonly runId: string; readonly startedAt: number; readonly kind: string }[]
}


/** `decisions`: how the decision records are signed. */
export interface DecisionRecordOptions {
  /** At least 32 bytes of secret (a string of 32+ characters, or bytes), held by the app and never by the store. */
  readonly secret: string | Uint8Array
}

// Review links and the requests that carry them (decisions/reviewLinks.ts, decisions/approvalRequests.ts).

/** Whom a link is for: one principal by id, or anyone holding a role. */
export type LinkReviewer = { readonly user: string } | { readonly role: string }

export interface ReviewLinkOptions {
  /** At least 32 bytes of secret (a string of 32+ characters, or bytes). Rotate it to revoke every link at once. */
  readonly secret: string | Uint8Array
  /** The page that opens a link: `(token) => \`https://app.example/review?token=${token}\`` (default: the token alone). */
  readonly url?: (token: string) => string
  /** How long a link is good for, unless the interrupt expires sooner. Default 24 hours. */
  readonly ttlMs?: number
}

/** One reviewer's link: single-use, bound to the interrupt and to the arguments shown. */
export interface ReviewLink {
  readonly reviewer: LinkReviewer
  readonly token: string
  /** `reviewLinks.url(token)`: the page that opens it. */
  readonly url: string
  /** ISO 8601. */
  readonly expiresAt: string
}

/** `onExpired`'s argument: an approval no one answered in time. */
export interface ExpiredApproval {
  readonly threadId: string
  readonly interruptId: string
  readonly toolCallId: string
  readonly toolName: string
  readonly arguments: unknown
  /** The policy's reason. */
  readonly reason?: string
  readonly requestedBy?: Principal
  /** Who it waited for, when the policy (or an earlier escalation) named reviewers. */
  readonly reviewers?: Reviewers
  /** ISO 8601. */
  readonly expiredAt: string
  /** How many times it was sent to other reviewers already. */
  readonly escalations: number
}

/** Where `onExpired` sends an expired approval: other reviewers, and how long they have (default `limits.interruptTtlMs`). */
export interface Escalation {
  readonly reviewers: Reviewers
  readonly ttlMs?: number
}

/** `onApprovalRequested`'s argument. */
export interface ApprovalRequest {
  readonly threadId: string
  readonly interruptId: string
  readonly toolCallId: string
  readonly toolName: string
  readonly arguments: unknown
  /** The policy's reason. */
  readonly reason?: string
  readonly requestedBy?: Principal
  /** Set for a subagent's call (`agentTool`): the delegations that reached it, outermost first. */
  readonly path?: readonly SubagentHop[]
  readonly reviewers: Reviewers
  /** When the interrupt stops taking answers, if it expires. */
  readonly expiresAt?: string
  /** A link per named user, and `required` links per role (each works once); none without `reviewLinks`. */
  readonly links: readonly ReviewLink[]
}
