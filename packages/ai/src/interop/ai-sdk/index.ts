/** @module @toolgate/ai/interop/ai-sdk */
/** `@toolgate/ai/interop/ai-sdk`: tools for the Vercel AI SDK. Needs `ai`. */
export { toAISdkTool, toAISdkTools, type AISdkToolOf, type AISdkToolsOf } from './tools.ts'
export { fromAISdkModel, type FromAISdkModelOptions } from './model.ts'
