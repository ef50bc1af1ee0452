import type { AiSdkPartMetadata, AiSdkToolMetadata } from '../../../protocol/aiSdk.ts'

// What the server writes of the AI SDK's UI message stream (structurally `ai`'s `UIMessageChunk`;
// the tests parse every chunk with `ai`'s own schema).

/** One chunk of the UI message stream (the kinds the server sends). */
export type UIMessageChunk =
  | { readonly type: 'start'; readonly messageId?: string }
  | { readonly type: 'start-step' }
  | { readonly type: 'finish-step' }
  | { readonly type: 'finish' }
  | { readonly type: 'error'; readonly errorText: string }
  | { readonly type: 'text-start'; readonly id: string; readonly providerMetadata?: AiSdkPartMetadata }
  | { readonly type: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'text-end'; readonly id: string }
  | { readonly type: 'reasoning-start'; readonly id: string }
  | { readonly type: 'reasoning-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'reasoning-end'; readonly id: string }
  | { readonly type: 'tool-input-start'; readonly toolCallId: string; readonly toolName: string; readonly providerExecuted?: boolean; readonly providerMetadata?: AiSdkPartMetadata }
  | { readonly type: 'tool-input-delta'; readonly toolCallId: string; readonly inputTextDelta: string }
  | {
      readonly type: 'tool-input-available'
      readonly toolCallId: string
      readonly toolName: string
      readonly input: unknown
      readonly providerExecuted?: boolean
      readonly providerMetadata?: AiSdkPartMetadata
      readonly toolMetadata?: AiSdkToolMetadata
    }
  | { readonly type: 'tool-approval-request'; readonly approvalId: string; readonly toolCallId: string }
  | { readonly type: 'tool-output-available'; readonly toolCallId: string; readonly output: unknown; readonly providerExecuted?: boolean; readonly providerMetadata?: AiSdkPartMetadata }
  | { readonly type: 'tool-output-error'; readonly toolCallId: string; readonly errorText: string; readonly providerExecuted?: boolean; readonly providerMetadata?: AiSdkPartMetadata }
  | { readonly type: 'tool-output-denied'; readonly toolCallId: string }
  | { readonly type: 'file'; readonly url: string; readonly mediaType: string }

/** The part metadata that carries a server call's approval reason. */
export function approvalMetadata(approvalReason: string): AiSdkToolMetadata {
  return { toolgate: { approvalReason } }
}
