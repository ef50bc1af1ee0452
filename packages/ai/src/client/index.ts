/** @module @toolgate/ai/client */
/**
 * The framework-agnostic chat client for browsers: `@toolgate/ai/client`. It imports neither the
 * server, providers nor JSON Schema emission; define tools with `toolDefinition` from `@toolgate/ai`.
 */
export { createChatClient, type ChatClient } from './createChatClient.ts'
export type { ApproveOptions, ChatClientOptions } from './options.ts'
export { ChatError, type ChatErrorCode } from './chatError.ts'
export { attachmentUrl } from './http/index.ts'
export {
  ApprovalForm,
  formOfPendingApproval,
  userRequests,
  type ApprovalFormState,
  type FieldKind,
  type FieldPath,
  type FormApproval,
  type FormField,
  type UserRequest,
  type UserRequests,
} from './forms/index.ts'
export { ReviewClient, type ReviewClientOptions, type ReviewState } from './review/index.ts'
export type { NotifyScheduler } from './store/index.ts'
export type { Fetch } from '../util/Fetch.ts'
// What a view renders: UI types, named for the screen. The wire types the server sends (events,
// requests, `Thread*` messages) are `@toolgate/ai/protocol`'s; the client maps one to the other.
export type {
  ChatMessage,
  ChatState,
  ChatStatus,
  DeepPartial,
  MessagePart,
  PendingApproval,
  SubagentPart,
  ToolApproval,
  ToolDecision,
  Person,
  ToolCallPart,
  ToolCallPartFor,
  ToolCallState,
} from './draft/index.ts'
