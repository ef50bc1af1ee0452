import type { ThreadSnapshot } from '../../../protocol/thread.ts'
import { toTanStackInterrupts } from './tanStackInterrupts.ts'

// `useChat({ persistence: true, threadId })` hydrates from `GET ?threadId=` and reads
// `{ messages: UIMessage[], activeRun, interrupts, page? }`: TanStack's UI messages hold `parts`,
// a tool's result is a part of the assistant message that made the call, and a turn's steps are one message.

type Part = Record<string, unknown>
interface TanStackUIMessage {
  readonly id: string
  readonly role: 'user' | 'assistant'
  readonly parts: Part[]
  /** TanStack's metadata bag, whose top-level keys are the app's: `toolgate.stopped` marks a turn the user stopped. */
  metadata?: { toolgate: { stopped: true } }
}

const PAUSED_RUN = 'run_paused'

export interface TanStackThread {
  readonly messages: TanStackUIMessage[]
  readonly activeRun: { readonly runId: string } | null
  readonly interrupts: { readonly runId: string; readonly pending: Record<string, unknown>[] } | null
  readonly page?: { readonly truncated: false } | { readonly truncated: true; readonly cursor: string }
}

/** The snapshot as TanStack's hydration reads it; `window` is set when only a page was read. */
export function toTanStackThread(snapshot: ThreadSnapshot): TanStackThread {
  const approvals = new Map(snapshot.interrupts.filter((i) => i.reason === 'tool_approval').map((i) => [i.toolCallId, i.id]))
  // Answers the server holds while others of the batch wait, shown as given: approvals as
  // responded, a browser tool's output (or failure) as the call's result, so the page does not run it again.
  const answered = new Map(snapshot.answers?.flatMap((a) => ('approved' in a ? [[a.toolCallId, { id: a.interruptId, needsApproval: true, approved: a.approved }] as const] : [])))
  const outputs = new Map(snapshot.answers?.flatMap((a) => ('approved' in a ? [] : [[a.toolCallId, a] as const])))
  const messages: TanStackUIMessage[] = []
  const calls = new Map<string, Part>()
  for (const message of snapshot.messages) {
    if (message.role === 'user') {
      messages.push({ id: message.id, role: 'user', parts: [{ type: 'text', content: message.content }] })
    } else if (message.role === 'assistant') {
      const parts: Part[] = message.content === '' ? [] : [{ type: 'text', content: message.content }]
      for (const call of message.toolCalls) {
        const approvalId = approvals.get(call.id)
        const response = answered.get(call.id)
        const part: Part = {
          type: 'tool-call',
          id: call.id,
          name: call.name,
          arguments: call.arguments,
          state: approvalId !== undefined ? 'approval-requested' : response ? 'approval-responded' : 'input-complete',
          ...(approvalId !== undefined ? { approval: { id: approvalId, needsApproval: true } } : response ? { approval: response } : {}),
        }
        calls.set(call.id, part)
        parts.push(part)
        const held = outputs.get(call.id)
        if (held) {
          const failed = 'error' in held
          part.state = failed ? 'error' : 'complete'
          part.output = failed ? held.error : held.output
          const content = failed ? held.error : JSON.stringify(held.output)
          parts.push({ type: 'tool-result', toolCallId: call.id, content, state: failed ? 'error' : 'complete', ...(failed ? { error: held.error } : {}) })
        }
      }
      // One turn is one assistant UIMessage, as TanStack's client builds it live: the steps after a
      // tool's result join the message that made the call.
      const last = messages.at(-1)
      const turn = last?.role === 'assistant' ? last : { id: message.id, role: 'assistant' as const, parts: [] }
      if (turn !== last) messages.push(turn)
      turn.parts.push(...parts)
      // A stop ends the turn, so the stopped step is its last and the turn's message carries the mark
      // (TanStack's parts have no stopped state; its message metadata is the app's to read).
      if (message.stopped) turn.metadata = { toolgate: { stopped: true } }
    } else {
      const failed = message.status !== 'success'
      const call = calls.get(message.toolCallId)
      if (call) {
        call.state = failed ? 'error' : 'complete'
        call.output = message.output ?? message.content
      }
      const owner = messages.findLast((m) => m.role === 'assistant')
      const result: Part = {
        type: 'tool-result',
        toolCallId: message.toolCallId,
        content: message.content,
        state: failed ? 'error' : 'complete',
        ...(failed ? { error: message.reason ?? message.content } : {}),
      }
      // A result without its call in this page (a page boundary) still shows, as its own message.
      if (owner && call) owner.parts.push(result)
      else messages.push({ id: message.id, role: 'assistant', parts: [result] })
    }
  }
  const { runId, status, window } = snapshot
  return {
    messages,
    activeRun: status === 'running' && runId !== undefined ? { runId } : null,
    // TanStack echoes `runId` back as the resume's `parentRunId`, which Toolgate does not need (the
    // interrupt ids name the step): a paused thread keeps no run id, so a fixed one stands in.
    interrupts: snapshot.interrupts.length > 0 ? { runId: runId ?? PAUSED_RUN, pending: toTanStackInterrupts(snapshot.interrupts) } : null,
    ...(window === undefined ? {} : { page: window.from > 0 ? { truncated: true, cursor: String(window.from) } : { truncated: false } }),
  }
}
