import type { emitJsonSchema } from './emitJsonSchema.ts'
import type { validateJsonSchema } from './validateJsonSchema.ts'

/**
 * The two heavy pieces of schema support that browser builds leave out: JSON Schema emission and
 * the plain JSON Schema validator. Which build a bundle gets is chosen by export conditions
 * (`#emit-json-schema`, `#validate-plain-json-schema`), but Edge and Workers bundlers resolve the
 * `browser` condition for server code too. So server code does not rely on conditions: it imports
 * `./fullSchemaSupport.ts`, which registers the real pieces here, and the browser stubs defer to
 * them. A browser bundle without server code never registers them and stays small.
 */
export interface ServerSchemaSupport {
  readonly emitJsonSchema: typeof emitJsonSchema
  readonly validateJsonSchema: typeof validateJsonSchema
}

let registered: ServerSchemaSupport | undefined

export function registerServerSchemaSupport(support: ServerSchemaSupport): void {
  registered = support
}

/** The real pieces, if server code is in this bundle. */
export function serverSchemaSupport(): ServerSchemaSupport | undefined {
  return registered
}
