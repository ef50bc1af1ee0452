/** @module @toolgate/ai/server */
/** `@toolgate/ai/server`: the chat runtime. */
export { createChatHandler, type ChatHandler } from './createChatHandler.ts'
export { toNodeHandler, type NodeHandler } from './toNodeHandler.ts'
export type { Authorize, ChatHandlerOptions, ChatLimits, ErrorScope, FailedCall, OnError, ThreadAction, ToolsContext } from './config.ts'
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
} from './scriptedModel.ts'
export { memoryStore, type MemoryStoreOptions } from './stores/memory.ts'
// The storage contract, for writing a store of your own.
export type { ActiveRun, OpenStep, PendingInterrupt, StoredAnswer, ThreadCommit, ThreadHead, ThreadStore } from './threadStore.ts'
export { HttpError } from './errors.ts'
// The AI SDK's `useChat` at the same endpoint: what `GET ?threadId=&format=ai-sdk` returns.
export type { UIThread } from './aisdk/uiThread.ts'
export type { UIMessage as AiSdkUIMessage } from './aisdk/uiMessages.ts'
export { memoryAttachmentStore, type AttachmentStore, type MemoryAttachmentStoreOptions, type StoredAttachment } from './attachments.ts'
export {
  MiddlewareError,
  refuseToolCall,
  type ChatMiddleware,
  type MiddlewareContext,
  type ModelCall,
  type ToolInputCall,
  type ToolOutputResult,
  type ToolRefusal,
} from './middleware.ts'
export { toolSet, type ToolCallOptions, type ToolSet, type ToolSetApprovalRequest, type ToolSetApprove, type ToolSetOptions } from './toolSet.ts'
export type * from '../protocol/index.ts'
