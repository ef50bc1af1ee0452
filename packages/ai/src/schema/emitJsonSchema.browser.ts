import { SchemaConversionError } from '../errors.ts'
import { serverSchemaSupport } from './serverSchemaSupport.ts'
import type { EmitContext, TypeMode } from './emitJsonSchema.ts'
import type { JsonSchema, JsonSchemaTarget, SchemaSource } from './types.ts'

/**
 * The browser build of `emitJsonSchema`. JSON Schema is what a model reads, and models are called
 * from the server, so browser bundles leave the converters out (about 4 KB gzipped). A tool's own
 * `toJsonSchema` hook still works here, and so does everything once server code is in the bundle
 * (an Edge or Workers build that resolved the `browser` condition: see serverSchemaSupport.ts).
 */
export function emitJsonSchema(
  source: SchemaSource | undefined,
  typeMode: TypeMode,
  target: JsonSchemaTarget,
  context: EmitContext,
): JsonSchema | undefined {
  const server = serverSchemaSupport()
  if (server) return server.emitJsonSchema(source, typeMode, target, context)
  const fromHook = context.hook?.(source, { io: context.io, target })
  if (fromHook !== undefined) return fromHook as JsonSchema
  throw new SchemaConversionError(
    context.toolName,
    context.io,
    'this is a browser build, which leaves JSON Schema emission out: emit JSON Schema on the server, or give the tool a toJsonSchema hook',
  )
}
