import { isPlainObject } from '../util/isPlainObject.ts'
import { declaredTypes, enumValues, inferredTypes, refOf } from './keywords.ts'
import type { RefResolver } from './refs.ts'

/**
 * Whether the author meant `null` to be a valid value here. A node without `type` but with
 * object, array, string or number keywords is read as that type, not as "anything, null too":
 * that is what such schemas mean in practice.
 */
export function acceptsNull(schema: unknown, refs: RefResolver, at = '', seen = new Set<unknown>()): boolean {
  if (schema === undefined || schema === true) return true
  if (!isPlainObject(schema) || seen.has(schema)) return false
  seen.add(schema)
  const ref = refOf(schema)
  if (ref !== undefined && !acceptsNull(refs.resolve(ref, at).schema, refs, at, seen)) return false
  if (Array.isArray(schema.allOf) && !schema.allOf.every((branch) => acceptsNull(branch, refs, at, seen))) return false
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword]
    if (Array.isArray(branches) && !branches.some((branch) => acceptsNull(branch, refs, at, seen))) return false
  }
  const values = enumValues(schema)
  if (values) return values.includes(null)
  const types = declaredTypes(schema)
  if (types) return types.has('null')
  if (ref !== undefined || Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf) || Array.isArray(schema.allOf)) return true
  return inferredTypes(schema).size === 0
}
