import type { ThreadAttachment } from '../../protocol/messages.ts'
import type { AnyTool, ToolMetadata } from '../../tools/types.ts'
import { localId } from './localId.ts'
import { callReading, notLoaded } from '../chunks/index.ts'
import type { PartialJsonParser } from './partialJson.ts'
import type { ChatMessage, MessagePart, PendingApproval, SubagentPart, TextPart, ToolApproval, ToolCallPart, ToolCallState, ToolDecision } from './parts.ts'

/**
 * The conversation as the client edits it: mutable drafts that remember their last immutable
 * snapshot. An edit drops the snapshot of the part and of its message only, so publishing
 * rebuilds what changed and every other message and part keeps its identity. Events cost O(1)
 * here; building snapshots happens once per published state.
 */

interface TextDraft {
  readonly kind: 'text'
  readonly parent: PartHolder
  text: string
  snapshot: TextPart | undefined
}

/**
 * A call as the rest of the client sees it: read-only. It changes only through the named
 * transitions of `ThreadDraft` below, so every state a call can reach is listed in one place.
 */
export interface ToolCallDraft {
  readonly kind: 'tool-call'
  readonly toolCallId: string
  readonly toolName: string
  readonly metadata: ToolMetadata
  readonly state: ToolCallState
  readonly input: unknown
  readonly output: unknown
  readonly attachments: readonly ThreadAttachment[] | undefined
  readonly error: string | undefined
  readonly approval: ToolApproval | undefined
  readonly decision: ToolDecision | undefined
  readonly subagent: SubagentDraft | undefined
  /** Ended by this client (stopped, or its request failed): a result the server sends later replaces that. */
  readonly stopped: boolean
}

/** A call as `ThreadDraft` edits it. */
interface CallRecord extends ToolCallDraft {
  readonly parent: PartHolder
  state: ToolCallState
  /** Set while the arguments stream. */
  parser: PartialJsonParser | undefined
  input: unknown
  output: unknown
  attachments: readonly ThreadAttachment[] | undefined
  error: string | undefined
  approval: ToolApproval | undefined
  decision: ToolDecision | undefined
  subagent: SubagentDraft | undefined
  stopped: boolean
  snapshot: ToolCallPart | undefined
}

/**
 * The work of a call's subagent, drafted by `subagents.ts` (in the call-reading chunk): it holds
 * parts of its own, and makes its own snapshot, with `snapshotOf` for those parts.
 */
export interface SubagentDraft extends PartHolder {
  /** The agent tool's call. */
  readonly parent: ToolCallDraft
  snap(snapshotOf: (part: PartDraft) => MessagePart): SubagentPart
}

export type PartDraft = TextDraft | CallRecord

/** A message of the draft: where new text and calls go. */
export interface MessageDraft {
  readonly id: string
  readonly role: 'user' | 'assistant'
}

/** What holds parts: a message, or a call's subagent (then `parent` is the call). */
export interface PartHolder extends MessageDraft {
  readonly parts: PartDraft[]
  snapshot: object | undefined
  readonly parent?: ToolCallDraft
}

/** What `touch` walks: a part or what holds it, each with its snapshot, up to the message. */
interface Drafted {
  snapshot: object | undefined
  readonly parent?: Drafted | ToolCallDraft | undefined
}

interface MessageRecord extends PartHolder {
  snapshot: ChatMessage | undefined
  stopped?: true
}

type ToolCallChanges = Partial<Pick<CallRecord, 'state' | 'input' | 'output' | 'attachments' | 'error' | 'approval' | 'decision' | 'subagent' | 'stopped'>>

/**
 * How a call ended, whoever says so: a `TOOL_CALL_RESULT`, the stored thread, a tool that ran in
 * this browser, the user denying it. `settle` maps it to a state, in one place.
 */
export type CallOutcome =
  | { readonly status: 'success'; readonly output: unknown; readonly attachments?: readonly ThreadAttachment[] | undefined }
  | { readonly status: 'error'; readonly error: string }
  | { readonly status: 'denied'; readonly reason?: string | undefined }
  | { readonly status: 'expired' }
  | { readonly status: 'cancelled' }

const EMPTY_METADATA: ToolMetadata = Object.freeze({})

export class ThreadDraft {
  readonly #messages: MessageRecord[] = []
  readonly #messageById = new Map<string, MessageRecord>()
  readonly #calls = new Map<string, CallRecord>()
  readonly #metadataByName: ReadonlyMap<string, ToolMetadata>
  #published: readonly ChatMessage[] = []
  #approvals: readonly PendingApproval[] = []
  #dirty = false

  constructor(tools: readonly AnyTool[]) {
    this.#metadataByName = new Map(tools.map((tool) => [tool.name, tool.metadata ?? EMPTY_METADATA]))
  }

  addUserMessage(text: string, id = localId('msg_')): void {
    const parent = this.#addMessage(id, 'user')
    parent.parts.push({ kind: 'text', parent, text, snapshot: undefined })
  }

  /** The assistant message with this id, created at the end when new. */
  assistantMessage(id: string): MessageDraft {
    return this.#messageById.get(id) ?? this.#addMessage(id, 'assistant')
  }

  /** The last message if it is the assistant's, else a new one: where calls without a parent go. */
  lastAssistantMessage(): MessageDraft {
    const last = this.#messages[this.#messages.length - 1]
    return last?.role === 'assistant' ? last : this.#addMessage(localId('msg_'), 'assistant')
  }

  /** The stored thread says the user stopped the run in this step. */
  markStopped(draft: MessageDraft): void {
    const message = draft as MessageRecord
    message.stopped = true
    this.touch(message)
  }

  /** Appends text to a message, or to a subagent's part (`subagents.ts`). */
  appendText(draft: MessageDraft, text: string): void {
    const parent = draft as PartHolder
    const last = parent.parts[parent.parts.length - 1]
    if (last?.kind === 'text') {
      last.text += text
      this.touch(last)
    } else {
      parent.parts.push({ kind: 'text', parent, text, snapshot: undefined })
      this.touch(parent)
    }
  }

  call(toolCallId: string): ToolCallDraft | undefined {
    return this.#calls.get(toolCallId)
  }

  /**
   * Adds a call. Without `input` its arguments stream into a partial JSON parser
   * (`input-streaming`); with it the call is `input-available` (a stored or reloaded call).
   */
  addCall(draft: MessageDraft, toolCallId: string, toolName: string, input?: { readonly value: unknown }): ToolCallDraft {
    const parent = draft as PartHolder
    const call: CallRecord = {
      kind: 'tool-call',
      parent,
      toolCallId,
      toolName,
      metadata: this.#metadataByName.get(toolName) ?? EMPTY_METADATA,
      state: 'input-streaming',
      parser: undefined,
      input: undefined,
      output: undefined,
      attachments: undefined,
      error: undefined,
      approval: undefined,
      decision: undefined,
      subagent: undefined,
      stopped: false,
      snapshot: undefined,
    }
    if (input) {
      call.state = 'input-available'
      call.input = input.value
    } else call.parser = new (reading().PartialJsonParser)()
    parent.parts.push(call)
    this.#calls.set(toolCallId, call)
    this.touch(parent)
    return call
  }

  // The transitions of a call, named; the only writers of its state.

  /** More of the arguments arrived; nothing once they are complete. */
  argumentsDelta(call: ToolCallDraft, delta: string): void {
    const { parser } = call as CallRecord
    if (!parser || delta === '') return
    parser.push(delta)
    this.touch(call as CallRecord)
  }

  /**
   * The arguments finished streaming; nothing if they were not streaming. Malformed or cut
   * arguments keep what could be read (before `finishPartialJson` pads the text): the server,
   * which validates, reports the failure.
   */
  argumentsComplete(call: ToolCallDraft): void {
    const { parser } = call as CallRecord
    if (!parser) return
    const read = parser.value()
    const result = reading().finishPartialJson(parser)
    this.#set(call, { state: 'input-available', input: 'value' in result ? result.value : read })
  }

  /** The server asks the user; also when an approval not taken by the server is offered again. */
  askApproval(call: ToolCallDraft, input: unknown, approval: ToolApproval): void {
    this.#set(call, { state: 'approval-requested', input, approval })
  }

  /** The user approved: the call runs (on the server, or here as a client tool), with the edited input if any. */
  approve(call: ToolCallDraft, editedInput?: { readonly value: unknown }): void {
    this.#set(call, { state: 'executing', approval: { ...call.approval, approved: true }, ...(editedInput ? { input: editedInput.value } : {}) })
  }

  /** A client tool starts in this browser. */
  execute(call: ToolCallDraft, input: unknown): void {
    this.#set(call, { state: 'executing', input })
  }

  /** The call ended: the one mapping from an outcome to a state. */
  settle(call: ToolCallDraft, outcome: CallOutcome, decision?: ToolDecision, stopped?: boolean): void {
    const decided = decision ? { decision } : stopped ? { stopped } : {}
    switch (outcome.status) {
      case 'success':
        return this.#set(call, { state: 'output-available', output: outcome.output, ...(outcome.attachments ? { attachments: outcome.attachments } : {}), ...decided })
      case 'error':
        return this.#set(call, { state: 'output-error', error: outcome.error, ...decided })
      case 'denied':
        return this.#set(call, {
          ...decided,
          state: 'denied',
          approval: { ...call.approval, approved: false, ...(outcome.reason === undefined ? {} : { denyReason: outcome.reason }) },
        })
      case 'expired':
      case 'cancelled':
        return this.#set(call, { state: outcome.status, ...decided })
    }
  }

  /** An agent tool's call started its subagent, whose work the call holds from now on. */
  delegate(call: ToolCallDraft, subagent: SubagentDraft): void {
    this.#set(call, { subagent })
  }

  /** The server's record of how a call this client settled was decided: the outcome stands, the record joins it. */
  decide(call: ToolCallDraft, decision: ToolDecision): void {
    this.#set(call, { decision })
  }

  /** Ends every call still open, but those in `keep`, with `error`: nothing else will say how they ended. */
  stopCalls(error: string, keep: ReadonlySet<string>): void {
    for (const call of this.#calls.values()) {
      if (keep.has(call.toolCallId) || hasEnded(call)) continue
      call.stopped = true
      this.settle(call, { status: 'error', error })
    }
  }

  #set(draft: ToolCallDraft, changes: ToolCallChanges): void {
    const call = Object.assign(draft as CallRecord, changes)
    if (call.state !== 'input-streaming' && call.parser) {
      call.input ??= call.parser.value() // arguments cut short keep what was read of them
      call.parser = undefined
    }
    this.touch(call)
  }

  /** The call as an immutable part. */
  partOf(call: ToolCallDraft): ToolCallPart {
    return callSnapshot(call as CallRecord)
  }

  /** Marks a part changed, once it was edited, and what holds it, up to its message (a subagent's parts too: the subagent, its call, the call's message). */
  touch(part: PartDraft | PartHolder): void {
    // A call's record is `Drafted` (`CallRecord`); the rest of the client sees it as a `ToolCallDraft`.
    for (let changed: Drafted | undefined = part; changed; changed = changed.parent as Drafted | undefined) changed.snapshot = undefined
    this.#dirty = true
  }

  /** The messages as immutable data, sharing every unchanged message and part with the last call. */
  snapshot(): { readonly messages: readonly ChatMessage[]; readonly pendingApprovals: readonly PendingApproval[] } {
    if (this.#dirty) {
      this.#dirty = false
      this.#published = Object.freeze(this.#messages.map(messageSnapshot))
      this.#approvals = sameItems(this.#approvals, this.#pendingApprovals())
    }
    return { messages: this.#published, pendingApprovals: this.#approvals }
  }

  #pendingApprovals(): readonly PendingApproval[] {
    const pending: PendingApproval[] = []
    for (const call of this.#calls.values()) {
      if (call.state === 'approval-requested') pending.push(callSnapshot(call) as PendingApproval)
    }
    return pending
  }

  #addMessage(id: string, role: 'user' | 'assistant'): MessageRecord {
    const message: MessageRecord = { id, role, parts: [], snapshot: undefined }
    this.#messages.push(message)
    this.#messageById.set(id, message)
    this.#dirty = true
    return message
  }
}

const FINAL_STATES: ReadonlySet<ToolCallState> = new Set(['output-available', 'output-error', 'denied', 'expired', 'cancelled'])

/** Whether the call reached one of its final states. */
export function hasEnded(call: ToolCallDraft): boolean {
  return FINAL_STATES.has(call.state)
}

function messageSnapshot(message: MessageRecord): ChatMessage {
  message.snapshot ??= Object.freeze({
    id: message.id,
    role: message.role,
    parts: Object.freeze(message.parts.map(partSnapshot)),
    ...(message.stopped && { stopped: true }),
  }) as ChatMessage
  return message.snapshot
}

function partSnapshot(part: PartDraft): MessagePart {
  return part.kind === 'text' ? (part.snapshot ??= Object.freeze({ type: 'text', text: part.text })) : callSnapshot(part)
}

function callSnapshot(call: CallRecord): ToolCallPart {
  if (call.snapshot) return call.snapshot
  const part: Record<string, unknown> = {
    type: 'tool-call',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    state: call.state,
    // The parser returns the same object until the arguments change.
    input: call.parser ? call.parser.value() : call.input,
    metadata: call.metadata,
  }
  if (call.state === 'output-available') part.output = call.output
  if (call.state === 'output-available' && call.attachments?.length) part.attachments = call.attachments
  if (call.state === 'output-error') part.error = call.error
  if (call.approval) part.approval = call.approval
  if (call.decision) part.decision = call.decision
  if (call.subagent) part.subagent = call.subagent.snap(partSnapshot)
  call.snapshot = Object.freeze(part) as unknown as ToolCallPart
  return call.snapshot
}

/** Keeps the previous array when it holds the same items, so selectors on it stay quiet. */
function sameItems<T>(previous: readonly T[], next: readonly T[]): readonly T[] {
  if (previous.length === next.length && previous.every((item, i) => item === next[i])) return previous
  return Object.freeze(next)
}

/** The call-reading chunk, which the stream loads before it hands on a call (`chunks/`), so drafts create parsers synchronously. */
function reading() {
  return callReading.get() ?? notLoaded('callReading')
}
