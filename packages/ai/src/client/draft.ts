import type { ToolInterrupt } from '../protocol/interrupts.ts'
import type { ThreadAttachment } from '../protocol/messages.ts'
import type { AnyTool, ToolMetadata } from '../tools/types.ts'
import { randomId } from '../util/randomId.ts'
import { PartialJsonParser } from './partialJson.ts'
import type { ChatMessage, MessagePart, PendingApproval, TextPart, ToolApproval, ToolCallPart, ToolCallState } from './parts.ts'

/**
 * The conversation as the client edits it: mutable drafts that remember their last immutable
 * snapshot. An edit drops the snapshot of the part and of its message only, so publishing
 * rebuilds what changed and every other message and part keeps its identity. Events cost O(1)
 * here; building snapshots happens once per published state.
 */

interface TextDraft {
  readonly kind: 'text'
  readonly message: MessageDraft
  text: string
  snapshot: TextPart | undefined
}

export interface ToolCallDraft {
  readonly kind: 'tool-call'
  readonly message: MessageDraft
  readonly toolCallId: string
  readonly toolName: string
  readonly metadata: ToolMetadata
  state: ToolCallState
  /** Set while the arguments stream. */
  parser: PartialJsonParser | undefined
  input: unknown
  output: unknown
  attachments: readonly ThreadAttachment[] | undefined
  error: string | undefined
  approval: ToolApproval | undefined
  /** Ended by this client (stopped, or its request failed): a result the server sends later replaces that. */
  stopped: boolean
  snapshot: ToolCallPart | undefined
}

type PartDraft = TextDraft | ToolCallDraft

export interface MessageDraft {
  readonly id: string
  readonly role: 'user' | 'assistant'
  readonly parts: PartDraft[]
  snapshot: ChatMessage | undefined
}

export type ToolCallChanges = Partial<Pick<ToolCallDraft, 'state' | 'input' | 'output' | 'attachments' | 'error' | 'approval'>>

const EMPTY_METADATA: ToolMetadata = Object.freeze({})

export class ThreadDraft {
  readonly #messages: MessageDraft[] = []
  readonly #messageById = new Map<string, MessageDraft>()
  readonly #calls = new Map<string, ToolCallDraft>()
  readonly #metadataByName: ReadonlyMap<string, ToolMetadata>
  #published: readonly ChatMessage[] = []
  #approvals: readonly PendingApproval[] = []
  #dirty = false

  constructor(tools: readonly AnyTool[]) {
    this.#metadataByName = new Map(tools.map((tool) => [tool.name, tool.metadata ?? EMPTY_METADATA]))
  }

  addUserMessage(text: string, id = randomId('msg_')): void {
    const message = this.#addMessage(id, 'user')
    message.parts.push({ kind: 'text', message, text, snapshot: undefined })
  }

  /** The assistant message with this id, created at the end when new. */
  assistantMessage(id: string): MessageDraft {
    return this.#messageById.get(id) ?? this.#addMessage(id, 'assistant')
  }

  /** The last message if it is the assistant's, else a new one: where calls without a parent go. */
  lastAssistantMessage(): MessageDraft {
    const last = this.#messages[this.#messages.length - 1]
    return last?.role === 'assistant' ? last : this.#addMessage(randomId('msg_'), 'assistant')
  }

  appendText(message: MessageDraft, text: string): void {
    const last = message.parts[message.parts.length - 1]
    if (last?.kind === 'text') {
      last.text += text
      this.touch(last)
    } else {
      message.parts.push({ kind: 'text', message, text, snapshot: undefined })
      this.#touchMessage(message)
    }
  }

  call(toolCallId: string): ToolCallDraft | undefined {
    return this.#calls.get(toolCallId)
  }

  /** Adds a call; its arguments stream into a partial JSON parser unless `input` is given. */
  addCall(message: MessageDraft, toolCallId: string, toolName: string, changes: ToolCallChanges = {}): ToolCallDraft {
    const call: ToolCallDraft = {
      kind: 'tool-call',
      message,
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
      stopped: false,
      snapshot: undefined,
      ...changes,
    }
    if (call.state === 'input-streaming') call.parser = new PartialJsonParser()
    message.parts.push(call)
    this.#calls.set(toolCallId, call)
    this.#touchMessage(message)
    return call
  }

  updateCall(call: ToolCallDraft, changes: ToolCallChanges): void {
    Object.assign(call, changes)
    if (call.state !== 'input-streaming' && call.parser) {
      call.input ??= call.parser.value() // arguments cut short keep what was read of them
      call.parser = undefined
    }
    this.touch(call)
  }

  /** Ends every call still open, but those in `keep`, with `changes`: nothing else will say how they ended. */
  stopCalls(changes: ToolCallChanges, keep: ReadonlySet<string>): void {
    for (const call of this.#calls.values()) {
      if (keep.has(call.toolCallId) || hasEnded(call)) continue
      call.stopped = true
      this.updateCall(call, changes)
    }
  }

  /** A call the server paused on: found, or added to the last assistant message (after a reload, say). */
  callFor(interrupt: ToolInterrupt): ToolCallDraft {
    return (
      this.#calls.get(interrupt.toolCallId) ??
      this.addCall(this.lastAssistantMessage(), interrupt.toolCallId, interrupt.toolName, {
        state: 'input-available',
        input: interrupt.input,
      })
    )
  }

  /** The call as an immutable part. */
  partOf(call: ToolCallDraft): ToolCallPart {
    return callSnapshot(call)
  }

  /** Marks a part changed; the caller has already edited it. */
  touch(part: PartDraft): void {
    part.snapshot = undefined
    this.#touchMessage(part.message)
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

  #addMessage(id: string, role: 'user' | 'assistant'): MessageDraft {
    const message: MessageDraft = { id, role, parts: [], snapshot: undefined }
    this.#messages.push(message)
    this.#messageById.set(id, message)
    this.#dirty = true
    return message
  }

  #touchMessage(message: MessageDraft): void {
    message.snapshot = undefined
    this.#dirty = true
  }
}

/** Whether the call reached one of its final states. */
export function hasEnded(call: ToolCallDraft): boolean {
  return call.state === 'output-available' || call.state === 'output-error' || call.state === 'denied'
}

function messageSnapshot(message: MessageDraft): ChatMessage {
  message.snapshot ??= Object.freeze({
    id: message.id,
    role: message.role,
    parts: Object.freeze(message.parts.map(partSnapshot)),
  }) as ChatMessage
  return message.snapshot
}

function partSnapshot(part: PartDraft): MessagePart {
  return part.kind === 'text' ? (part.snapshot ??= Object.freeze({ type: 'text', text: part.text })) : callSnapshot(part)
}

function callSnapshot(call: ToolCallDraft): ToolCallPart {
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
  call.snapshot = Object.freeze(part) as unknown as ToolCallPart
  return call.snapshot
}

/** Keeps the previous array when it holds the same items, so selectors on it stay quiet. */
function sameItems<T>(previous: readonly T[], next: readonly T[]): readonly T[] {
  if (previous.length === next.length && previous.every((item, i) => item === next[i])) return previous
  return Object.freeze(next)
}
