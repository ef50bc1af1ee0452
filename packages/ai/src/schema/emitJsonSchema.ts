import { valibotJsonSchema } from './valibotJsonSchema.ts'
import type { StandardJSONSchemaV1 } from '@standard-schema/spec'
import { SchemaConversionError } from '../errors.ts'
import { deepFreeze } from '../util/deepFreeze.ts'
import { warnIfNotPortable } from '../tools/toolName.ts'
import { schemaKind } from './schemaKind.ts'
import type { JsonSchema, JsonSchemaTarget, SchemaIo, SchemaSource } from './types.ts'

/** Options a tool's `toJsonSchema` hook receives. */
export interface JsonSchemaHookOptions {
  /** Which of the tool's schemas is being emitted. */
  readonly io: SchemaIo
  readonly target: JsonSchemaTarget
}

/**
 * A per-tool override of JSON Schema emission. Return `undefined` to fall back to the default
 * emission (for example, to override only one target).
 */
export type JsonSchemaHook = (schema: SchemaSource | undefined, options: JsonSchemaHookOptions) => object | undefined

/** Whether the schema's pre-validation (`input`) or post-validation (`output`) type is described. */
export type TypeMode = 'input' | 'output'

export interface EmitContext {
  readonly toolName: string
  readonly io: SchemaIo
  readonly hook: JsonSchemaHook | undefined
}

/** What a tool with no input schema takes: an object with nothing in it. */
const EMPTY_INPUT: JsonSchema = deepFreeze({ type: 'object', properties: {} })

/**
 * Emits JSON Schema for one side of a tool, in this order: the tool's own hook; the schema's
 * Standard JSON Schema converter; Valibot's official converter; plain JSON Schema as given.
 * The result is frozen: it is cached and shared.
 */
export function emitJsonSchema(
  source: SchemaSource | undefined,
  typeMode: TypeMode,
  target: JsonSchemaTarget,
  context: EmitContext,
): JsonSchema | undefined {
  const { toolName, io, hook } = context
  warnIfNotPortable(toolName)
  const fromHook = hook?.(source, { io, target })
  if (fromHook !== undefined) return assertJsonSchema(fromHook, context, 'its toJsonSchema hook returned a non-object')
  if (source === undefined) return io === 'input' ? EMPTY_INPUT : undefined

  switch (schemaKind(source)) {
    case 'standard-json-schema': {
      const converter = (source as StandardJSONSchemaV1)['~standard'].jsonSchema
      return attempt(context, () => converter[typeMode]({ target }))
    }
    case 'valibot':
      return attempt(context, () => valibotJsonSchema(source, target, typeMode))
    case 'json-schema':
      return deepFreeze(structuredClone(source as JsonSchema))
    case 'standard-schema':
      throw conversionError(context, 'its schema library has no JSON Schema support (no ~standard.jsonSchema)')
    default:
      throw conversionError(context, 'the schema is neither a Standard Schema nor a JSON Schema object')
  }
}

function attempt(context: EmitContext, convert: () => unknown): JsonSchema {
  let result: unknown
  try {
    result = convert()
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause)
    throw conversionError(context, reason, { cause })
  }
  return assertJsonSchema(result, context, 'the converter returned a non-object')
}

function assertJsonSchema(value: unknown, context: EmitContext, reason: string): JsonSchema {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw conversionError(context, reason)
  }
  return deepFreeze(value as JsonSchema)
}

/**
 * A schema this emitter could not turn into JSON Schema, with the fix: the tool's own hook (unless
 * the hook is what failed). The hint is made here, not in the error, so browser bundles, which emit
 * nothing but a hook's result (emitJsonSchema.browser.ts), do not carry it.
 */
function conversionError({ toolName, io }: EmitContext, reason: string, options?: ErrorOptions): SchemaConversionError {
  const hint = reason.includes('toJsonSchema')
    ? ''
    : `\nGive the tool a toJsonSchema hook that returns it, e.g. toJsonSchema: (schema, { io }) => (io === '${io}' ? { type: 'object', properties: { ... } } : undefined)`
  return new SchemaConversionError(toolName, io, reason + hint, options)
}
