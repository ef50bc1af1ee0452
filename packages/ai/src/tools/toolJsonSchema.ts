import { internalsOf } from './internals.ts'
import type { AnyTool } from './types.ts'
// Not `#emit-json-schema`: this is how server code gets the real emitter under any export conditions.
import { emitJsonSchema } from '../schema/fullSchemaSupport.ts'
import type { JsonSchema, JsonSchemaTarget, SchemaIo } from '../schema/types.ts'

export interface ToolJsonSchemaOptions {
  /** `input` (default): what the model must send. `output`: what the tool returns. */
  readonly io?: SchemaIo
  /** Default `draft-2020-12`. */
  readonly target?: JsonSchemaTarget
}

/**
 * The JSON Schema of a tool's input (or output), cached per tool, side and target. A tool with no
 * input schema takes `{ type: 'object', properties: {} }`; one with no output schema has none.
 * The result is frozen and shared: copy it before changing it.
 */
export function toolJsonSchema(tool: AnyTool, options?: ToolJsonSchemaOptions & { readonly io?: 'input' }): JsonSchema
export function toolJsonSchema(tool: AnyTool, options: ToolJsonSchemaOptions): JsonSchema | undefined
export function toolJsonSchema(tool: AnyTool, options: ToolJsonSchemaOptions = {}): JsonSchema | undefined {
  const io = options.io ?? 'input'
  const target = options.target ?? 'draft-2020-12'
  const internals = internalsOf(tool)
  if (internals) return internals.emit(io, io, target)
  // A tool-shaped object from elsewhere: emit without a cache.
  const schema = io === 'input' ? tool.inputSchema : tool.outputSchema
  return emitJsonSchema(schema, io, target, { toolName: tool.name, io, hook: tool.toJsonSchema })
}
