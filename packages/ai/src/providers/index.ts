/** @module @toolgate/ai/providers */
export { toProviderTool, toProviderTools } from './toProviderTool.ts'
export { toProviderSchema } from './toProviderSchema.ts'
export { fromProviderArgs } from './fromProviderArgs.ts'
export { fromProviderName, providerToolName } from './providerName.ts'
export { ProviderSchemaError, type ProviderSchemaErrorCode } from './ProviderSchemaError.ts'
export { isProviderTarget, PROVIDER_TARGETS } from './targets.ts'
export { openAIChatModel, type OpenAIChatModelOptions } from './adapters/openAIChatModel.ts'
export { anthropicModel, type AnthropicModelOptions } from './adapters/anthropicModel.ts'
export type { CallOptions } from './adapters/http.ts'
export { geminiModel, type GeminiModelOptions } from './adapters/geminiModel.ts'
export { openAIResponsesModel, type OpenAIResponsesModelOptions } from './adapters/openAIResponsesModel.ts'
export { ModelProviderError, type ModelProviderErrorCode } from '../model/ModelProviderError.ts'
export type {
  ProviderOptions,
  ProviderTarget,
} from './targets.ts'
export type { ProviderWarning, ProviderWarningCode } from './warnings.ts'
export type {
  ProviderCall,
  ProviderSchemaResult,
  ProviderToolMap,
  ProviderToolResult,
} from './types.ts'
// Tools by name outside a chat (an agent loop, a job queue), with their provider envelopes.
export { toolSet, type ToolCallOptions, type ToolSet, type ToolSetApprovalRequest, type ToolSetOptions } from '../tools/toolSet.ts'
