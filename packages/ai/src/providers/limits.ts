import type { JsonSchema } from '../schema/types.ts'
import { isPlainObject } from '../util/isPlainObject.ts'
import { walkSchema } from './walk.ts'

/** Sizes of a converted schema that providers limit in strict mode. */
export interface SchemaSize {
  /** Keys over all `properties` maps. */
  readonly properties: number
  /** Object nodes on the deepest path, the root counting 1. */
  readonly nesting: number
  readonly enumValues: number
  /** Characters of the largest string enum with more than 250 values. */
  readonly largeEnumChars: number
  /** Characters of property names, `$defs` names, string enum values and const values. */
  readonly chars: number
  /** Properties not listed in their object's `required`. */
  readonly optional: number
  /** Properties whose schema is an `anyOf` or a type array. */
  readonly unions: number
}

export function measure(schema: JsonSchema): SchemaSize {
  let properties = 0
  let enumValues = 0
  let largeEnumChars = 0
  let chars = 0
  let optional = 0
  let unions = 0
  walkSchema(schema, (node) => {
    if (isPlainObject(node.properties)) {
      const required = new Set(Array.isArray(node.required) ? node.required : [])
      for (const [key, child] of Object.entries(node.properties)) {
        properties++
        chars += key.length
        if (!required.has(key)) optional++
        if (isPlainObject(child) && (Array.isArray(child.anyOf) || Array.isArray(child.type))) unions++
      }
    }
    for (const defs of [node.$defs, node.definitions]) if (isPlainObject(defs)) for (const name of Object.keys(defs)) chars += name.length
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length
      const strings = node.enum.filter((value): value is string => typeof value === 'string')
      const length = strings.reduce((sum, value) => sum + value.length, 0)
      chars += length
      if (strings.length > 250) largeEnumChars = Math.max(largeEnumChars, length)
    }
    if (typeof node.const === 'string') chars += node.const.length
  })
  return { properties, nesting: nestingOf(schema, 0), enumValues, largeEnumChars, chars, optional, unions }
}

function nestingOf(node: unknown, depth: number): number {
  if (!isPlainObject(node)) return depth
  const isObject = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object')) || isPlainObject(node.properties)
  const here = depth + (isObject ? 1 : 0)
  let deepest = here
  const visit = (child: unknown) => {
    deepest = Math.max(deepest, nestingOf(child, here))
  }
  if (isPlainObject(node.properties)) Object.values(node.properties).forEach(visit)
  if (isPlainObject(node.$defs)) Object.values(node.$defs).forEach(visit)
  for (const keyword of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) if (Array.isArray(node[keyword])) (node[keyword] as unknown[]).forEach(visit)
  for (const keyword of ['items', 'additionalProperties']) if (isPlainObject(node[keyword])) visit(node[keyword])
  return deepest
}
