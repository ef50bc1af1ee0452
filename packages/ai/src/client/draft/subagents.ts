import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import type { ReadEvent } from '../stream/index.ts'
import type { MessagePart, SubagentPart } from './parts.ts'
import type { MessageDraft, PartDraft, SubagentDraft, ThreadDraft, ToolCallDraft } from './threadDraft.ts'

// Subagents (an agent tool's work inside its call), drafted beside the text and calls they hold.
// In the call-reading chunk (`chunks/`): the stream loads it before it hands on an event that
// carries a `subagentRunId`, and the stored thread before it is read with a subagent's call
// waiting; a chat without agent tools never loads this.

interface SubagentRecord extends SubagentDraft {
  /** The subagent run's id (as a `MessageDraft`: text and calls are added to it as to a message). */
  readonly id: string
  readonly role: 'assistant'
  readonly name: string
  readonly description: string | undefined
  status: SubagentPart['status']
  result: unknown
  error: string | undefined
  snapshot: SubagentPart | undefined
}

type SubagentChanges = Partial<Pick<SubagentRecord, 'status' | 'result' | 'error'>>

/** The subagents of each draft by run id: the draft's own, kept here so that a chat without subagents carries none of this. */
const drafted = new WeakMap<ThreadDraft, Map<string, SubagentRecord>>()

function subagentsOf(draft: ThreadDraft): Map<string, SubagentRecord> {
  let subagents = drafted.get(draft)
  if (!subagents) drafted.set(draft, (subagents = new Map()))
  return subagents
}

/**
 * Applies an event that carries a `subagentRunId`: a subagent starts, ends or fails, or its model
 * writes text or starts a call, which go in the subagent instead of a message. Returns `false` for
 * what `applyCallEvent` applies as for any call (arguments, results: found by the call's id), and for
 * events of a subagent this draft never saw start (applied as the run's own, so nothing is lost).
 */
export function applySubagentEvent(draft: ThreadDraft, event: ReadEvent & { readonly subagentRunId: string }): boolean {
  const subagent = subagentsOf(draft).get(event.subagentRunId)
  switch (event.type) {
    case 'SUBAGENT_STARTED':
      // A resumed subagent starts again under its id.
      if (subagent) edit(draft, subagent, { status: 'running' })
      else {
        const holder = event.parentSubagentRunId === undefined ? undefined : subagentsOf(draft).get(event.parentSubagentRunId)
        const message = holder ?? (event.parentMessageId === undefined ? undefined : draft.assistantMessage(event.parentMessageId))
        start(draft, event.subagentRunId, event.name, callOf(draft, event.parentToolCallId, event.name, message), 'running', event.description)
      }
      return true
    case 'SUBAGENT_FINISHED':
      if (subagent) edit(draft, subagent, event.outcome?.type === 'suspended' ? { status: 'suspended' } : { status: 'finished', result: event.result })
      return true
    case 'SUBAGENT_ERROR':
      if (subagent) edit(draft, subagent, { status: 'error', error: event.message })
      return true
  }
  if (!subagent) return false
  switch (event.type) {
    case 'TEXT_MESSAGE_START':
      return true
    case 'TEXT_MESSAGE_CONTENT':
      if (event.delta !== '') draft.appendText(subagent, event.delta)
      return true
    case 'TOOL_CALL_START':
      if (!draft.call(event.toolCallId)) draft.addCall(subagent, event.toolCallId, event.toolCallName)
      return true
  }
  return false
}

/**
 * The subagents an interrupt of a stored thread was reached through, rebuilt from its `path` (the
 * stored thread keeps the run's own messages, not a subagent's; the pause checked the path): each
 * suspended, in the call that started it, holding the next one's call, the innermost holding the
 * call that waits.
 */
export function restoreSubagents(draft: ThreadDraft, { path = [], toolCallId, toolName, input }: ToolInterrupt): void {
  let holder: MessageDraft | undefined
  for (const hop of path) {
    holder = subagentsOf(draft).get(hop.subagentRunId) ?? start(draft, hop.subagentRunId, hop.agent, callOf(draft, hop.toolCallId, hop.agent, holder), 'suspended')
  }
  if (holder && !draft.call(toolCallId)) draft.addCall(holder, toolCallId, toolName, { value: input })
}

/** The agent tool's call that starts a subagent: known, else added to `holder` or the last assistant message (its arguments are the server's). */
function callOf(draft: ThreadDraft, toolCallId: string, name: string, holder: MessageDraft | undefined): ToolCallDraft {
  const known = draft.call(toolCallId)
  if (known) return known
  return draft.addCall(holder ?? draft.lastAssistantMessage(), toolCallId, name, { value: undefined })
}

function start(draft: ThreadDraft, id: string, name: string, call: ToolCallDraft, status: SubagentRecord['status'], description?: string): SubagentRecord {
  const subagent: SubagentRecord = {
    parent: call,
    id,
    role: 'assistant',
    name,
    description,
    status,
    result: undefined,
    error: undefined,
    parts: [],
    snapshot: undefined,
    snap: (snapshotOf) => snapshotOfSubagent(subagent, snapshotOf),
  }
  subagentsOf(draft).set(id, subagent)
  draft.delegate(call, subagent)
  // A server tool's call runs unseen; an agent tool's is known to run once its subagent starts.
  if (call.state === 'input-available') draft.execute(call, call.input)
  return subagent
}

/** The one writer of a subagent's status, answer and failure. */
function edit(draft: ThreadDraft, subagent: SubagentRecord, changes: SubagentChanges): void {
  Object.assign(subagent, changes)
  draft.touch(subagent)
}

function snapshotOfSubagent(subagent: SubagentRecord, snapshotOf: (part: PartDraft) => MessagePart): SubagentPart {
  subagent.snapshot ??= Object.freeze({
    type: 'subagent',
    subagentRunId: subagent.id,
    name: subagent.name,
    ...(subagent.description === undefined ? {} : { description: subagent.description }),
    status: subagent.status,
    parts: Object.freeze(subagent.parts.map(snapshotOf)),
    ...(subagent.status === 'finished' && subagent.result !== undefined ? { result: subagent.result } : {}),
    ...(subagent.status === 'error' ? { error: subagent.error } : {}),
  })
  return subagent.snapshot
}
