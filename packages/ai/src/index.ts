export { toolDefinition, type ToolDefinitionConfig } from './tools/toolDefinition.ts'
export { evaluateApproval, type ApprovalRequirement } from './tools/approval.ts'
export { validateToolInput, validateToolOutput } from './tools/validateToolValue.ts'
export type {
  AnyTool,
  ApprovalContext,
  ApprovalDecision,
  ApprovalPolicy,
  BuiltTool,
  ClientTool,
  DefaultFormattedOutput,
  InferToolInput,
  InferToolName,
  InferToolOutput,
  InferToolRawInput,
  NeedsApproval,
  Register,
  RegisteredContext,
  ServerTool,
  ToolContext,
  ToolDefinition,
  ToolExecute,
  ToolKind,
  ToolMetadata,
  ToolShape,
} from './tools/types.ts'

export { toolJsonSchema, type ToolJsonSchemaOptions } from './tools/toolJsonSchema.ts'
export { validateJsonSchema } from './schema/validateJsonSchema.ts'
export { jsonSchema, type JsonSchemaSchema } from './schema/jsonSchema.ts'
export { formatIssuePath, formatIssues } from './schema/formatIssues.ts'
export type { JsonSchemaHook, JsonSchemaHookOptions } from './schema/emitJsonSchema.ts'
export type {
  InferSchemaInput,
  InferSchemaOutput,
  JsonSchema,
  JsonSchemaTarget,
  SchemaIo,
  SchemaSource,
  ToolSchema,
} from './schema/types.ts'

export { InvalidOptionError, SchemaConversionError, ToolDefinitionError, ToolError, ToolgateError, ToolValidationError } from './errors.ts'
