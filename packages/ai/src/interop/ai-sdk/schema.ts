import type { JSONSchema7, Schema } from 'ai'
import { toolJsonSchema } from '../../tools/toolJsonSchema.ts'
import type { SchemaIo } from '../../schema/types.ts'
import type { AnyTool } from '../../tools/types.ts'
import { validateToolInput } from '../../tools/validateToolValue.ts'

/**
 * The mark `jsonSchema()` of `ai` puts on its schemas. A registered symbol, so that copies of the
 * SDK recognise each other's schemas; set here so `ai` stays an optional peer dependency.
 * A schema so marked is used as it is: the SDK's Standard Schema path would rewrite the JSON
 * Schema (`additionalProperties: false` on every object), and the model must see ours.
 */
const AI_SDK_SCHEMA = Symbol.for('vercel.ai.schema')

type Validate = NonNullable<Schema['validate']>

/**
 * The input schema the AI SDK is given: it validates the model's input fully (async validators
 * too) and reports issues as `path: message` lines, but hands the input on as it came, so that
 * `execute`, which validates again (it may be handed stored input, after an approval), applies
 * transforms once.
 */
export function aiSdkInputSchema<T>(tool: AnyTool): Schema<T> {
  return schemaView(tool, 'input', async (value) => {
    try {
      await validateToolInput(tool, value)
      return { success: true, value }
    } catch (error) {
      return { success: false, error: error instanceof Error ? error : new Error(String(error)) }
    }
  })
}

/** The output schema the AI SDK is given: `execute` has validated the output already. */
export function aiSdkOutputSchema<T>(tool: AnyTool): Schema<T> {
  return schemaView(tool, 'output', (value) => ({ success: true, value }))
}

function schemaView<T>(tool: AnyTool, io: SchemaIo, validate: Validate): Schema<T> {
  // The AI SDK reads the schema on each request: emit once now so a broken schema fails at startup.
  emit(tool, io)
  const schema = {
    [AI_SDK_SCHEMA]: true,
    _type: undefined,
    // A copy each time: Toolgate's schemas are frozen and shared, and providers may edit theirs.
    get jsonSchema() {
      return structuredClone(emit(tool, io))
    },
    validate,
  }
  return schema as unknown as Schema<T>
}

/** Draft-07, the dialect the AI SDK types its JSON Schema in and providers expect. */
function emit(tool: AnyTool, io: SchemaIo): JSONSchema7 {
  return (toolJsonSchema(tool, { io, target: 'draft-07' }) ?? {}) as JSONSchema7
}
