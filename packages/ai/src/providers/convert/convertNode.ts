import type { JsonSchema } from '../../schema/types.ts'
import { omit, shortJson } from '../json.ts'
import { isPlainObject } from '../../util/isPlainObject.ts'
import { ANNOTATION_KEYWORDS, declaredTypes, enumValues, hasUnion, inferredTypes, META_KEYWORDS, refOf, TYPE_KEYWORDS, type JsonType } from '../keywords.ts'
import { ProviderSchemaError } from '../ProviderSchemaError.ts'
import { SAME } from '../plan.ts'
import { convertArray } from './array.ts'
import type { ConvertContext, Converted, Want } from './context.ts'
import { encodeAsJson } from './encodings.ts'
import { finishNode } from './finish.ts'
import { derive, mergeAllOf } from './merge.ts'
import { admitNull } from './nullable.ts'
import { convertObject } from './object.ts'
import { convertPassThrough } from './passThrough.ts'
import { convertRef } from './ref.ts'
import { convertScalar } from './scalar.ts'
import { convertUnion } from './union.ts'

/** Deeper than this, a schema recurses in a way no cut or reference above could stop. */
const MAX_DEPTH = 256

/** Converts one subschema for the dialect in `cx`, with the plan that maps values back. */
export function convertNode(raw: unknown, at: string, cx: ConvertContext, want: Want = {}): Converted {
  if (cx.depth >= MAX_DEPTH) throw new ProviderSchemaError('RECURSIVE_SCHEMA', at, `The schema nests deeper than ${MAX_DEPTH} levels (a recursion ${cx.dialect.label} cannot express?)`)
  cx.depth++
  try {
    return convertSubschema(raw, at, cx, want)
  } finally {
    cx.depth--
  }
}

function convertSubschema(raw: unknown, at: string, cx: ConvertContext, want: Want): Converted {
  if (raw === undefined || raw === true) return honour(want, convertAny({}, at, cx), cx)
  if (raw === false) return convertNever(at, cx)
  if (!isPlainObject(raw)) throw new ProviderSchemaError('INVALID_SCHEMA', at, `Expected a schema (an object or a boolean), got ${shortJson(raw)}`)
  if (cx.dialect.passThrough) return convertPassThrough(raw, at, cx)
  const reference = refOf(raw) !== undefined ? raw : describedRef(raw, at)
  if (reference) return convertRef(reference, at, cx, want)
  const node = Array.isArray(raw.allOf) ? mergeAllOf(raw, at, cx) : raw
  if (node === false) return convertNever(at, cx)
  if (!isPlainObject(node)) return honour(want, convertAny({}, at, cx), cx)
  if (hasUnion(node)) return convertUnion(node, at, cx, want)
  return convertShape(node, at, cx, want)
}

/**
 * `{ allOf: [{ $ref }], description }` (how pydantic v1 describes a field of a model type) is
 * that `$ref` with a description: read it so, and recursion through it stays a reference.
 */
function describedRef(node: JsonSchema, at: string): JsonSchema | undefined {
  if (!Array.isArray(node.allOf) || node.allOf.length !== 1) return undefined
  const only = node.allOf[0]
  if (!isPlainObject(only) || refOf(only) === undefined) return undefined
  const onlyAnnotations = (schema: JsonSchema, skip: string) => Object.keys(schema).every((keyword) => keyword === skip || ANNOTATION_KEYWORDS.has(keyword) || META_KEYWORDS.has(keyword))
  if (!onlyAnnotations(node, 'allOf') || !Object.keys(only).every((keyword) => keyword.startsWith('$'))) return undefined
  return derive(node, at, (keyword) => keyword !== 'allOf', { $ref: refOf(only) })
}

/** A node without `$ref`, `allOf` or a union: one shape, or several types to split. */
function convertShape(node: JsonSchema, at: string, cx: ConvertContext, want: Want): Converted {
  const declared = declaredTypes(node)
  const values = enumValues(node)
  // `type` and `enum` both hold: a type only counts if some value has it, and null only if both
  // list it (`type: ["string", "null"], enum: ["F", "C"]` takes no null, whatever it suggests).
  const types = new Set<JsonType>(declared ? [...declared].filter((type) => !values || values.some((value) => fitsType(value, type))) : inferredTypes(node))
  const admitsNull = declared ? types.has('null') : (values?.includes(null) ?? false)
  types.delete('null')
  if (types.has('number')) types.delete('integer')
  if (types.size === 0 && admitsNull) return convertNullOnly(node, at, cx)
  if (types.size === 0) return declared ? convertNever(at, cx) : honour(want, convertAny(node, at, cx), cx)
  if (types.size > 1 && mustSplit(types, node, cx)) return convertUnion(splitByType(node, at, types, admitsNull), at, cx, want)
  const converted = convertTyped(node, at, cx, types)
  return admitsNull || want.nullable ? admitNull({ ...converted, admitsNull }, cx) : converted
}

function convertTyped(node: JsonSchema, at: string, cx: ConvertContext, types: ReadonlySet<JsonType>): Converted {
  const only = types.size === 1 ? [...types][0] : undefined
  if (only === 'object') return convertObject(node, at, cx)
  if (only === 'array') return convertArray(node, at, cx)
  return convertScalar(node, at, cx, types)
}

/** Several types stay a type array only where the dialect takes one, and only for scalars. */
function mustSplit(types: ReadonlySet<JsonType>, node: JsonSchema, cx: ConvertContext): boolean {
  if (types.has('object') || types.has('array')) return true
  if (cx.dialect.stringEnums && enumValues(node)) return false // one STRING enum carries them all
  return !cx.dialect.typeArrays
}

/** `{ type: [a, b] }` as `{ anyOf: [{ type: a }, { type: b }] }`, each branch with its own keywords. */
function splitByType(node: JsonSchema, at: string, types: ReadonlySet<JsonType>, admitsNull: boolean): JsonSchema {
  const annotations = derive(node, at, (keyword) => ['title', 'description', 'default', 'examples', 'example', 'deprecated'].includes(keyword))
  const branches: unknown[] = [...types].map((type) => restrictToType(node, at, type))
  if (admitsNull) branches.push({ type: 'null' })
  return { ...annotations, anyOf: branches }
}

function restrictToType(node: JsonSchema, at: string, type: JsonType): JsonSchema {
  const own = type === 'integer' ? TYPE_KEYWORDS.number : TYPE_KEYWORDS[type as keyof typeof TYPE_KEYWORDS] ?? []
  const values = enumValues(node)?.filter((value) => fitsType(value, type))
  const extra: Record<string, unknown> = { type }
  if (values) extra.enum = values
  return derive(node, at, (keyword) => own.includes(keyword) || ['not', 'if', 'then', 'else'].includes(keyword), extra)
}

function fitsType(value: unknown, type: JsonType): boolean {
  if (type === 'null') return value === null
  if (type === 'number') return typeof value === 'number'
  if (type === 'integer') return typeof value === 'number' && Number.isInteger(value)
  if (type === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value)
  if (type === 'array') return Array.isArray(value)
  return typeof value === type
}

/** Makes the output accept `null` when the parent needs it to. */
export function honour(want: Want, converted: Converted, cx: ConvertContext): Converted {
  return want.nullable && !converted.absent ? admitNull(converted, cx) : converted
}

/** Any value at all. */
function convertAny(node: JsonSchema, at: string, cx: ConvertContext): Converted {
  if (!cx.dialect.openValues) return encodeAsJson(node, at, cx)
  return { schema: finishNode({}, node, at, cx, 'any'), plan: SAME, admitsNull: true }
}

/** Only `null`. Gemini refuses `type: NULL` alone, so there it is a nullable string that is always null. */
export function convertNullOnly(node: JsonSchema, at: string, cx: ConvertContext): Converted {
  const rest = omit(node, ['type', 'enum', 'const', 'nullable'])
  if (cx.dialect.flavor === 'openapi') {
    const schema = finishNode({ type: 'string', nullable: true }, rest, at, cx, 'null', { notes: ['Always null.'] })
    return { schema, plan: { kind: 'null' }, admitsNull: true }
  }
  return { schema: finishNode({ type: 'null' }, rest, at, cx, 'null'), plan: SAME, admitsNull: true }
}

/** No value is valid: containers drop the part; where they cannot, a placeholder stands. */
export function convertNever(at: string, cx: ConvertContext): Converted {
  cx.warnings.add('UNSATISFIABLE_REMOVED', at, 'No value can satisfy this part of the schema; it is left out')
  return { schema: { type: 'string', description: 'No value is valid here; leave it out.' }, plan: SAME, admitsNull: false, absent: 'never' }
}
