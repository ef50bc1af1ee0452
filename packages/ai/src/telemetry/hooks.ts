import type { ModelUsage } from '../model/chatModel.ts'
import type { DecisionSummary } from '../protocol/decisions.ts'
import type { ThreadToolMessage } from '../protocol/messages.ts'

// What the runtime tells telemetry, at one place per span kind. Types only: the chat handler and
// the MCP interop call these when an app passes `openTelemetry()` (telemetry/openTelemetry.ts,
// the one module that imports `@opentelemetry/api`), and skip them with `?.` when it does not.
// Everything is keyed by the `Request` a step happens under, so no trace object travels through
// the claims.

/**
 * How a run began. `partial_resume`: an AG-UI client's answers that leave others of the step open
 * (it reads events, not a 202): a run that records them and pauses again on what is left.
 */
export type RunKind = 'message' | 'resume' | 'takeover' | 'partial_resume' | 'app_call'

/** How an interrupt's wait ended. */
export type WaitDecision = 'approved' | 'edited' | 'denied' | 'output' | 'error' | 'superseded' | 'expired' | 'cancelled'

/** An interrupt as telemetry reads it (a `StoredInterrupt` fits): when it was asked, and by which run's span. */
export interface AskedInterrupt {
  readonly id: string
  readonly reason: string
  readonly toolName: string
  readonly toolCallId: string
  /** When the run asked (ms since the epoch). */
  readonly askedAt?: number | undefined
  readonly expiresAt?: string | undefined
  /** The asking run's span, as a W3C `traceparent`. */
  readonly traceparent?: string | undefined
}

export interface RunInfo {
  readonly threadId: string
  readonly runId: string
  readonly kind: RunKind
  /** The interrupts a resumed run settles: the run links to the run that asked each (`traceparent`). */
  readonly resumes: readonly AskedInterrupt[]
  /** A `partial_resume`: how many interrupts of the step still wait. */
  readonly open?: number
  readonly model: string | undefined
  readonly store: string | undefined
}

export interface EndedWait {
  readonly threadId: string
  readonly interrupt: AskedInterrupt
  readonly decision: WaitDecision
  /** When the wait ended: now, or the interrupt's expiry for one that expired. */
  readonly endedAt: number
  /** The decision record that ended it (approvals, denials, expiries, cancellations): who, through what, the grant it made. */
  readonly record?: DecisionSummary | undefined
  /** Under a rule of several approvals: each approver's id, in order (the last is `record.by`). */
  readonly approvers?: readonly string[] | undefined
}

/** The result of a run as telemetry records it; `error` is what the browser was told, never more. */
export interface RunEnd {
  readonly outcome: 'success' | 'interrupt' | 'stopped' | 'error'
  readonly usage: ModelUsage | undefined
  readonly error?: { readonly code: string; readonly message: string }
}

export interface ModelCallEnd {
  readonly usage: ModelUsage | undefined
  readonly finishReason: string | undefined
  /** What the model said, for content capture: read only when outputs are recorded. */
  readonly output?: () => ModelOutput
  /** The model failed: a stable type and the text the browser may see. */
  readonly error?: { readonly type: string; readonly message: string }
}

export interface ModelOutput {
  readonly text: string
  readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[]
}

export interface ModelCallTrace {
  /** The model's first chunk arrived (time to first token). */
  firstChunk(): void
  end(end: ModelCallEnd): void
}

export interface ToolCallInfo {
  readonly toolName: string
  readonly toolCallId: string
  readonly input: unknown
  /** The decision the call runs under: a person's approval or edit, or a grant (`granted`). */
  readonly decision?: DecisionSummary | undefined
}

/** A tool call's span, while it runs. */
export interface ToolSpan {
  /** The subagent an agent tool's call runs: its `invoke_agent <name>` span inside this one, whose waits (`traceparent`) nest in it. */
  agent(info: AgentInfo): RunTrace
  /** The call has no outcome yet (its subagent waits for answers): its span ends as `waiting`, counted neither a success nor an error. */
  waits(): void
}

export interface AgentInfo {
  readonly name: string
  readonly subagentRunId: string
  /** How many delegations down it runs (1: called by the run's own model). */
  readonly depth: number
}

export interface RunTrace {
  /** The run's span context as a W3C `traceparent`, stored with the interrupts it asks. */
  readonly traceparent: string | undefined
  /** One model call; `messages` is read only when inputs are captured. */
  modelCall(messages: readonly unknown[]): ModelCallTrace
  /**
   * Runs one server tool call inside its span (so the tool's own spans, and MCP `_meta`, nest under
   * it); an agent tool's call opens its subagent's trace in it (`span.agent`).
   */
  toolCall(call: ToolCallInfo, execute: (span: ToolSpan) => Promise<ThreadToolMessage>): Promise<ThreadToolMessage>
  end(end: RunEnd): void
}

/**
 * What `createChatHandler({ telemetry })` and `registerMcpTools(..., { telemetry })` take: made by
 * `openTelemetry()` from `@toolgate/ai/telemetry`.
 */
export interface ChatTelemetry {
  /** A request reached the handler; `header` reads one of its headers (its trace context). */
  requestStarted(request: Request, header?: (name: string) => string | null): void
  /** What the request turned out to be. */
  describeRequest(request: Request, description: { readonly kind: string; readonly threadId?: string | undefined }): void
  /** The handler answered it (a streamed run goes on after). */
  requestEnded(request: Request, status: number, errorCode: string | undefined): void
  run(request: Request, info: RunInfo): RunTrace
  /** Interrupts stopped waiting at this request: answered, superseded or expired. */
  waitsEnded(request: Request, waits: readonly EndedWait[]): void
  /** An MCP `tools/call` served here; `meta` is the request's `_meta` (its `traceparent` continues the caller's trace). An `input_required` answer ran nothing. */
  mcpToolCall<T extends { readonly isError?: boolean | undefined; readonly resultType?: string | undefined }>(
    call: { readonly toolName: string; readonly toolCallId: string; readonly meta: unknown },
    execute: () => Promise<T>,
  ): Promise<T>
}
