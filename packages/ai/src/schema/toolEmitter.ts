// Browser builds resolve this to emitJsonSchema.browser.ts (see package.json `imports`).
import { emitJsonSchema } from '#emit-json-schema'
import type { JsonSchemaHook, TypeMode } from './emitJsonSchema.ts'
import type { JsonSchema, JsonSchemaTarget, SchemaIo, SchemaSource } from './types.ts'

/** Emits a tool's JSON Schema for a side, type mode and target; each combination once. */
export type ToolEmitter = (io: SchemaIo, typeMode: TypeMode, target: JsonSchemaTarget) => JsonSchema | undefined

export function createToolEmitter(
  toolName: string,
  hook: JsonSchemaHook | undefined,
  sources: { readonly input?: SchemaSource | undefined; readonly output?: SchemaSource | undefined },
): ToolEmitter {
  const cache = new Map<string, JsonSchema | undefined>()
  return (io, typeMode, target) => {
    const key = `${io}|${typeMode}|${target}`
    if (cache.has(key)) return cache.get(key)
    const schema = emitJsonSchema(sources[io], typeMode, target, { toolName, io, hook })
    cache.set(key, schema)
    return schema
  }
}
