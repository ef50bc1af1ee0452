import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'
import type { JsonSchema } from './types.ts'
import { validateJsonSchema } from './validateJsonSchema.ts'

/** A plain JSON Schema as a Standard Schema: it validates (without `eval`) and emits itself. */
export interface JsonSchemaSchema<T> extends StandardSchemaV1<T, T>, StandardJSONSchemaV1<T, T> {
  readonly '~standard': StandardSchemaV1.Props<T, T> & StandardJSONSchemaV1.Props<T, T>
  readonly jsonSchema: JsonSchema
}

/**
 * Wraps a plain JSON Schema, optionally typed: `jsonSchema<{ city: string }>({ type: 'object', ... })`.
 * Plain objects work as tool schemas without it on the server; in browser builds, which leave the
 * JSON Schema validator out unless asked for, this is how a client tool brings it in.
 */
export function jsonSchema<T = Record<string, unknown>>(schema: JsonSchema): JsonSchemaSchema<T> {
  const emit = () => schema
  return {
    jsonSchema: schema,
    '~standard': {
      version: 1,
      vendor: 'toolgate',
      validate: (value) => {
        const issues = validateJsonSchema(schema, value)
        return issues.length > 0 ? { issues } : { value: value as T }
      },
      jsonSchema: { input: emit, output: emit },
    },
  }
}
