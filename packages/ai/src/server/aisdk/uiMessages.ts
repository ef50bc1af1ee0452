// The AI SDK's UI message shapes, as far as the chat endpoint reads and writes them: written out here
// (structurally compatible with `ai`'s `UIMessage` and `UIMessageChunk`, checked by a type test) so
// the server never loads `ai`. Versions 6 and 7 of the SDK share them.

/** What the server remembers in a part: the stored message it comes from, the interrupt it waits on. */
export interface ToolgatePartMetadata {
  readonly toolgate: {
    /** The stored assistant message (a model step) the text or call belongs to. */
    readonly messageId?: string
    /** A browser tool's call: the interrupt its output answers. */
    readonly interruptId?: string
    /** A call's result as stored (set on results the server sent). */
    readonly resultId?: string
  }
}

export interface UITextPart {
  readonly type: 'text'
  readonly text: string
  readonly state?: 'streaming' | 'done'
  readonly providerMetadata?: ToolgatePartMetadata
}

export interface UIReasoningPart {
  readonly type: 'reasoning'
  readonly text: string
  readonly state?: 'streaming' | 'done'
}

export interface UIFilePart {
  readonly type: 'file'
  readonly mediaType: string
  readonly url: string
  readonly filename?: string
}

export interface UIStepStartPart {
  readonly type: 'step-start'
}

/** The approval of a call, as the AI SDK keeps it on the call's part; `id` is the interrupt's. */
export interface UIToolApproval {
  readonly id: string
  readonly approved?: boolean
  readonly reason?: string
}

/** A call of tool `name`: `type` is `tool-<name>`. */
export type UIToolPart = {
  readonly type: `tool-${string}`
  readonly toolCallId: string
  readonly input?: unknown
  readonly providerExecuted?: boolean
  readonly callProviderMetadata?: ToolgatePartMetadata
  readonly resultProviderMetadata?: ToolgatePartMetadata
} & (
  | { readonly state: 'input-streaming' | 'input-available' }
  | { readonly state: 'approval-requested'; readonly approval: UIToolApproval }
  | { readonly state: 'approval-responded'; readonly approval: UIToolApproval & { readonly approved: boolean } }
  | { readonly state: 'output-available'; readonly output: unknown; readonly approval?: UIToolApproval }
  | { readonly state: 'output-error'; readonly errorText: string; readonly approval?: UIToolApproval }
  | { readonly state: 'output-denied'; readonly approval: UIToolApproval & { readonly approved: false } }
)

export type UIPart = UITextPart | UIReasoningPart | UIFilePart | UIStepStartPart | UIToolPart

/** A message as `useChat` holds it; the server hands these out to hydrate `useChat({ messages })`. */
export interface UIMessage {
  readonly id: string
  readonly role: 'user' | 'assistant'
  readonly parts: readonly UIPart[]
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
    }
  | { readonly type: 'tool-approval-request'; readonly approvalId: string; readonly toolCallId: string }
  | { readonly type: 'tool-output-available'; readonly toolCallId: string; readonly output: unknown; readonly providerExecuted?: boolean; readonly providerMetadata?: ToolgatePartMetadata }
  | { readonly type: 'tool-output-error'; readonly toolCallId: string; readonly errorText: string; readonly providerExecuted?: boolean; readonly providerMetadata?: ToolgatePartMetadata }
  | { readonly type: 'tool-output-denied'; readonly toolCallId: string }
  | { readonly type: 'file'; readonly url: string; readonly mediaType: string }
