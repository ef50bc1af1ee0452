/** React bindings for `@toolgate/ai/client`: thin hooks over `useSyncExternalStore`, no logic of their own. */
export { useChat, type UseChatResult } from './useChat.ts'
export { useChatClient } from './useChatClient.ts'
export { useChatSelector } from './useChatSelector.ts'
export { ChatError } from '@toolgate/ai/client'
export type {
  ApproveOptions,
  ChatClient,
  ChatClientOptions,
  ChatMessage,
  ChatState,
  ChatStatus,
  MessagePart,
  PendingApproval,
  ToolCallPart,
  ToolCallState,
} from '@toolgate/ai/client'
