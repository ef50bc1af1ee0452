import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'
import { ToolDefinitionError } from '../errors.ts'
import type { TypeMode } from './emitJsonSchema.ts'
import { schemaKind } from './schemaKind.ts'
// Browser builds resolve this to a stub that points to jsonSchema() (see package.json `imports`).
import { plainJsonSchemaProblem, validatePlainJsonSchema } from '#validate-plain-json-schema'
import type { JsonSchema, JsonSchemaTarget, SchemaIo, SchemaSource, ToolSchema } from './types.ts'

/** Emits (and caches) JSON Schema for one side of one tool. */
export type SideEmitter = (typeMode: TypeMode, target: JsonSchemaTarget) => JsonSchema | undefined

const TARGETS: ReadonlySet<string> = new Set<JsonSchemaTarget>(['draft-2020-12', 'draft-07', 'openapi-3.0'])

/**
 * Normalises whatever the user wrote (Valibot, Zod, ArkType, plain JSON Schema, ...) into one
 * Standard Schema that also speaks Standard JSON Schema, so every consumer needs one code path.
 */
export function toToolSchema<TInput, TOutput>(
  source: SchemaSource,
  toolName: string,
  io: SchemaIo,
  emit: SideEmitter,
): ToolSchema<TInput, TOutput> {
  const kind = schemaKind(source)
  if (kind === 'unknown') {
    throw new ToolDefinitionError(
      `The ${io}Schema of tool "${toolName}" is neither a Standard Schema (Valibot, Zod, ArkType, ...) nor a JSON Schema object`,
    )
  }
  if (kind === 'json-schema') {
    const schema = source as JsonSchema
    const problem = plainJsonSchemaProblem(schema)
    if (problem) {
      throw new ToolDefinitionError(`The ${io}Schema of tool "${toolName}" is not a valid JSON Schema at ${problem.path || '(root)'}: ${problem.message}`)
    }
  }
  const validate: StandardSchemaV1.Props<TInput, TOutput>['validate'] =
    kind === 'json-schema'
      ? (value) => {
          const issues = validatePlainJsonSchema(source as JsonSchema, value)
          return issues.length > 0 ? { issues } : { value: value as TOutput }
        }
      : (value) => (source as StandardSchemaV1<TInput, TOutput>)['~standard'].validate(value)

  const convert = (typeMode: TypeMode) => (options: StandardJSONSchemaV1.Options) => {
    if (!TARGETS.has(options.target)) {
      throw new ToolDefinitionError(`Unsupported JSON Schema target "${options.target}" for tool "${toolName}"`)
    }
    // The side always has a schema here, so the emitter always returns one.
    return emit(typeMode, options.target as JsonSchemaTarget) as JsonSchema
  }

  return {
    source,
    '~standard': {
      version: 1,
      vendor: 'toolgate',
      validate,
      jsonSchema: { input: convert('input'), output: convert('output') },
    },
  }
}
