/**
 * Who asked and who decided: the principal an app's `identify(request)` returns, and the decision
 * record the server keeps of every approval, edit, denial, expiry, cancellation and grant use.
 * Records are append-only and chained: each carries a digest of its own canonical JSON and the
 * digest of the record before it, an HMAC-SHA-256 under the app's secret (or a plain SHA-256
 * without one), so an altered, appended, removed or reordered record is detected.
 */

/** A person (or system) as the app's own auth knows them. Never taken from a request body. */
export interface Principal {
  readonly id: string
  readonly name?: string
  readonly roles?: readonly string[]
}

/** What happened to a call that waited for a decision (`escalated`: it expired and `onExpired` sent it to other reviewers; it still waits). */
export type Decision = 'approved' | 'edited' | 'denied' | 'expired' | 'cancelled' | 'granted' | 'escalated'

/** How the decision reached the server: the chat endpoint, a signed review link, the server API, or an MCP client's answer (`registerMcpTools`). */
export type DecisionChannel = 'chat' | 'review-link' | 'api' | 'mcp'

/** Who must decide an interrupt, when its policy names reviewers other than the requester. */
export interface Reviewers {
  /** Anyone holding one of these roles (not the requester). */
  readonly roles?: readonly string[]
  /** These principals by id (not the requester). */
  readonly users?: readonly string[]
  /** Distinct approvals needed (two-person rule: 2). Default 1. */
  readonly required?: number
}

export interface DecisionRecord {
  /** 0 for a thread's first record, then one more each. */
  readonly seq: number
  readonly threadId: string
  readonly interruptId: string
  readonly toolCallId: string
  readonly toolName: string
  readonly decision: Decision
  /** Who decided; for `expired` and `cancelled`, who the interrupt was waiting on is in `reviewers`. */
  readonly by: Principal
  /** ISO 8601. */
  readonly at: string
  readonly channel: DecisionChannel
  readonly reason?: string
  /** The arguments the decider was shown, and their digest (`sha256:` hex over canonical JSON). */
  readonly shownArgs: unknown
  readonly shownDigest: string
  /** The arguments that ran (approved, edited, granted), and their digest. */
  readonly ranArgs?: unknown
  readonly ranDigest?: string
  /** Top-level fields the decider changed (`edited`). */
  readonly editedFields?: readonly string[]
  /** The grant an approval created, or the grant a call ran under (`granted`). */
  readonly grantId?: string
  /**
   * The arguments this decision was about, and their digest: those approved (after an edit, the
   * edited ones, which become a new proposal), or those denied. Under a two-person rule every
   * approval that counts names the same `argsDigest` as the call that runs.
   */
  readonly args?: unknown
  readonly argsDigest?: string
  /** Set for a subagent's call (`agentTool`): the delegations that reached it, outermost first. */
  readonly path?: readonly SubagentHop[]
  /** The `digest` of the record before it; `null` for the first. */
  readonly previous: string | null
  /**
   * This record's canonical JSON without `digest`, signed: `hmac-sha256:<hex>` under a key derived
   * from the app's secret (`decisions.secret`, else `reviewLinks.secret`), or `sha256:<hex>` without one.
   */
  readonly digest: string
}

/** What a tool-call part shows of the decision that settled it. */
export interface DecisionSummary {
  readonly decision: Decision
  readonly by: Principal
  readonly at: string
  readonly channel: DecisionChannel
  readonly reason?: string
  readonly editedFields?: readonly string[]
  readonly grantId?: string
  /** On an approval still short of a two-person rule: the digest of the arguments it approved (it counts only for those). */
  readonly argsDigest?: string
}

/**
 * "Allow `tool` for this thread": later calls it covers run without asking, each recorded as
 * `granted`. Never wider than its author: a call whose policy names reviewers is covered only by a
 * grant from one of them (and never under a two-person rule).
 */
export interface Grant {
  readonly id: string
  readonly toolName: string
  readonly by: Principal
  /** ISO 8601. */
  readonly at: string
  /** ISO 8601; absent: for the thread's life. */
  readonly expiresAt?: string
  /** Set when the grant covers only calls with exactly these arguments (their digest). */
  readonly argsDigest?: string
  /** Set for a subagent's tool: the agent tools, outermost first, whose calls of `toolName` it covers (and no others). */
  readonly agents?: readonly string[]
}

/** What an approver asks for with `approved: true`: a grant for later calls of the same tool in this thread. */
export interface GrantRequest {
  /** Only calls with the same arguments. Default: any arguments. */
  readonly sameArguments?: boolean
  /** How long it lasts, in milliseconds. Default: the thread's life. */
  readonly ttlMs?: number
}

/** One delegation on the way to a subagent's call (`agentTool`): the agent tool, the call of it, and the subagent run that call started. */
export interface SubagentHop {
  readonly agent: string
  readonly toolCallId: string
  readonly subagentRunId: string
}
