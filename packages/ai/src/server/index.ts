/** @module @toolgate/ai/server */
/** `@toolgate/ai/server`: the chat runtime. Wire types live in `@toolgate/ai/protocol`. */
export { createChatHandler, type ChatHandler, type ChatRecords } from './createChatHandler.ts'
export type { DecideInput, DecideResult } from './decide.ts'
export { toNodeHandler } from './edge/node/toNodeHandler.ts'
export type { ApprovalRequest, DecisionRecordOptions, LinkReviewer, ReviewLink, ReviewLinkOptions, Authorize, ChatHandlerOptions, ChatLimits, ErrorScope, ThreadAction, ToolsContext } from './options.ts'
export type { ChatModel, FinishReason, ModelChunk, ModelRequest, ModelTool, ModelUsage } from '../model/chatModel.ts'
export { memoryStore, type MemoryStoreOptions } from './stores/memory.ts'
// The storage contract, for writing a store of your own.
export type { ActiveRun, OpenStep, StoredAnswer, StoredInterrupt, ThreadCommit, ThreadHead, ThreadStore } from './thread/threadStore.ts'
export { HttpError } from './errors.ts'
export { agentTool, type AgentToolOptions } from './agents/agentTool.ts'
export { verifyDecisionRecords, type VerifyDecisionRecordsOptions } from './decisions/verifyDecisionRecords.ts'
export type { AttachmentStore, StoredAttachment } from './thread/attachmentStore.ts'
export { StoreError, type StoreErrorListener } from './stores/storeError.ts'
// The runtime's backoff schedule, for a store client's reconnect strategy (docs/deployment.md teaches it).
export { backoff } from '../util/retry.ts'
export { memoryAttachmentStore, type MemoryAttachmentStoreOptions } from './stores/memoryAttachments.ts'
export {
  MiddlewareError,
  refuseToolCall,
  type ChatMiddleware,
  type MiddlewareContext,
  type ToolRefusal,
} from './run/middleware.ts'

