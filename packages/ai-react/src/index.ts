/** @module @toolgate/ai-react */
/** React bindings for `@toolgate/ai/client`: thin hooks over `useSyncExternalStore`, no logic of their own. */
export { useChat, type UseChatResult } from './useChat.ts'
export { useChatClient } from './useChatClient.ts'
export { useChatSelector } from './useChatSelector.ts'
export { useApprovalForm, type FieldInputProps, type UseApprovalFormResult } from './useApprovalForm.ts'
export { useApprovalQueue, type ApprovalWaiter, type UseApprovalQueueResult } from './useApprovalQueue.ts'
export { useReview, type UseReviewOptions, type UseReviewResult } from './useReview.ts'
export { renderToolCall, useUserRequest, type ToolRenderers } from './toolRenderers.ts'
// The client's types and `userRequests` are `@toolgate/ai/client`'s, their one home (this package's peer).
