import type { ThreadSnapshot } from '../../../protocol/thread.ts'
import { attachmentUrl } from './attachmentUrl.ts'
import { parseArguments } from './uiMessageStream.ts'
import type { AiSdkThread, AiSdkToolPart, AiSdkUIMessage, AiSdkUIPart } from '../../../protocol/aiSdk.ts'
import { approvalMetadata } from './uiMessageChunks.ts'

export interface AiSdkThreadOptions {
  /** The endpoint's URL path, where stored attachments are served. */
  readonly endpoint: string
  /** Whether the server runs tool `name` (its parts are `providerExecuted`). */
  readonly isServerTool?: (name: string) => boolean
}

type MutablePart = AiSdkToolPart & Record<string, unknown>

/**
 * A stored thread as AI SDK `UIMessage`s, shaped exactly as the live stream left them: one
 * assistant message per turn (its model steps after `step-start` parts), text and calls marked with
 * the stored message they come from, calls in their final state, and what still waits as
 * `approval-requested` (answer with `addToolApprovalResponse`) or, for a browser tool, as
 * `input-available` naming its interrupt (run it and `addToolOutput`). Answers the server holds
 * while the rest of their batch waits show as given (`approval-responded`, or the browser tool's
 * output, told as the server's: `providerExecuted`), marked `answered` so the request that completes
 * the batch does not give them again.
 */
export function toAiSdkThread(snapshot: ThreadSnapshot, options: AiSdkThreadOptions): AiSdkThread {
  const messages: AiSdkUIMessage[] = []
  let turn: { id: string; parts: AiSdkUIPart[]; calls: Map<string, MutablePart> } | undefined
  for (const message of snapshot.messages) {
    if (message.role === 'user') {
      turn = undefined
      messages.push({ id: message.id, role: 'user', parts: [{ type: 'text', text: message.content }] })
    } else if (message.role === 'assistant') {
      if (!turn) {
        turn = { id: message.id, parts: [], calls: new Map() }
        messages.push({ id: turn.id, role: 'assistant', parts: turn.parts })
      }
      turn.parts.push({ type: 'step-start' })
      // A step the user stopped says so where the step's own metadata is: the AI SDK's parts have no stopped state.
      const step = message.stopped ? { messageId: message.id, stopped: true as const } : { messageId: message.id }
      for (const { text } of message.reasoning ?? []) if (text !== '') turn.parts.push({ type: 'reasoning', text, state: 'done' })
      if (message.content !== '') turn.parts.push({ type: 'text', text: message.content, state: 'done', providerMetadata: { toolgate: step } })
      for (const call of message.toolCalls) {
        const part: MutablePart = {
          type: `tool-${call.name}`,
          toolCallId: call.id,
          state: 'input-available',
          input: parseArguments(call.arguments),
          ...(options.isServerTool?.(call.name) ? { providerExecuted: true } : {}),
          callProviderMetadata: { toolgate: step },
        }
        turn.calls.set(call.id, part)
        turn.parts.push(part as AiSdkToolPart)
      }
    } else {
      const part = turn?.calls.get(message.toolCallId)
      if (!turn || !part) continue
      if (message.status === 'denied') {
        Object.assign(part, { state: 'output-denied', approval: { id: message.id, approved: false, ...(message.reason === undefined ? {} : { reason: message.reason }) } })
        continue
      }
      part.resultProviderMetadata = { toolgate: { resultId: message.id } }
      // The AI SDK has no state for a call no one decided (expired, cancelled): it did not run, and its sentence says why.
      if (message.status === 'error' || message.status === 'expired' || message.status === 'cancelled') {
        Object.assign(part, { state: 'output-error', errorText: message.content })
        continue
      }
      Object.assign(part, { state: 'output-available', output: 'output' in message ? message.output : message.content })
      for (const attachment of message.attachments ?? []) {
        const url = attachmentUrl(attachment, options.endpoint, snapshot.threadId)
        if (url !== undefined) turn.parts.push({ type: 'file', url, mediaType: attachment.mimeType, ...(attachment.filename ? { filename: attachment.filename } : {}) })
      }
    }
  }
  for (const interrupt of snapshot.interrupts) {
    const part = turn?.calls.get(interrupt.toolCallId)
    if (!part) continue
    if (interrupt.reason === 'tool_approval') {
      Object.assign(part, { state: 'approval-requested', approval: { id: interrupt.id } })
      if (interrupt.message !== undefined && part.providerExecuted) part.toolMetadata = approvalMetadata(interrupt.message)
    } else {
      const messageId = part.callProviderMetadata?.toolgate.messageId
      Object.assign(part, { state: 'input-available', input: interrupt.input, callProviderMetadata: { toolgate: { ...(messageId ? { messageId } : {}), interruptId: interrupt.id } } })
    }
  }
  // Answers the server holds while the rest of the batch waits, as the page that gave them showed them.
  for (const answer of snapshot.answers ?? []) {
    const part = turn?.calls.get(answer.toolCallId)
    if (!part) continue
    const toolgate = { ...part.callProviderMetadata?.toolgate, answered: true as const }
    if ('approved' in answer) {
      const approval = { id: answer.interruptId, approved: answer.approved, ...(answer.reason === undefined ? {} : { reason: answer.reason }) }
      Object.assign(part, { state: 'approval-responded', approval, callProviderMetadata: { toolgate } })
    } else {
      // As the live stream tells it back (heldOutputs.ts): the server's now, so `useChat` neither runs nor sends it again.
      const settled = 'output' in answer ? { state: 'output-available', output: answer.output } : { state: 'output-error', errorText: answer.error }
      Object.assign(part, { ...settled, providerExecuted: true, callProviderMetadata: { toolgate: { ...toolgate, interruptId: answer.interruptId } } })
    }
  }
  const { threadId, status, lastRunError } = snapshot
  return { threadId, status, messages, ...(lastRunError ? { lastRunError } : {}) }
}
