/** @module @toolgate/ai/client */
/**
 * The framework-agnostic chat client for browsers: `@toolgate/ai/client`. It imports neither the
 * server, providers nor JSON Schema emission; define tools with `toolDefinition` from `@toolgate/ai`.
 */
export { ChatClient, createChatClient, type ApproveOptions, type ChatClientOptions } from './ChatClient.ts'
export { ChatError, type ChatErrorCode } from './chatError.ts'
export { attachmentUrl } from './attachmentUrl.ts'
export {
  ApprovalForm,
  fieldProblem,
  formFields,
  pathName,
  valueAt,
  type ApprovalFormState,
  type FieldKind,
  type FieldPath,
  type FormApproval,
  type FormField,
} from './approvalForm.ts'
export { userRequests, type UserRequest, type UserRequests } from './userRequest.ts'
export type { ThreadAttachment } from '../protocol/messages.ts'
export type { NotifyScheduler } from './scheduleNotify.ts'
export type { Fetch } from '../util/Fetch.ts'
export type {
  AssistantMessage,
  ChatMessage,
  ChatState,
  ChatStatus,
  DeepPartial,
  MessagePart,
  PendingApproval,
  TextPart,
  ToolApproval,
  ToolCallPart,
  ToolCallPartFor,
  ToolCallPartOf,
  ToolCallState,
  UserMessage,
} from './parts.ts'
