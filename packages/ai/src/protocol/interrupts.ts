/**
 * Why a run paused, as Toolgate's JSON answers (thread snapshot, 202) show it: AG-UI 1.0's interrupt
 * fields (`id`, `reason`, `toolCallId`, `message`) with the tool's name and input beside them. On
 * the event stream (`RUN_FINISHED.outcome`) the two travel only in `metadata` (`AgUiInterrupt`).
 */
import type { DecisionSummary, Principal, Reviewers, SubagentHop } from './decisions.ts'

export type { SubagentHop }

export type InterruptReason = 'tool_approval' | 'client_tool'

export interface ToolInterrupt {
  /** Unguessable; a resume answers the interrupt by this id. */
  readonly id: string
  /** `tool_approval`: a human approves or denies. `client_tool`: the browser runs the tool and sends its result. */
  readonly reason: InterruptReason
  readonly toolCallId: string
  readonly toolName: string
  /** The call's arguments as JSON (after any edit the user made while approving). */
  readonly input: unknown
  /** Why approval is needed, when the tool's policy said so. */
  readonly message?: string
  /**
   * AG-UI's JSON Schema of the answer's payload. For `tool_approval`: `{ approved, editedArgs?,
   * reason? }`, with the tool's input schema whole under `$defs.input` (its `$id` is
   * `urn:toolgate:tool-input`), so a UI can build an edit form and validate edits before sending.
   */
  readonly responseSchema?: { readonly [key: string]: unknown }
  /**
   * When the server stops taking an answer (ISO 8601), if the app set `limits.interruptTtlMs`: an
   * approval is a decision about the conversation as it was, and goes stale with it. Past it, a
   * resume gets 410 `INTERRUPT_EXPIRED`; a new message settles the call as usual.
   */
  readonly expiresAt?: string
  /** Who must decide, when the tool's policy named reviewers: the requester may not. */
  readonly reviewers?: Reviewers
  /** Who the call was made for. */
  readonly requestedBy?: Principal
  /** Approvals given so far, while `reviewers.required` asks for more than one (all of them for `input`). */
  readonly approvals?: readonly DecisionSummary[]
  /**
   * Set when `input` is an edit, not the model's call: who edited it. An edit is a new proposal,
   * asked of the tool's policy again: `message` and `reviewers` are then the policy's for the
   * edited arguments ("waits for 2 reviewers (finance): Sends 5000000 EUR to X").
   */
  readonly proposedBy?: DecisionSummary
  /**
   * Set when a subagent's tool asked (`agentTool`): the innermost subagent invocation, as its
   * events carry it (AG-UI 1.0's `Interrupt.subagentRunId`). An answer may name it; one that names
   * another is refused (`SUBAGENT_MISMATCH`).
   */
  readonly subagentRunId?: string
  /**
   * How the call was reached, outermost first: each agent tool and the call of it (the run's own
   * model called the first). `toolName` and `input` are the inner call's; the approval's
   * `responseSchema`, reviewers, grants and records are those of the inner tool.
   */
  readonly path?: readonly SubagentHop[]
  /** Set when the call asking is itself an agent tool's: what approving it lets the subagent do. */
  readonly delegation?: Delegation
  /**
   * Toolgate's extras where AG-UI's strict validators keep them: `kind: 'tool_call'` (the convention
   * TanStack AI's approvals use), `toolName`, `input` and the policy's `reason`.
   */
  readonly metadata?: {
    readonly kind: 'tool_call'
    readonly toolName: string
    readonly input: unknown
    readonly reason?: string
    readonly reviewers?: Reviewers
    readonly requestedBy?: Principal
    /**
     * Set when an approval may come with a grant (`approved: true, grant`) that lets later calls of
     * the tool in this thread run without asking: a server tool, under no two-person rule.
     */
    readonly grantable?: true
    /** As `path` above. */
    readonly path?: readonly SubagentHop[]
    /** As `delegation` above. */
    readonly delegation?: Delegation
  }
}

/**
 * What approving a call of an agent tool grants: the tools its subagent may call, and which of
 * them will still ask (their own approvals surface as interrupts of the run, however deep).
 */
export interface Delegation {
  readonly agent: string
  readonly tools: readonly DelegatedTool[]
}

export interface DelegatedTool {
  readonly name: string
  readonly description: string
  /**
   * `always`: every call waits for a person; `sometimes`: the tool's policy decides per call;
   * `never`: it runs without asking (a grant of the thread may also let an asking tool run).
   */
  readonly asks: 'always' | 'sometimes' | 'never'
  /** Its calls run in the browser (after any approval). */
  readonly browser?: true
  /** It is an agent tool too: what it may call in turn. */
  readonly delegation?: Delegation
}

/** How a run ended, as the server decides it. An absent outcome also means success. */
export type RunOutcome =
  | { readonly type: 'success'; readonly pendingToolCallIds?: readonly string[] }
  | { readonly type: 'interrupt'; readonly interrupts: readonly ToolInterrupt[] }

/**
 * An interrupt as `RUN_FINISHED` carries it: AG-UI 1.0's fields only at the top (its stock client
 * strips anything else, with a warning), the tool's name and input, a subagent call's `path` and
 * an agent tool's `delegation` under `metadata`.
 */
export type AgUiInterrupt = Omit<ToolInterrupt, 'toolName' | 'input' | 'path' | 'delegation'>

/**
 * AG-UI's `RUN_FINISHED.outcome`. `pendingToolCallIds`: the AG-UI frontend tool calls the run
 * stopped for; the next input answers them with `tool` messages.
 */
export type AgUiRunOutcome =
  | { readonly type: 'success'; readonly pendingToolCallIds?: readonly string[] }
  | { readonly type: 'interrupt'; readonly interrupts: readonly AgUiInterrupt[] }
