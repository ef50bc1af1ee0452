import type { JsonSchema } from '../../schema/types.ts'
import { omit, type MutableSchema } from '../json.ts'
import { enumValues, jsonTypeOf, TYPE_KEYWORDS, type JsonType } from '../keywords.ts'
import { SAME, type Plan } from '../plan.ts'
import type { ConvertContext, Converted } from './context.ts'
import { finishNode, type NodeKind } from './finish.ts'
import { locate } from './merge.ts'

/** A string, number, integer or boolean node (or several of them, where type arrays are accepted). */
export function convertScalar(node: JsonSchema, at: string, cx: ConvertContext, types: ReadonlySet<JsonType>): Converted {
  const values = enumValues(node)?.filter((value) => value !== null)
  if (values && values.length > 0) return convertEnum(node, at, cx, types, values)
  const schema: MutableSchema = { type: typeOf([...types]) }
  return { schema: finishNode(schema, node, at, cx, kindOf(types)), plan: SAME, admitsNull: false }
}

function convertEnum(node: JsonSchema, at: string, cx: ConvertContext, types: ReadonlySet<JsonType>, values: readonly unknown[]): Converted {
  const dialect = cx.dialect
  const encoded = encodeEnum(values, cx)
  const keyword = Array.isArray(node.enum) ? 'enum' : 'const'
  let plan: Plan = SAME
  if (encoded.mapping) {
    plan = { kind: 'enum', values: encoded.mapping }
    cx.warnings.add('ENUM_AS_STRINGS', locate(node, at, keyword), `${dialect.label} takes these values as strings; they are mapped back to the original values`)
  }
  const schema: MutableSchema = {}
  if (dialect.stringEnums) {
    schema.type = 'string'
    schema.format = 'enum'
  } else {
    schema.type = typeOf(encoded.mapping ? [...new Set(encoded.values.map(jsonTypeOf))] : [...types])
  }
  if (keyword === 'const' && dialect.constAllowed && !encoded.mapping) schema.const = encoded.values[0]
  else schema.enum = encoded.values
  // The values themselves are the constraint now; bounds of the old type would not fit a string.
  const typeKeywords = encoded.mapping ? [...TYPE_KEYWORDS.number, ...TYPE_KEYWORDS.string] : dialect.stringEnums ? ['format'] : []
  const rest: MutableSchema = omit(node, typeKeywords)
  for (const annotation of ['default', 'example'] as const) {
    if (encoded.mapping && Object.hasOwn(rest, annotation)) rest[annotation] = encoded.encode(rest[annotation])
  }
  if (encoded.mapping && Array.isArray(rest.examples)) rest.examples = rest.examples.map(encoded.encode)
  const kind: NodeKind = schema.type === 'string' ? 'string' : kindOf(types)
  return { schema: finishNode(schema, rest, at, cx, kind), plan, admitsNull: false }
}

interface EncodedEnum {
  readonly values: unknown[]
  /** Provider string → original value, for the values that had to change. */
  readonly mapping: Map<string, unknown> | undefined
  readonly encode: (value: unknown) => unknown
}

/**
 * Enum values the dialect cannot take are sent as strings (Gemini: all non-strings). When a
 * string form would collide with another value ("1" and 1), every value is JSON-encoded instead.
 */
function encodeEnum(values: readonly unknown[], cx: ConvertContext): EncodedEnum {
  const dialect = cx.dialect
  const allowed = (value: unknown) => dialect.enumValueAllowed(value) && !(dialect.stringEnums && typeof value !== 'string')
  if (values.every(allowed)) return { values: [...values], mapping: undefined, encode: (value) => value }
  const convertAll = !dialect.typeArrays || dialect.stringEnums
  const needsString = (value: unknown) => convertAll || !allowed(value)
  let encode = (value: unknown): unknown => (needsString(value) && typeof value !== 'string' ? JSON.stringify(value) : value)
  let encoded = values.map(encode)
  if (new Set(encoded.map((value) => JSON.stringify(value))).size < values.length) {
    encode = (value) => (needsString(value) ? JSON.stringify(value) : value)
    encoded = values.map(encode)
  }
  const mapping = new Map<string, unknown>()
  values.forEach((value, i) => {
    const provider = encoded[i]
    if (typeof provider === 'string' && provider !== value) mapping.set(provider, value)
  })
  return { values: encoded, mapping: mapping.size > 0 ? mapping : undefined, encode }
}

function typeOf(types: readonly string[]): string | string[] {
  const list = types.includes('number') ? types.filter((type) => type !== 'integer') : types
  return list.length === 1 ? (list[0] as string) : [...list]
}

function kindOf(types: ReadonlySet<JsonType>): NodeKind {
  if (types.size !== 1) return 'scalars'
  const only = [...types][0] as JsonType
  return only === 'object' || only === 'array' ? 'scalars' : only
}
