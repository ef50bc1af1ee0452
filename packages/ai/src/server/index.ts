/** @module @toolgate/ai/server */
/** `@toolgate/ai/server`: the chat runtime. Wire types live in `@toolgate/ai/protocol`. */
export { createChatHandler, type ChatHandler, type ChatRecords } from './createChatHandler.ts'
export type { DecideInput, DecideResult } from './claim/decide.ts'
export { toNodeHandler, type NodeHandler } from './http/toNodeHandler.ts'
export type { ApprovalRequest, DecisionRecordOptions, Escalation, ExpiredApproval, LinkReviewer, ReviewLink, ReviewLinkOptions, Authorize, ChatHandlerOptions, ChatLimits, ErrorScope, FailedCall, OnError, ThreadAction, ToolsContext } from './options.ts'
export type { ChatModel, FinishReason, ModelChunk, ModelRequest, ModelTool, ModelUsage } from '../model/chatModel.ts'
export { memoryStore, type MemoryStoreOptions } from './stores/memory.ts'
// The storage contract, for writing a store of your own.
export type { ActiveRun, OpenStep, StoredAnswer, StoredInterrupt, ThreadCommit, ThreadHead, ThreadStore } from './thread/threadStore.ts'
export { HttpError } from './errors.ts'
export { verifyDecisionRecords, type VerifyDecisionRecordsOptions } from './decisions/verifyDecisionRecords.ts'
export type { AttachmentStore, StoredAttachment } from './run/attachments.ts'
export { StoreError, type StoreErrorListener } from './stores/storeError.ts'
// The retry primitive the runtime uses, for an app's own start: connecting a store that may not be up yet.
export { backoff, retry, type RetryPolicy } from '../util/retry.ts'
export { memoryAttachmentStore, type MemoryAttachmentStoreOptions } from './stores/memoryAttachments.ts'
export {
  MiddlewareError,
  refuseToolCall,
  type ChatMiddleware,
  type MiddlewareContext,
  type ModelCall,
  type ToolInputCall,
  type ToolOutputResult,
  type ToolRefusal,
} from './run/middleware.ts'

// Deprecated re-exports, kept for one release (packages/ai/CHANGELOG.md lists them).

/** @deprecated Renamed `StoredInterrupt`. */
export type { PendingInterrupt } from './thread/threadStore.ts'
/** @deprecated Import from `@toolgate/ai/server/testing`. */
export {
  scriptedModel,
  type ScriptedCall,
  type ScriptedFollowUp,
  type ScriptedModelOptions,
  type ScriptedResult,
  type ScriptedResults,
  type ScriptedStep,
  type ScriptRule,
} from './testing/scriptedModel.ts'
/** @deprecated Import from `@toolgate/ai/providers`: tools outside a chat are not part of the chat runtime. */
export { toolSet, type ToolCallOptions, type ToolSet, type ToolSetApprovalRequest, type ToolSetApprove, type ToolSetOptions } from '../tools/toolSet.ts'
/** @deprecated Import wire types from `@toolgate/ai/protocol`. */
export type {
  ChatEvent,
  ErrorBody,
  ResumeAccepted,
  ResumeAnswer,
  RunFinishedEvent,
  ThreadAttachment,
  ThreadMessage,
  RecordedAnswer,
  ThreadSnapshot,
  ToolCallArgsEvent,
  ToolCallResultEvent,
  ToolResultMetadata,
  ToolCallStartEvent,
  ToolInterrupt,
  AgUiInterrupt,
  AgUiRunOutcome,
} from '../protocol/index.ts'
