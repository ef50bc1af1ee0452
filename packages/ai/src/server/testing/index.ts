/** @module @toolgate/ai/server/testing */
/** `@toolgate/ai/server/testing`: what a test of a chat app or of a store of your own needs. */
export { attachmentStoreConformance, threadStoreConformance, type ConformanceRunner, type StoreFactory, type StoreFactoryOptions } from './conformance.ts'
export {
  scriptedModel,
  type ScriptedModelOptions,
  type ScriptedResult,
  type ScriptRule,
} from './scriptedModel.ts'
