/**
 * Why a run paused. These are AG-UI 1.0 interrupts (`id`, `reason`, `toolCallId`, `message`) with two
 * Toolgate fields beside them (`toolName`, `input`). AG-UI's validators accept extra fields and keep
 * them, so the event stays valid for any AG-UI consumer, which simply ignores the two.
 */
import type { DecisionSummary, Principal, Reviewers } from './decisions.ts'

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
  /** Approvals given so far, while `reviewers.required` asks for more than one. */
  readonly approvals?: readonly DecisionSummary[]
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
  }
}

/** AG-UI's `RUN_FINISHED.outcome`. An absent outcome also means success. */
export type RunOutcome =
  | { readonly type: 'success' }
  | { readonly type: 'interrupt'; readonly interrupts: readonly ToolInterrupt[] }
