import { isPlainObject } from '../util/isPlainObject.ts'

/** How a schema can be validated and turned into JSON Schema. */
export type SchemaKind =
  | 'standard-json-schema' // carries its own `~standard.jsonSchema` converter (Zod 4.2+, ArkType, ...)
  | 'valibot' // a plain Valibot schema, converted with @valibot/to-json-schema
  | 'standard-schema' // validates, but has no way to emit JSON Schema
  | 'json-schema' // plain JSON Schema data
  | 'unknown'

export function schemaKind(source: unknown): SchemaKind {
  if (typeof source !== 'object' && typeof source !== 'function') return 'unknown'
  if (source === null) return 'unknown'
  const standard = (source as { '~standard'?: Record<string, unknown> })['~standard']
  if (standard && typeof standard === 'object') {
    const jsonSchema = standard.jsonSchema as { input?: unknown } | undefined
    if (jsonSchema && typeof jsonSchema.input === 'function') return 'standard-json-schema'
    if (standard.vendor === 'valibot' && (source as { kind?: unknown }).kind === 'schema') return 'valibot'
    if (typeof standard.validate === 'function') return 'standard-schema'
    return 'unknown'
  }
  return isPlainObject(source) ? 'json-schema' : 'unknown'
}
