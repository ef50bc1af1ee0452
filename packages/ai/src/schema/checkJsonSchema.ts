import { Validator, type OutputUnit } from '@cfworker/json-schema'
import { DRAFT_07_META_SCHEMA, DRAFT_2020_12_META_SCHEMA, DRAFT_2020_12_VOCABULARIES } from './metaSchemas.ts'
import type { JsonSchema } from './types.ts'
import { draftOf, normalized } from './validateJsonSchema.ts'

// A plain JSON Schema is itself checked against its draft's meta-schema when a tool is defined:
// `{ type: 'numbr' }` would otherwise turn validation off (an unknown type matches nothing the
// validator knows) while the provider conversion takes it for impossible. Server builds only: the
// meta-schemas stay out of browser bundles.

/** What is wrong with a schema: the first problem, at a JSON Pointer into it. */
export interface SchemaProblem {
  readonly path: string
  readonly message: string
}

let draft07: Validator | undefined
let draft2020: Validator | undefined

/**
 * Checks `schema` (OpenAPI 3.0's `nullable` and draft-04 boolean bounds allowed) against the
 * draft-07 meta-schema, and the 2020-12 one unless it is read as an earlier draft (`draftOf`, as the
 * validator reads it). Both: the library follows the 2020-12 meta-schema's `$dynamicRef` only at
 * the top, and draft-07's checks every nested schema.
 */
export function jsonSchemaProblem(schema: JsonSchema): SchemaProblem | undefined {
  // As validated: OpenAPI 3.0's `nullable` and draft-04's boolean bounds are accepted (see `normalized`).
  const read = normalized(schema)
  draft07 ??= new Validator(structuredClone(DRAFT_07_META_SCHEMA) as never, '7', false)
  const problems = [...draft07.validate(read).errors]
  const draft = draftOf(schema)
  if (draft === '2020-12' || draft === '2019-09') {
    draft2020 ??= withVocabularies(new Validator(structuredClone(DRAFT_2020_12_META_SCHEMA) as never, '2020-12', false))
    problems.push(...draft2020.validate(read).errors)
  }
  const leaf = deepest(problems)
  return leaf && { path: leaf.instanceLocation.replace(/^#/, ''), message: leaf.error.replace(/^Instance /, 'the value ').replace(/\.$/, '') }
}

function withVocabularies(validator: Validator): Validator {
  for (const vocabulary of DRAFT_2020_12_VOCABULARIES) validator.addSchema(structuredClone(vocabulary) as never)
  return validator
}

const WRAPPERS: ReadonlySet<string> = new Set(['$ref', '$dynamicRef', 'allOf', 'anyOf', 'oneOf', 'properties', 'additionalProperties', 'items', 'prefixItems'])

/**
 * The error deepest in the schema, and there the first that is not a wrapper: "minLength: -1 is
 * less than 0", not "properties do not match"; for `type: "numbr"`, the list of types.
 */
function deepest(errors: readonly OutputUnit[]): OutputUnit | undefined {
  const depth = (error: OutputUnit) => error.instanceLocation.split('/').length
  const most = Math.max(-1, ...errors.map(depth))
  const there = errors.filter((error) => depth(error) === most)
  return there.find((error) => !WRAPPERS.has(error.keyword)) ?? there[0]
}
