import type { ErrorCode } from './errors.ts'
import type { DecisionSummary, GrantRequest } from './decisions.ts'
import type { ToolInterrupt } from './interrupts.ts'

// Every POST body is JSON sent with `content-type: application/json` (anything else gets 415).

/** Starts a turn. Without `threadId` the server creates a thread (its id comes back in RUN_STARTED). */
export interface MessageRequest {
  readonly threadId?: string
  readonly message: string
}

/** Answers a `tool_approval` interrupt. `editedArgs` replaces the call's arguments (validated by the server). */
export interface ApprovalAnswer {
  readonly interruptId: string
  readonly approved: boolean
  /** With `approved: true`: allow this tool for the rest of the thread (see `Grant`). */
  readonly grant?: GrantRequest
  readonly editedArgs?: unknown
  /** Why the user denied; the model reads it. Capped in length by the server. */
  readonly reason?: string
  /**
   * The subagent run the interrupt belongs to, as the interrupt says (`ToolInterrupt.subagentRunId`):
   * when given, it must be that one (`SUBAGENT_MISMATCH` otherwise), so an answer meant for one
   * subagent's call never decides another's. AG-UI clients may send it in the resume entry's `metadata`.
   */
  readonly subagentRunId?: string
}

/** Answers a `client_tool` interrupt with what the tool returned in the browser. */
export interface ClientOutputAnswer {
  readonly interruptId: string
  readonly output: unknown
}

/** Answers a `client_tool` interrupt with the browser's failure. */
export interface ClientErrorAnswer {
  readonly interruptId: string
  readonly error: string
}

export type ResumeAnswer = ApprovalAnswer | ClientOutputAnswer | ClientErrorAnswer

/**
 * Answers interrupts of a thread. Answers may arrive in several requests; the run resumes (and the
 * response is an event stream) with the request that completes the batch.
 */
export interface ResumeRequest {
  readonly threadId: string
  readonly resume: readonly ResumeAnswer[]
}

/**
 * Stops the thread's active run, wherever it runs. A client that only disconnects does not stop
 * a run: it goes on, and a reader can attach to it again (`GET` with `Last-Event-ID`).
 */
export interface StopRequest {
  readonly threadId: string
  readonly stop: true
}

/** The JSON answer to a `StopRequest`: whether a run was streaming to be stopped. */
export interface StopAccepted {
  readonly threadId: string
  readonly stopped: boolean
  /** Interrupts that waited for answers and are now `cancelled` (or `expired`): a stop with no run ends the wait. */
  readonly cancelled?: readonly string[]
}

/**
 * A reviewer's decision through a signed review link (`onApprovalRequested` hands the app the
 * link). The token names the thread and the interrupt; `answer.interruptId` must be that one.
 */
export interface ReviewRequest {
  readonly review: string
  /** Optional: when given, it must be the link's thread. */
  readonly threadId?: string
  readonly answer: ApprovalAnswer
}

/** The JSON answer to a `ReviewRequest`: the decision as recorded, and whether the run resumed (else other answers are still awaited). */
export interface ReviewAccepted {
  readonly threadId: string
  readonly interruptId: string
  readonly decision: DecisionSummary
  readonly resumed: boolean
}

/** What `GET ?review=<token>` returns: what the reviewer decides on. */
export interface ReviewView {
  readonly threadId: string
  readonly interrupt: ToolInterrupt
  /** When the link stops working (ISO 8601). */
  readonly linkExpiresAt: string
  /**
   * Set when whoever opened the link may not decide through it (another person, someone outside
   * the role, the requester, a reviewer who approved already): the refusal an answer would get,
   * in a sentence. Show it instead of the form.
   */
  readonly refusal?: { readonly code: ErrorCode; readonly message: string }
}

/** Revokes a grant of the thread: later calls it covered ask again. */
export interface RevokeGrantRequest {
  readonly threadId: string
  readonly revokeGrant: string
}

/**
 * An MCP App's own `tools/call`, from the view of call `appCall.toolCallId` of the thread: the
 * call is the thread's, planned like a model's (validated, approved by a human when the tool asks),
 * and the run ends once it has its result (the model is not called).
 */
export interface AppCallRequest {
  readonly threadId: string
  readonly appCall: { readonly toolCallId: string; readonly name: string; readonly arguments: Readonly<Record<string, unknown>> }
}

/** What a POST to the chat endpoint carries: a message, answers to interrupts, a stop, a reviewer's decision through a link, a grant's revocation, or an MCP App's tool call. */
export type PostRequest = MessageRequest | ResumeRequest | StopRequest | ReviewRequest | RevokeGrantRequest | AppCallRequest

/** The JSON body (status 202) when a resume stored its answers but others of the batch are still missing. */
export interface ResumeAccepted {
  readonly threadId: string
  /** The interrupts still waiting for an answer. */
  readonly interrupts: readonly ToolInterrupt[]
}
