import { ToolDefinitionError } from '../errors.ts'
import type { JsonSchemaHook } from '../schema/emitJsonSchema.ts'
import { createToolEmitter } from '../schema/toolEmitter.ts'
import { toToolSchema } from '../schema/toolSchema.ts'
import type { InferSchemaInput, InferSchemaOutput, SchemaSource } from '../schema/types.ts'
import type { ToolApp, ToolAppConfig } from './app.ts'
import { buildTool } from './buildTool.ts'
import { sealTool } from './internals.ts'
import { checkToolName } from './toolName.ts'
import type { ApprovalPolicy, ContextSchema, NeedsApproval, RejectMessage, ToolContextOf, ToolDefinition, ToolExecute, ToolMetadata } from './types.ts'

export interface ToolDefinitionConfig<
  TName extends string,
  TInputSchema extends SchemaSource | undefined,
  TOutputSchema extends SchemaSource | undefined,
  TApproval extends NeedsApproval,
  TMetadata extends ToolMetadata,
  TContextSchema extends ContextSchema | undefined = undefined,
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
  /**
   * What the model reads when a human denies a call: a text, or a function of the call. The human's
   * reason, when given, is added after it. Default: "denied by the user: <reason>".
   */
  readonly rejectMessage?: RejectMessage<[TInputSchema] extends [undefined] ? unknown : InferSchemaInput<TInputSchema>>
  /**
   * The app's values the tool needs (a tenant's API key, the user id, the locale), as any Standard
   * Schema. `ctx.context` is typed by it; every turn checks the handler's `context` against it
   * before the model is called, and `createChatHandler` type-checks its `context` option.
   */
  readonly contextSchema?: TContextSchema
  /** Free data carried to clients and exports. */
  readonly metadata?: TMetadata
  /**
   * Safe to run again with the same `toolCallId` (it uses it as an idempotency key). After a crash
   * cut a call off, the server runs it again; other tools' calls are reported as interrupted.
   */
  readonly idempotent?: boolean
  /**
   * Has no side effects (it only reads): a server tool's call may start before the write that marks
   * it running is stored, and after a crash cut a call off the server runs it again under the same
   * `toolCallId`. A crash can make it run twice, never not at all. Server tools only: `.client()`
   * refuses it. `idempotent` does not allow this: a call whose mark was never stored is unknown to
   * recovery, and the model, asked again, calls under a new id (a new idempotency key).
   */
  readonly readOnly?: boolean
  /** Overrides how JSON Schema is emitted for this tool; return `undefined` to use the default. */
  readonly toJsonSchema?: JsonSchemaHook
  /**
   * An MCP App: the HTML view the tool's calls render in, in Toolgate's chat and in MCP hosts. A
   * `ToolApp` (with `read()`) is taken as it is: an imported tool's reads its server's resource.
   * Checked by the server when it registers the tool.
   */
  readonly app?: ToolAppConfig | ToolApp
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
  TContextSchema extends ContextSchema | undefined = undefined,
>(
  config: ToolDefinitionConfig<
    TName,
    TInputSchema,
    TOutputSchema,
    ApprovalPolicy<InferSchemaOutput<TInputSchema>, ToolContextOf<TContextSchema>>,
    TMetadata,
    TContextSchema
  > & {
    readonly needsApproval: ApprovalPolicy<InferSchemaOutput<TInputSchema>, ToolContextOf<TContextSchema>>
  },
): ToolDefinition<TName, TInputSchema, TOutputSchema, ApprovalPolicy<InferSchemaOutput<TInputSchema>, ToolContextOf<TContextSchema>>, TMetadata, TContextSchema>
export function toolDefinition<
  const TName extends string,
  TInputSchema extends SchemaSource | undefined = undefined,
  TOutputSchema extends SchemaSource | undefined = undefined,
  const TApproval extends boolean = false,
  const TMetadata extends ToolMetadata = {},
  TContextSchema extends ContextSchema | undefined = undefined,
>(
  config: ToolDefinitionConfig<TName, TInputSchema, TOutputSchema, TApproval, TMetadata, TContextSchema>,
): ToolDefinition<TName, TInputSchema, TOutputSchema, TApproval, TMetadata, TContextSchema>
export function toolDefinition(
  config: ToolDefinitionConfig<string, SchemaSource | undefined, SchemaSource | undefined, NeedsApproval, ToolMetadata, ContextSchema | undefined>,
): ToolDefinition {
  if (typeof config !== 'object' || config === null) throw new ToolDefinitionError('toolDefinition() needs a config object')
  const { name, description, title, inputSchema, outputSchema, needsApproval = false, rejectMessage, contextSchema, metadata = {}, toJsonSchema, idempotent = false, readOnly = false, app } = config
  checkToolName(name)
  if (typeof description !== 'string' || description.trim() === '') {
    throw new ToolDefinitionError(`Tool "${name}" needs a non-empty \`description\`: the model chooses tools by it`)
  }
  if (typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function') {
    throw new ToolDefinitionError(`\`needsApproval\` of tool "${name}" must be a boolean or a function`)
  }
  if (rejectMessage !== undefined && typeof rejectMessage !== 'string' && typeof rejectMessage !== 'function') {
    throw new ToolDefinitionError(`\`rejectMessage\` of tool "${name}" must be a string or a function`)
  }
  if (contextSchema !== undefined && !isStandardSchema(contextSchema)) {
    throw new ToolDefinitionError(`\`contextSchema\` of tool "${name}" must be a Standard Schema (Valibot, Zod, ArkType, ...)`)
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new ToolDefinitionError(`\`metadata\` of tool "${name}" must be an object`)
  }
  if (typeof idempotent !== 'boolean') throw new ToolDefinitionError(`\`idempotent\` of tool "${name}" must be a boolean`)
  if (typeof readOnly !== 'boolean') throw new ToolDefinitionError(`\`readOnly\` of tool "${name}" must be a boolean`)
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
    ...(rejectMessage === undefined ? {} : { rejectMessage }),
    ...(contextSchema === undefined ? {} : { contextSchema }),
    metadata,
    idempotent,
    readOnly,
    app,
    toJsonSchema,
    server: (execute: ToolExecute<unknown, unknown>) => buildTool('server', definition, execute),
    client: (execute: ToolExecute<unknown, unknown>) => buildTool('client', definition, execute),
  }
  return sealTool(definition, { emit }) as never
}

function isStandardSchema(value: unknown): value is ContextSchema {
  const standard = (value as { readonly '~standard'?: { readonly validate?: unknown } } | null)?.['~standard']
  return typeof standard === 'object' && standard !== null && typeof standard.validate === 'function'
}
