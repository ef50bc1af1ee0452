/** `@toolgate/ai/server`: the chat runtime. */
export { createChatHandler, type ChatHandler } from './createChatHandler.ts'
export { toNodeHandler, type NodeHandler } from './toNodeHandler.ts'
export type { Authorize, ChatHandlerOptions, OnRunError, ThreadAction } from './config.ts'
export type { ChatLimits } from './limits.ts'
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
export { memoryStore, type MemoryStoreOptions } from './memoryStore.ts'
export type { ActiveRun, PendingBatch, PendingInterrupt, StoredAnswer, Thread, ThreadStore, VersionedThread } from './threadStore.ts'
export { HttpError } from './errors.ts'
export type * from '../protocol/index.ts'
