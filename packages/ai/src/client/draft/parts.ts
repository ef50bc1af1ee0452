import type { AnyTool, InferToolName, InferToolOutput, InferToolRawInput, ToolMetadata } from '../../tools/types.ts'
import type { Delegation } from '../../protocol/interrupts.ts'
import type { ThreadAttachment } from '../../protocol/messages.ts'
import type { JsonSchema } from '../../schema/types.ts'
import type { ChatError } from '../chatError.ts'

// The client's UI types: what a view renders, named for the screen (`ChatMessage`, parts, states).
// They are not the wire's: the server sends `RunEvent`s and stores `ThreadMessage`s
// (`protocol/`), and the client maps one to the other (`applyEvent.ts`, `restore/fromSnapshot.ts`).

/**
 * Where a tool call stands:
 * - `input-streaming`: the model is writing the arguments; `input` is the partial object so far.
 * - `input-available`: the arguments are complete.
 * - `approval-requested`: a human must approve or deny (`approval.reason` says why, when the policy said).
 * - `executing`: approved, or running (on the server or, for client tools, in this browser).
 * - `output-available`, `output-error`, `denied`: how it ended.
 * - `expired`: no one answered its approval in time; `cancelled`: the turn was stopped while it
 *   waited. In both the tool did not run, and no one said no.
 */
export type ToolCallState =
  | 'input-streaming'
  | 'input-available'
  | 'approval-requested'
  | 'executing'
  | 'output-available'
  | 'output-error'
  | 'denied'
  | 'expired'
  | 'cancelled'

export interface TextPart {
  readonly type: 'text'
  readonly text: string
}

/** The approval asked for a call, and the answer once given. */
export interface ToolApproval {
  /** Why approval is needed, when the tool's policy said so. */
  readonly reason?: string | undefined
  /** Set once the user answered. */
  readonly approved?: boolean | undefined
  /** The user's reason for denying. */
  readonly denyReason?: string | undefined
  /**
   * The JSON Schema that edited arguments must meet: the tool's input schema as the server sent it
   * with the interrupt (no schema is emitted in the browser). Absent when the server sent none.
   */
  readonly inputSchema?: JsonSchema | undefined
  /** When the server stops taking an answer (ISO 8601), if it set one; show it, and expect a refusal after. */
  readonly expiresAt?: string | undefined
  /**
   * Set when the policy named reviewers: who must decide (`a reviewer (finance)`), to show as
   * "Waiting for a reviewer (finance)". The requester cannot answer it; the chat follows the
   * thread and updates when a reviewer decides.
   */
  readonly waitingFor?: string | undefined
  /** The same as named by the policy: roles, users and how many must approve. */
  readonly reviewers?: { readonly roles?: readonly string[]; readonly users?: readonly string[]; readonly required?: number } | undefined
  /** Who asked, when reviewers decide. */
  readonly requestedBy?: Person | undefined
  /** Approvals given so far, when more than one reviewer must approve. */
  readonly approvals?: readonly ToolDecision[] | undefined
  /**
   * Set when the input shown is someone's edit, not the model's call: who proposed it. An edit is
   * asked of the tool's policy again, so `reason` and `waitingFor` are the policy's for the edit
   * ("waits for 2 reviewers (finance): Sends 5000000 EUR to X").
   */
  readonly proposedBy?: ToolDecision | undefined
  /** Set when the approver may allow the tool for the rest of the conversation (`approve(id, { grant })`). */
  readonly grantable?: boolean | undefined
  /**
   * Set when a subagent's tool asks (an `agentTool`'s call): the agent tools it was reached through,
   * outermost first, then the tool, to show as "research-assistant → send_email". The answer is
   * given as any other's; the server checks edits against the inner tool's schema.
   */
  readonly path?: readonly string[] | undefined
  /**
   * Set when the call asking is an agent tool's (`agentTool` with `needsApproval`): what approving
   * it lets the subagent do, the tools it may call and which of them will still ask.
   */
  readonly delegation?: Delegation | undefined
}

/** A person as the server's `identify` named them. */
export interface Person {
  readonly id: string
  readonly name?: string | undefined
  readonly roles?: readonly string[] | undefined
}

/** Who decided a call, when, how, and what they changed: the server's decision record, as the UI shows it. */
export interface ToolDecision {
  readonly decision: 'approved' | 'edited' | 'denied' | 'expired' | 'cancelled' | 'granted' | 'escalated'
  readonly by: Person
  /** ISO 8601. */
  readonly at: string
  readonly channel: 'chat' | 'review-link' | 'api' | 'mcp'
  readonly reason?: string | undefined
  /** Top-level arguments the decider changed. */
  readonly editedFields?: readonly string[] | undefined
  readonly grantId?: string | undefined
}

/** Arguments while they stream: any property may still be missing, any string still cut short. */
export type DeepPartial<T> = T extends readonly (infer E)[]
  ? readonly DeepPartial<E>[]
  : T extends object
    ? { readonly [K in keyof T]?: DeepPartial<T[K]> }
    : T

interface ToolCallBase<TName extends string, TMetadata> {
  readonly type: 'tool-call'
  readonly toolCallId: string
  readonly toolName: TName
  /** The tool's `metadata`, when the client was given the tool; otherwise `{}`. */
  readonly metadata: TMetadata
  readonly approval?: ToolApproval | undefined
  /** Who decided the call, once someone did (or the grant it ran under). */
  readonly decision?: ToolDecision | undefined
  /** Set on a call of an agent tool (`agentTool` on the server) once its subagent starts: the subagent's work. */
  readonly subagent?: SubagentPart | undefined
}

/**
 * The work of a subagent: an agent tool's own model and tools, run inside its call
 * (`ToolCallPart.subagent`), as it streams: its text, and its tool calls (a call of another agent
 * tool holds that one's work in turn). Its calls that need a person are in `pendingApprovals` with
 * the others, answered the same way; their `approval.path` says how they were reached.
 * - `running`: it works; `suspended`: one of its calls (or a deeper subagent's) waits for an answer;
 * - `finished`: it answered (`result`; the call's output carries it too);
 * - `error`: it failed (`error`); the run goes on, and the model reads the failure.
 */
export interface SubagentPart {
  readonly type: 'subagent'
  /** This invocation: another call of the same agent tool starts another. */
  readonly subagentRunId: string
  /** The agent tool's name. */
  readonly name: string
  readonly description?: string | undefined
  readonly status: 'running' | 'suspended' | 'finished' | 'error'
  /** Its text and tool calls, in order; the tools are the subagent's, typed loosely (`input` and `output` are `unknown`). */
  readonly parts: readonly MessagePart[]
  /** Its answer, once `finished`. */
  readonly result?: unknown
  /** What went wrong, with `error`. */
  readonly error?: string | undefined
}

/** The fields that follow from a call's state; one union member per state, so a check on `state` narrows. */
type StateFields<TState extends ToolCallState, TInput, TOutput> = TState extends 'input-streaming'
  ? { readonly state: TState; readonly input: DeepPartial<TInput> | undefined; readonly output?: undefined; readonly error?: undefined }
  : TState extends 'output-available'
    ? {
        readonly state: TState
        readonly input: TInput
        readonly output: TOutput
        readonly error?: undefined
        /** Files the tool returned (`toolResult()`); show a stored one from `attachmentUrl(endpoint, threadId, attachment)`. */
        readonly attachments?: readonly ThreadAttachment[] | undefined
      }
    : TState extends 'output-error'
      ? {
          readonly state: TState
          readonly input: TInput
          readonly output?: undefined
          /** What went wrong: the text the model read, or this browser's own failure for a client tool. */
          readonly error: string
        }
      : { readonly state: TState; readonly input: TInput; readonly output?: undefined; readonly error?: undefined }

/**
 * One call of one tool: a union over `state`, so checking the state narrows `input`, `output` and
 * `error`. `input` is typed by the tool's schema but is what the model wrote (or the user edited):
 * the server validates it before the tool runs, the display does not.
 */
export type ToolCallPartOf<TName extends string, TInput, TOutput, TMetadata = ToolMetadata> = ToolCallBase<TName, TMetadata> &
  StateFields<ToolCallState, TInput, TOutput>

type ToolMetadataOf<TTool> = TTool extends { readonly metadata: infer M } ? M : never

/**
 * The tool-call part of one tool. `input` is what the model sent (the schema's input side: a field
 * with a default may be missing); the tool's `execute` sees it validated.
 */
export type ToolCallPartFor<TTool> = TTool extends AnyTool
  ? ToolCallPartOf<InferToolName<TTool>, KnownOr<InferToolRawInput<TTool>>, KnownOr<InferToolOutput<TTool>>, ToolMetadataOf<TTool>>
  : never

/** `unknown` where a type is `any` (the tools of a client given none): an app checks before it uses. */
type KnownOr<T> = 0 extends 1 & T ? unknown : T

/**
 * A tool-call part of any of the tools: a discriminated union over their names, so checking
 * `toolName` narrows `input` and `output`. Give the client every tool the model may call
 * (definitions for server tools, `.client()` tools for browser ones) so the union is complete.
 */
export type ToolCallPart<TTools extends readonly AnyTool[] = readonly AnyTool[]> = ToolCallPartFor<TTools[number]>

export type MessagePart<TTools extends readonly AnyTool[] = readonly AnyTool[]> = TextPart | ToolCallPart<TTools>

export interface UserMessage {
  readonly id: string
  readonly role: 'user'
  readonly parts: readonly [TextPart]
}

/** One model step: its text and the tools it called, each with where it stands. */
export interface AssistantMessage<TTools extends readonly AnyTool[] = readonly AnyTool[]> {
  readonly id: string
  readonly role: 'assistant'
  readonly parts: readonly MessagePart<TTools>[]
  /** The user stopped the run in this step, as the stored thread says (known after a reload). */
  readonly stopped?: true
}

/** A message as the chat shows it (a UI type; the stored, wire form is `ThreadMessage`). */
export type ChatMessage<TTools extends readonly AnyTool[] = readonly AnyTool[]> = UserMessage | AssistantMessage<TTools>

/**
 * - `idle`: ready for a message.
 * - `streaming`: a request is in flight (a turn, a resume or a thread load).
 * - `reconnecting`: the stream of a run dropped and the client is attaching to it again.
 * - `running-tools`: client tools are running in this browser.
 * - `awaiting-approval`: the run waits for the user's answers (`pendingApprovals`).
 * - `error`: the last request failed (`error` says why).
 */
export type ChatStatus = 'idle' | 'streaming' | 'reconnecting' | 'awaiting-approval' | 'running-tools' | 'error'

/**
 * What a chat client holds, for a view to render (a UI type: the wire's stored thread is
 * `ThreadSnapshot`). Immutable; parts and messages that did not change keep their identity.
 */
export interface ChatState<TTools extends readonly AnyTool[] = readonly AnyTool[]> {
  readonly threadId: string | undefined
  readonly messages: readonly ChatMessage<TTools>[]
  readonly status: ChatStatus
  readonly error: ChatError | undefined
  /** The calls waiting for the user's answer, oldest first (the same objects as in `messages`). */
  readonly pendingApprovals: readonly PendingApproval<TTools>[]
}

export type PendingApproval<TTools extends readonly AnyTool[] = readonly AnyTool[]> = Extract<
  ToolCallPart<TTools>,
  { readonly state: 'approval-requested' }
>
