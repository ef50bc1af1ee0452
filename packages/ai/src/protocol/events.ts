import type { DecisionSummary } from './decisions.ts'
import type { AgUiRunOutcome } from './interrupts.ts'
import type { ThreadAttachment, ToolResultStatus } from './messages.ts'

/**
 * The AG-UI 1.0 events the chat handler emits, with AG-UI's field names. Each is sent as one
 * Server-Sent Event: `data: <json>\n\n`. Written out here (not imported from @ag-ui/core) so the
 * browser bundle carries no dependency; a test checks every emitted event against AG-UI's schemas.
 */

/**
 * AG-UI 1.0's attribution: the subagent invocation an event belongs to (`SUBAGENT_STARTED` opened
 * it). Absent: the run's own model made it. Set on the text, reasoning and tool-call events of an
 * agent tool's own steps (`agentTool`), so a UI groups them under the call that delegated.
 */
export interface Attributed {
  readonly subagentRunId?: string
}

export interface RunStartedEvent {
  readonly type: 'RUN_STARTED'
  readonly threadId: string
  readonly runId: string
}

export interface TextMessageStartEvent extends Attributed {
  readonly type: 'TEXT_MESSAGE_START'
  readonly messageId: string
  readonly role: 'assistant'
}

export interface TextMessageContentEvent extends Attributed {
  readonly type: 'TEXT_MESSAGE_CONTENT'
  readonly messageId: string
  readonly delta: string
}

export interface TextMessageEndEvent extends Attributed {
  readonly type: 'TEXT_MESSAGE_END'
  readonly messageId: string
}

/** The model's visible reasoning: `REASONING_START`, one reasoning message, `REASONING_END`. */
export interface ReasoningStartEvent extends Attributed {
  readonly type: 'REASONING_START'
  readonly messageId: string
}

export interface ReasoningMessageStartEvent extends Attributed {
  readonly type: 'REASONING_MESSAGE_START'
  readonly messageId: string
  readonly role: 'reasoning'
}

export interface ReasoningMessageContentEvent extends Attributed {
  readonly type: 'REASONING_MESSAGE_CONTENT'
  readonly messageId: string
  readonly delta: string
}

export interface ReasoningMessageEndEvent extends Attributed {
  readonly type: 'REASONING_MESSAGE_END'
  readonly messageId: string
}

export interface ReasoningEndEvent extends Attributed {
  readonly type: 'REASONING_END'
  readonly messageId: string
}

export interface ToolCallStartEvent extends Attributed {
  readonly type: 'TOOL_CALL_START'
  readonly toolCallId: string
  readonly toolCallName: string
  /** The assistant message the call belongs to. */
  readonly parentMessageId?: string
}

export interface ToolCallArgsEvent extends Attributed {
  readonly type: 'TOOL_CALL_ARGS'
  readonly toolCallId: string
  /** A fragment of the arguments' JSON text. */
  readonly delta: string
}

export interface ToolCallEndEvent extends Attributed {
  readonly type: 'TOOL_CALL_END'
  readonly toolCallId: string
}

export interface ToolCallResultEvent extends Attributed {
  readonly type: 'TOOL_CALL_RESULT'
  /** The id of the tool message this result becomes in the thread. */
  readonly messageId: string
  readonly toolCallId: string
  /** What the model reads: the output as JSON text, or the error text. */
  readonly content: string
  readonly role: 'tool'
  /**
   * Toolgate's extension, where AG-UI 1.0 puts extensions (strict clients keep `metadata` and drop
   * unknown top-level keys), so a UI need not guess how the call ended from `content`.
   */
  readonly metadata: ToolResultMetadata
}

export interface ToolResultMetadata {
  /** How the call ended. */
  readonly status: ToolResultStatus
  /** The validated output (status `success`). */
  readonly output?: unknown
  /** Who decided the call (`ThreadToolMessage.decision`), when a person did. */
  readonly decision?: DecisionSummary
  /** Files the tool returned, as AG-UI binary content parts (see `ThreadAttachment`). */
  readonly attachments?: readonly ThreadAttachment[]
  /** The user's reason (status `denied`). */
  readonly reason?: string
  /** The user edited the arguments before approving. */
  readonly edited?: boolean
}

/**
 * An agent tool (`agentTool`) began its work for a call: everything it does until
 * `SUBAGENT_FINISHED` or `SUBAGENT_ERROR` carries its `subagentRunId`. A resumed subagent (after
 * an answer to one of its interrupts) starts again under the same `subagentRunId`.
 */
export interface SubagentStartedEvent {
  readonly type: 'SUBAGENT_STARTED'
  /** This invocation (`sub_…`); a second call of the same agent gets another. */
  readonly subagentRunId: string
  /** The agent tool's name. */
  readonly name: string
  readonly description?: string
  /** The subagent whose call started this one, when agents nest; absent: the run's own model called it. */
  readonly parentSubagentRunId?: string
  /** The call of the agent tool that started it. */
  readonly parentToolCallId: string
  /** The assistant message holding that call, when the run's own model made it. */
  readonly parentMessageId?: string
}

/**
 * The subagent's segment of this run ended: `success` (its answer follows as the parent call's
 * `TOOL_CALL_RESULT`), or `suspended` on interrupts (`interruptIds`: those its own tools raised;
 * empty when a deeper subagent raised them). The run's `RUN_FINISHED` then carries the interrupts.
 */
export interface SubagentFinishedEvent {
  readonly type: 'SUBAGENT_FINISHED'
  readonly subagentRunId: string
  /** Absent means success. */
  readonly outcome?: SubagentOutcome
  /** The subagent's answer (its last text), with `success`. */
  readonly result?: unknown
}

export type SubagentOutcome = { readonly type: 'success' } | { readonly type: 'suspended'; readonly interruptIds?: readonly string[] }

/**
 * The subagent failed; the run goes on: the parent model reads the failure as the call's error
 * result. `code`: `AGENT_STEP_LIMIT` (it reached its `maxSteps` without answering),
 * `AGENT_DEPTH_LIMIT` (agents nested deeper than allowed), `THREAD_FULL` (its work so far would not fit
 * the thread's `limits.maxThreadBytes`), `MODEL_ERROR`, `INTERNAL`, `STOPPED`.
 */
export interface SubagentErrorEvent {
  readonly type: 'SUBAGENT_ERROR'
  readonly subagentRunId: string
  readonly message: string
  readonly code?: SubagentErrorCode
}

export type SubagentErrorCode = 'AGENT_STEP_LIMIT' | 'AGENT_DEPTH_LIMIT' | 'THREAD_FULL' | 'MODEL_ERROR' | 'INTERNAL' | 'STOPPED'

/** AG-UI token accounting; the handler sends one entry summed over the run's model calls. */
export interface TokenUsage {
  readonly model?: string
  readonly inputTokens?: number
  readonly outputTokens?: number
  readonly totalTokens?: number
  /** Input tokens read from the provider's prompt cache (counted in `inputTokens` too). */
  readonly cachedInputTokens?: number
  /** Output tokens spent on reasoning (counted in `outputTokens` too). */
  readonly reasoningTokens?: number
}

export interface RunFinishedEvent {
  readonly type: 'RUN_FINISHED'
  readonly threadId: string
  readonly runId: string
  /**
   * `interrupt` when the run paused for approvals or Toolgate client tools (answer them with
   * `resume`); `success` with `pendingToolCallIds` when it waits for AG-UI frontend tools (answer
   * them with `tool` messages).
   */
  readonly outcome: AgUiRunOutcome
  readonly usage?: readonly TokenUsage[]
}

export interface RunErrorEvent {
  readonly type: 'RUN_ERROR'
  readonly message: string
  /** An `ErrorCode`. */
  readonly code?: string
}

/**
 * The stored thread in AG-UI's message shapes, right after `RUN_STARTED`, for an AG-UI client whose
 * `messages` were behind the thread (a dropped stream, a reload, a fresh agent on a known thread):
 * it replaces the client's list. The new turn's own events follow.
 */
export interface MessagesSnapshotEvent {
  readonly type: 'MESSAGES_SNAPSHOT'
  readonly messages: readonly AgUiMessage[]
}

/** A message of `MESSAGES_SNAPSHOT` (AG-UI 1.0's `UserMessage`, `AssistantMessage`, `ToolMessage`). */
export type AgUiMessage =
  | { readonly id: string; readonly role: 'user'; readonly content: string }
  | {
      readonly id: string
      readonly role: 'assistant'
      readonly content?: string
      readonly toolCalls?: readonly { readonly id: string; readonly type: 'function'; readonly function: { readonly name: string; readonly arguments: string } }[]
    }
  | {
      readonly id: string
      readonly role: 'tool'
      readonly toolCallId: string
      readonly content: string
      /** The failure, for a result whose status is `error`. */
      readonly error?: string
      /** Toolgate's extensions, as on `TOOL_CALL_RESULT`. */
      readonly metadata: ToolResultMetadata
    }

/**
 * A call of a tool that has an MCP App (`toolDefinition({ app })`) got its result: AG-UI's activity
 * for MCP Apps, in the shape CopilotKit's renderer reads (`serverHash` names this server, `serverId`
 * the call, so the view's own requests come back bound to it). Toolgate's client takes the app's
 * URI for the call from it.
 */
export interface McpAppActivityEvent {
  readonly type: 'ACTIVITY_SNAPSHOT'
  readonly messageId: string
  readonly activityType: 'mcp-apps'
  readonly replace: true
  readonly content: {
    readonly toolCallId: string
    readonly toolName: string
    readonly resourceUri: string
    readonly serverHash: string
    readonly serverId: string
    /** The call's result as MCP's `tools/call` answers it. */
    readonly result: { readonly content: readonly { readonly type: 'text'; readonly text: string }[]; readonly structuredContent?: unknown; readonly isError?: boolean }
    readonly toolInput?: Readonly<Record<string, unknown>>
  }
}

/** An event of a run, as the server streams it (AG-UI's event types and fields). */
export type RunEvent =
  | RunStartedEvent
  | MessagesSnapshotEvent
  | TextMessageStartEvent
  | TextMessageContentEvent
  | TextMessageEndEvent
  | ReasoningStartEvent
  | ReasoningMessageStartEvent
  | ReasoningMessageContentEvent
  | ReasoningMessageEndEvent
  | ReasoningEndEvent
  | ToolCallStartEvent
  | ToolCallArgsEvent
  | ToolCallEndEvent
  | ToolCallResultEvent
  | SubagentStartedEvent
  | SubagentFinishedEvent
  | SubagentErrorEvent
  | McpAppActivityEvent
  | RunFinishedEvent
  | RunErrorEvent

export type RunEventType = RunEvent['type']
