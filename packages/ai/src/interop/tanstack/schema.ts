import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'
import { SchemaConversionError } from '../../errors.ts'
import { formatIssuePath } from '../../schema/formatIssues.ts'
import { toolJsonSchema } from '../../tools/toolJsonSchema.ts'
import type { JsonSchema, JsonSchemaTarget, SchemaIo } from '../../schema/types.ts'
import { isPromiseLike } from '../../util/isPromiseLike.ts'
import type { AnyTool } from '../../tools/types.ts'
import type { StandardToolSchema } from '../standardTool.ts'

type Validate = StandardSchemaV1.Props['validate']

const TARGETS: ReadonlySet<string> = new Set<JsonSchemaTarget>(['draft-2020-12', 'draft-07', 'openapi-3.0'])

/**
 * The input schema TanStack AI is given. TanStack validates synchronously and passes the result to
 * `execute`, which validates again; so this is only an early check that rejects bad input before a
 * human is asked to approve it. It hands the raw input on, so transforms run once, in `execute`.
 * An async validator cannot be awaited here: it runs again in `execute`, which has the last word.
 */
export function tanStackInputSchema<T>(tool: AnyTool): StandardToolSchema<T> {
  const schema = tool.inputSchema
  return schemaView(tool, 'input', (value, options) => {
    if (!schema) return { value }
    const result = schema['~standard'].validate(value, options)
    if (isPromiseLike(result)) {
      result.then(undefined, () => undefined) // `execute` validates again and reports the failure
      return { value }
    }
    return result.issues ? { issues: result.issues.map(withPathInMessage) } : { value }
  })
}

/** The output schema TanStack AI is given: `execute` has validated the output already. */
export function tanStackOutputSchema<T>(tool: AnyTool): StandardToolSchema<T> {
  return schemaView(tool, 'output', (value) => ({ value }))
}

function schemaView<T>(tool: AnyTool, io: SchemaIo, validate: Validate): StandardToolSchema<T> {
  const emit = ({ target }: StandardJSONSchemaV1.Options): JsonSchema => {
    if (!TARGETS.has(target)) throw new SchemaConversionError(tool.name, io, `unsupported target "${target}"`)
    // A copy: Toolgate's schemas are frozen and shared, and adapters may edit what they get.
    return structuredClone(toolJsonSchema(tool, { io, target: target as JsonSchemaTarget }) ?? {})
  }
  return {
    '~standard': { version: 1, vendor: 'toolgate', validate, jsonSchema: { input: emit, output: emit } },
  } as StandardToolSchema<T>
}

/** TanStack joins issue messages and drops their paths; keep the path where the model can read it. */
function withPathInMessage(issue: StandardSchemaV1.Issue): StandardSchemaV1.Issue {
  return { ...issue, message: `${formatIssuePath(issue.path)}: ${issue.message}` }
}

