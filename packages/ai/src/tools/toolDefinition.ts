import { ToolDefinitionError } from '../errors.ts'
import type { JsonSchemaHook } from '../schema/emitJsonSchema.ts'
import { createToolEmitter } from '../schema/toolEmitter.ts'
import { toToolSchema } from '../schema/toolSchema.ts'
import type { InferSchemaOutput, SchemaSource } from '../schema/types.ts'
import { buildTool } from './buildTool.ts'
import { sealTool } from './internals.ts'
import { checkToolName } from './toolName.ts'
import type { ApprovalPolicy, NeedsApproval, ToolDefinition, ToolExecute, ToolMetadata } from './types.ts'

export interface ToolDefinitionConfig<
  TName extends string,
  TInputSchema extends SchemaSource | undefined,
  TOutputSchema extends SchemaSource | undefined,
  TApproval extends NeedsApproval,
  TMetadata extends ToolMetadata,
> {
  /** What the model calls the tool by. Portable names match `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`. */
  readonly name: TName
  /** What the tool does, for the model: it decides when to call the tool from this. */
  readonly description: string
  /** A human label for UIs. */
  readonly title?: string
  /** Any Standard Schema (Valibot, Zod, ArkType, ...) or a plain JSON Schema object. */
  readonly inputSchema?: TInputSchema
  readonly outputSchema?: TOutputSchema
  /** `true`, `false`, or a policy on the validated input: `(input, ctx) => boolean | { reason }`. */
  readonly needsApproval?: TApproval
  /** Free data carried to clients and exports. */
  readonly metadata?: TMetadata
  /**
   * Safe to run again with the same `toolCallId` (it uses it as an idempotency key). After a crash
   * cut a call off, the server runs it again; other tools' calls are reported as interrupted.
   */
  readonly idempotent?: boolean
  /** Overrides how JSON Schema is emitted for this tool; return `undefined` to use the default. */
  readonly toJsonSchema?: JsonSchemaHook
}

/**
 * Defines a tool once. Bind it to a side with `.server(execute)` or `.client(execute)`; pass the
 * bare definition to the server to declare a tool that the browser executes.
 */
// Two overloads, because a policy's parameters are typed from the input schema, which a single
// generic cannot both infer from and contextually type.
export function toolDefinition<
  const TName extends string,
  TInputSchema extends SchemaSource | undefined = undefined,
  TOutputSchema extends SchemaSource | undefined = undefined,
  const TMetadata extends ToolMetadata = {},
>(
  config: ToolDefinitionConfig<TName, TInputSchema, TOutputSchema, ApprovalPolicy<InferSchemaOutput<TInputSchema>>, TMetadata> & {
    readonly needsApproval: ApprovalPolicy<InferSchemaOutput<TInputSchema>>
  },
): ToolDefinition<TName, TInputSchema, TOutputSchema, ApprovalPolicy<InferSchemaOutput<TInputSchema>>, TMetadata>
export function toolDefinition<
  const TName extends string,
  TInputSchema extends SchemaSource | undefined = undefined,
  TOutputSchema extends SchemaSource | undefined = undefined,
  const TApproval extends boolean = false,
  const TMetadata extends ToolMetadata = {},
>(
  config: ToolDefinitionConfig<TName, TInputSchema, TOutputSchema, TApproval, TMetadata>,
): ToolDefinition<TName, TInputSchema, TOutputSchema, TApproval, TMetadata>
export function toolDefinition(
  config: ToolDefinitionConfig<string, SchemaSource | undefined, SchemaSource | undefined, NeedsApproval, ToolMetadata>,
): ToolDefinition {
  if (typeof config !== 'object' || config === null) throw new ToolDefinitionError('toolDefinition() needs a config object')
  const { name, description, title, inputSchema, outputSchema, needsApproval = false, metadata = {}, toJsonSchema, idempotent = false } = config
  checkToolName(name)
  if (typeof description !== 'string' || description.trim() === '') {
    throw new ToolDefinitionError(`Tool "${name}" needs a non-empty \`description\`: the model chooses tools by it`)
  }
  if (typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function') {
    throw new ToolDefinitionError(`\`needsApproval\` of tool "${name}" must be a boolean or a function`)
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new ToolDefinitionError(`\`metadata\` of tool "${name}" must be an object`)
  }
  if (typeof idempotent !== 'boolean') throw new ToolDefinitionError(`\`idempotent\` of tool "${name}" must be a boolean`)
  if (toJsonSchema !== undefined && typeof toJsonSchema !== 'function') {
    throw new ToolDefinitionError(`\`toJsonSchema\` of tool "${name}" must be a function`)
  }

  const emit = createToolEmitter(name, toJsonSchema, { input: inputSchema, output: outputSchema })
  const definition = {
    kind: 'definition' as const,
    name,
    title,
    description,
    inputSchema: inputSchema === undefined ? undefined : toToolSchema(inputSchema, name, 'input', (mode, target) => emit('input', mode, target)),
    outputSchema: outputSchema === undefined ? undefined : toToolSchema(outputSchema, name, 'output', (mode, target) => emit('output', mode, target)),
    needsApproval,
    metadata,
    idempotent,
    toJsonSchema,
    server: (execute: ToolExecute<unknown, unknown>) => buildTool('server', definition, execute),
    client: (execute: ToolExecute<unknown, unknown>) => buildTool('client', definition, execute),
  }
  return sealTool(definition, { emit }) as never
}
