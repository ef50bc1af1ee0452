/** @module @toolgate/ai-react */
/** React bindings for `@toolgate/ai/client`: thin hooks over `useSyncExternalStore`, no logic of their own. */
export { useChat, type UseChatResult } from './useChat.ts'
export { useChatClient } from './useChatClient.ts'
export { useChatSelector } from './useChatSelector.ts'
export { useApprovalForm, type FieldInputProps, type UseApprovalFormResult } from './useApprovalForm.ts'
export { useApprovalQueue, type ApprovalWaiter, type UseApprovalQueueResult } from './useApprovalQueue.ts'
export { useReview, type UseReviewOptions, type UseReviewResult } from './useReview.ts'
export { renderToolCall, useUserRequest, type ToolRenderers } from './toolRenderers.ts'
export { ChatError, userRequests } from '@toolgate/ai/client'
export type {
  ApproveOptions,
  ChatClient,
  ChatClientOptions,
  ChatMessage,
  ChatState,
  ChatStatus,
  FormField,
  MessagePart,
  PendingApproval,
  ToolCallPart,
  ToolCallState,
  UserRequest,
  UserRequests,
} from '@toolgate/ai/client'
