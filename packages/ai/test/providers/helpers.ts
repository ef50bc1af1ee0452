import type { ProviderTarget, ProviderWarning } from '@toolgate/ai/providers'
import { validateJsonSchema } from '@toolgate/ai'
import type { JsonSchema } from '@toolgate/ai'
import { openApiToJsonSchema } from './arbitrary.ts'
import { subjectOf } from './rules.ts'

type Schema = Record<string, unknown>

/** The converted parameter schema of an envelope, as JSON Schema the shared validator reads. */
export function convertedSchemaOf(target: ProviderTarget, envelope: unknown): JsonSchema {
  const schema = subjectOf(target, envelope).schema ?? { type: 'object', properties: {}, additionalProperties: false }
  return (target === 'gemini' ? openApiToJsonSchema(schema) : schema) as JsonSchema
}

/**
 * The original schema with what the conversion reported as moved into descriptions taken out,
 * and `oneOf` read as `anyOf` where it said so: what the provider can still enforce. A value
 * valid under the converted schema must be valid under this after `fromProviderArgs`.
 */
export function enforceableOriginal(original: JsonSchema, warnings: readonly ProviderWarning[], prefix = '/inputSchema'): JsonSchema {
  const copy = structuredClone(original) as Schema
  for (const warning of warnings) {
    if (!warning.path.startsWith(prefix)) continue
    const tokens = warning.path.slice(prefix.length).split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    const keyword = tokens.pop()
    let parent: unknown = copy
    for (const token of tokens) parent = (parent as Schema | undefined)?.[token]
    if (typeof parent !== 'object' || parent === null || keyword === undefined || !(keyword in parent)) continue
    const node = parent as Schema
    if (keyword === 'patternProperties' && warning.code === 'CONSTRAINT_IN_DESCRIPTION') {
      // Key patterns became words; the values still hold, for any key.
      const values = [...Object.values(node.patternProperties as Schema), ...(typeof node.additionalProperties === 'object' ? [node.additionalProperties] : [])]
      node.additionalProperties = values.length === 1 ? values[0] : { anyOf: values }
      delete node.patternProperties
    } else if (warning.code === 'CONSTRAINT_IN_DESCRIPTION' || warning.code === 'FORMAT_IN_DESCRIPTION') delete node[keyword]
    if (warning.code === 'ONE_OF_AS_ANY_OF' && keyword === 'oneOf') {
      node.anyOf = node.oneOf
      delete node.oneOf
    }
  }
  return copy as JsonSchema
}

export function issuesOf(schema: JsonSchema, value: unknown): string[] {
  return validateJsonSchema(schema, value).map((issue) => `${(issue.path ?? []).map((p) => (typeof p === 'object' ? String(p.key) : String(p))).join('.')}: ${issue.message}`)
}
