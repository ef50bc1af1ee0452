/** @module @toolgate/ai/server */
/** `@toolgate/ai/server`: the chat runtime. */
export { createChatHandler, type ChatHandler } from './createChatHandler.ts'
export { toNodeHandler, type NodeHandler } from './http/toNodeHandler.ts'
export type { Authorize, ChatHandlerOptions, ChatLimits, ErrorScope, FailedCall, OnError, ThreadAction, ToolsContext } from './options.ts'
export type { ChatModel, FinishReason, ModelChunk, ModelRequest, ModelTool, ModelUsage } from '../model/chatModel.ts'
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
export { memoryStore, type MemoryStoreOptions } from './stores/memory.ts'
// The storage contract, for writing a store of your own.
export type { ActiveRun, OpenStep, PendingInterrupt, StoredAnswer, ThreadCommit, ThreadHead, ThreadStore } from './thread/threadStore.ts'
export { HttpError } from './errors.ts'
export type { AttachmentStore, StoredAttachment } from './run/attachments.ts'
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
export { toolSet, type ToolCallOptions, type ToolSet, type ToolSetApprovalRequest, type ToolSetApprove, type ToolSetOptions } from '../tools/toolSet.ts'
export type * from '../protocol/index.ts'
