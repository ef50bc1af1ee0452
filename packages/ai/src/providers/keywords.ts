import type { JsonSchema } from '../schema/types.ts'
import { isPlainObject } from '../util/isPlainObject.ts'

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object'

const JSON_TYPES: ReadonlySet<string> = new Set<JsonType>(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'])

/** Keywords for people and tooling only; no provider needs them and none constrains a value. */
export const META_KEYWORDS: ReadonlySet<string> = new Set([
  '$schema', '$id', 'id', '$anchor', '$dynamicAnchor', '$recursiveAnchor', '$vocabulary', '$comment',
  'readOnly', 'writeOnly', 'xml', 'externalDocs', 'discriminator',
])

/** Keywords that describe without constraining; moved to the description where a dialect lacks them. */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set(['title', 'description', 'default', 'examples', 'example', 'deprecated'])

/** Constraints by the type of value they apply to. */
export const TYPE_KEYWORDS: Readonly<Record<'string' | 'number' | 'array' | 'object', readonly string[]>> = {
  string: ['minLength', 'maxLength', 'pattern', 'format', 'contentMediaType', 'contentEncoding', 'contentSchema'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'format'],
  array: ['items', 'prefixItems', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'unevaluatedItems'],
  object: [
    'properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties',
    'dependentRequired', 'dependentSchemas', 'dependencies', 'unevaluatedProperties',
  ],
}

/** Constraints that apply whatever the type, and are not structure the converter rebuilds. */
export const GENERAL_CONSTRAINTS: readonly string[] = ['not', 'if', 'then', 'else']

/** Keywords the converter rebuilds itself rather than copying. */
export const STRUCTURAL_KEYWORDS: ReadonlySet<string> = new Set([
  'type', 'nullable', 'enum', 'const', '$ref', '$dynamicRef', '$recursiveRef', '$defs', 'definitions',
  'allOf', 'anyOf', 'oneOf', 'properties', 'required', 'additionalProperties', 'patternProperties',
  'items', 'prefixItems', 'additionalItems',
])

const KNOWN_KEYWORDS: ReadonlySet<string> = new Set([
  ...META_KEYWORDS, ...ANNOTATION_KEYWORDS, ...STRUCTURAL_KEYWORDS, ...GENERAL_CONSTRAINTS,
  ...Object.values(TYPE_KEYWORDS).flat(),
])

export function isKnownKeyword(keyword: string): boolean {
  return KNOWN_KEYWORDS.has(keyword)
}

/** The `$ref` of a node, in any of its spellings (2019-09 `$recursiveRef`, 2020-12 `$dynamicRef`). */
export function refOf(node: JsonSchema): string | undefined {
  for (const keyword of ['$ref', '$dynamicRef', '$recursiveRef']) {
    const ref = node[keyword]
    if (typeof ref === 'string') return ref
  }
  return undefined
}

/** The types a node declares, `nullable: true` (OpenAPI 3.0) read as `null`; undefined when untyped. */
export function declaredTypes(node: JsonSchema): Set<JsonType> | undefined {
  const raw = node.type
  const list = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : undefined
  if (!list) return undefined
  const types = new Set<JsonType>()
  for (const type of list) if (typeof type === 'string' && JSON_TYPES.has(type)) types.add(type as JsonType)
  if (node.nullable === true) types.add('null')
  return types
}

/** `enum`, or `const` as a one-value enum. */
export function enumValues(node: JsonSchema): unknown[] | undefined {
  if (Array.isArray(node.enum)) return node.enum
  if (Object.hasOwn(node, 'const')) return [node.const]
  return undefined
}

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  if (typeof value === 'boolean') return 'boolean'
  if (typeof value === 'string') return 'string'
  return 'object'
}

/** What a node without `type` evidently describes, from the keywords it uses. */
export function inferredTypes(node: JsonSchema): Set<JsonType> {
  const values = enumValues(node)
  if (values) {
    const types = new Set<JsonType>()
    for (const value of values) if (value !== null) types.add(jsonTypeOf(value))
    if (types.has('number')) types.delete('integer')
    return types
  }
  for (const kind of ['object', 'array', 'string', 'number'] as const) {
    if (TYPE_KEYWORDS[kind].some((keyword) => keyword !== 'format' && Object.hasOwn(node, keyword))) return new Set([kind])
  }
  return new Set()
}

export interface Tuple {
  readonly prefix: readonly unknown[]
  /** `prefixItems` (2020-12) or `items` (draft-07 array form). */
  readonly prefixKeyword: 'prefixItems' | 'items'
  /** The schema of items past the prefix; `undefined` when the tuple is closed or says nothing. */
  readonly rest: unknown
  readonly restKeyword: 'items' | 'additionalItems'
}

/** A node's tuple form in either draft's spelling, if it has one. */
export function tupleOf(node: JsonSchema): Tuple | undefined {
  if (Array.isArray(node.prefixItems)) {
    return { prefix: node.prefixItems, prefixKeyword: 'prefixItems', rest: node.items, restKeyword: 'items' }
  }
  if (Array.isArray(node.items)) {
    return { prefix: node.items, prefixKeyword: 'items', rest: node.additionalItems, restKeyword: 'additionalItems' }
  }
  return undefined
}

export function hasUnion(node: JsonSchema): boolean {
  return Array.isArray(node.anyOf) || Array.isArray(node.oneOf)
}

/** A schema that accepts only `null`. */
export function isNullOnly(schema: unknown): boolean {
  if (!isPlainObject(schema)) return false
  const types = declaredTypes(schema)
  if (types) return types.size === 1 && types.has('null')
  const values = enumValues(schema)
  return values !== undefined && values.length > 0 && values.every((value) => value === null)
}
