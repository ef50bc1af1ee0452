/** @module @toolgate/ai */
export { toolDefinition, type ToolDefinitionConfig } from './tools/toolDefinition.ts'
export { thinkTool, THINK_TOOL_DESCRIPTION, type ThinkTool, type ThinkToolOptions } from './tools/thinkTool.ts'
export { toolSearch, type ToolRanker, type ToolSearch, type ToolSearchOptions } from './tools/toolSearch.ts'
export { lexicalRanker, type LexicalRankerOptions } from './tools/search/lexicalRanker.ts'
export { TOOL_SYNONYMS, type ToolSynonyms } from './tools/search/synonyms.ts'
export { toolResult, type ToolContentPart, type ToolContentResult, type ToolFileSource } from './tools/toolResult.ts'
export type { ToolApp, ToolAppConfig, ToolAppResource } from './tools/app.ts'
export type {
  AnyTool,
  ApprovalContext,
  ApprovalDecision,
  ApprovalPolicy,
  BuiltTool,
  ClientTool,
  InferToolInput,
  InferToolName,
  InferToolOutput,
  InferToolRawInput,
  NeedsApproval,
  Register,
  ContextSchema,
  InferToolContext,
  ToolContextOf,
  RejectMessage,
  RejectedCall,
  ServerTool,
  ToolContext,
  ToolDefinition,
  ToolExecute,
  ToolMetadata,
} from './tools/types.ts'

export { toolJsonSchema, type ToolJsonSchemaOptions } from './tools/toolJsonSchema.ts'
export { validateJsonSchema } from './schema/validateJsonSchema.ts'
export { jsonSchema, type JsonSchemaSchema } from './schema/jsonSchema.ts'
export type { JsonSchemaHook } from './schema/emitJsonSchema.ts'
export type {
  InferSchemaInput,
  InferSchemaOutput,
  JsonSchema,
  JsonSchemaTarget,
  SchemaIo,
  SchemaSource,
  ToolSchema,
} from './schema/types.ts'

export {
  InvalidOptionError,
  SchemaConversionError,
  ToolDefinitionError,
  ToolError,
  ToolDeniedError,
  ToolExecutionError,
  ToolgateError,
  ToolInputError,
  ToolNotFoundError,
  ToolValidationError,
} from './errors.ts'
