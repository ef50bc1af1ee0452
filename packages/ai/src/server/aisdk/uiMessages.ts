// The AI SDK's UI message shapes, as far as the chat endpoint reads and writes them: written out here
// (structurally compatible with `ai`'s `UIMessage` and `UIMessageChunk`, checked by a type test) so
// the server never loads `ai`. Versions 6 and 7 of the SDK share them. Messages are mutable, as
// `useChat({ messages })` takes them.

/** What the server remembers in a part: the stored message it comes from, the interrupt it waits on. */
export type ToolgatePartMetadata = {
  toolgate: {
    /** The stored assistant message (a model step) the text or call belongs to. */
    messageId?: string
    /** A browser tool's call: the interrupt its output answers. */
    interruptId?: string
    /** A call's result as stored (set on results the server sent). */
    resultId?: string
  }
}

export interface UITextPart {
  type: 'text'
  text: string
  state?: 'streaming' | 'done'
  providerMetadata?: ToolgatePartMetadata
}

export interface UIReasoningPart {
  type: 'reasoning'
  text: string
  state?: 'streaming' | 'done'
}

export interface UIFilePart {
  type: 'file'
  mediaType: string
  url: string
  filename?: string
}

export interface UIStepStartPart {
  type: 'step-start'
}

/** A server call waiting for approval: why, as the tool's `needsApproval` policy said (`part.toolMetadata`). */
export type ToolgateToolMetadata = {
  toolgate: { approvalReason: string }
}

export function approvalMetadata(approvalReason: string): ToolgateToolMetadata {
  return { toolgate: { approvalReason } }
}

/**
 * A call of tool `name` (`type` is `tool-<name>`), in the states the server hands out: waiting
 * (`input-available`: a browser tool to run, or a server call under way), waiting for a person
 * (`approval-requested`, whose `approval.id` is the interrupt's), or settled.
 */
export type UIToolPart = {
  type: `tool-${string}`
  toolCallId: string
  input: unknown
  providerExecuted?: boolean
  callProviderMetadata?: ToolgatePartMetadata
  toolMetadata?: ToolgateToolMetadata
} & (
  | { state: 'input-available' }
  | { state: 'approval-requested'; approval: { id: string } }
  | { state: 'output-available'; output: unknown; resultProviderMetadata?: ToolgatePartMetadata }
  | { state: 'output-error'; errorText: string; resultProviderMetadata?: ToolgatePartMetadata }
  | { state: 'output-denied'; approval: { id: string; approved: false; reason?: string } }
)

export type UIPart = UITextPart | UIReasoningPart | UIFilePart | UIStepStartPart | UIToolPart

/** A message as `useChat` holds it; the server hands these out to hydrate `useChat({ messages })`. */
export interface UIMessage {
  id: string
  role: 'user' | 'assistant'
  parts: UIPart[]
}

/** One chunk of the UI message stream (the kinds the server sends). */
export type UIMessageChunk =
  | { readonly type: 'start'; readonly messageId?: string }
  | { readonly type: 'start-step' }
  | { readonly type: 'finish-step' }
  | { readonly type: 'finish' }
  | { readonly type: 'error'; readonly errorText: string }
  | { readonly type: 'text-start'; readonly id: string; readonly providerMetadata?: ToolgatePartMetadata }
  | { readonly type: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'text-end'; readonly id: string }
  | { readonly type: 'reasoning-start'; readonly id: string }
  | { readonly type: 'reasoning-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'reasoning-end'; readonly id: string }
  | { readonly type: 'tool-input-start'; readonly toolCallId: string; readonly toolName: string; readonly providerExecuted?: boolean; readonly providerMetadata?: ToolgatePartMetadata }
  | { readonly type: 'tool-input-delta'; readonly toolCallId: string; readonly inputTextDelta: string }
  | {
      readonly type: 'tool-input-available'
      readonly toolCallId: string
      readonly toolName: string
      readonly input: unknown
      readonly providerExecuted?: boolean
      readonly providerMetadata?: ToolgatePartMetadata
      readonly toolMetadata?: ToolgateToolMetadata
    }
  | { readonly type: 'tool-approval-request'; readonly approvalId: string; readonly toolCallId: string }
  | { readonly type: 'tool-output-available'; readonly toolCallId: string; readonly output: unknown; readonly providerExecuted?: boolean; readonly providerMetadata?: ToolgatePartMetadata }
  | { readonly type: 'tool-output-error'; readonly toolCallId: string; readonly errorText: string; readonly providerExecuted?: boolean; readonly providerMetadata?: ToolgatePartMetadata }
  | { readonly type: 'tool-output-denied'; readonly toolCallId: string }
  | { readonly type: 'file'; readonly url: string; readonly mediaType: string }
