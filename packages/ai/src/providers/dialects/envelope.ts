import type { JsonSchema } from '../../schema/types.ts'
import type { McpToolAnnotations } from '../targets.ts'

/** What every envelope is built from, once the schemas are converted and the name is mapped. */
export interface EnvelopeParts {
  readonly name: string
  readonly description: string
  readonly title: string | undefined
  readonly parameters: JsonSchema
  /** Whether strict rules hold for `parameters` (false when a limit forced non-strict). */
  readonly strict: boolean
  readonly outputSchema: JsonSchema | undefined
  readonly annotations: McpToolAnnotations | undefined
}

/** A converted root with no parameters at all. */
export function declaresNoParameters(parameters: JsonSchema): boolean {
  const properties = parameters.properties
  const none = properties === undefined || (typeof properties === 'object' && properties !== null && Object.keys(properties).length === 0)
  const closed = parameters.additionalProperties === undefined || parameters.additionalProperties === false
  return none && closed && parameters.anyOf === undefined && parameters.$ref === undefined
}
