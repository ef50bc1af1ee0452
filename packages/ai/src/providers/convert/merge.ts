import type { JsonSchema } from '../../schema/types.ts'
import type { MutableSchema } from '../json.ts'
import { deepEqual } from '../../util/deepEqual.ts'
import { isPlainObject } from '../../util/isPlainObject.ts'
import { refOf } from '../keywords.ts'
import { childPointer } from '../pointer.ts'
import { ProviderSchemaError } from '../ProviderSchemaError.ts'
import type { ConvertContext } from './context.ts'
import { setOwn } from '../../util/setOwn.ts'

/** A schema and where it came from. */
export interface Located {
  readonly schema: unknown
  readonly at: string
}

/**
 * Where each keyword of a merged node came from. Merging `allOf` (and distributing a parent into
 * union branches) builds nodes that exist nowhere in the input; warnings must still point at the
 * keyword the author wrote.
 */
const ORIGINS = new WeakMap<object, Map<string, string>>()

const SEPARATOR = '\u0000'

/** The pointer of `tokens` under `node`, following where merged keywords came from. */
export function locate(node: JsonSchema, at: string, ...tokens: readonly (string | number)[]): string {
  const origins = ORIGINS.get(node)
  if (origins) {
    for (let i = tokens.length; i >= 1; i--) {
      const origin = origins.get(tokens.slice(0, i).join(SEPARATOR))
      if (origin !== undefined) return childPointer(origin, ...tokens.slice(i))
    }
  }
  return childPointer(at, ...tokens)
}

/** A new node made of some of `source`'s keywords (plus `extra`), remembering where they came from. */
export function derive(source: JsonSchema, at: string, keep: (keyword: string) => boolean, extra: MutableSchema = {}): MutableSchema {
  const out: MutableSchema = {}
  const origins = new Map<string, string>()
  for (const [keyword, value] of Object.entries(source)) {
    if (!keep(keyword)) continue
    out[keyword] = value
    origins.set(keyword, locate(source, at, keyword))
  }
  Object.assign(out, extra)
  ORIGINS.set(out, origins)
  return out
}

/** A node built from parts found elsewhere: `origins` says where each keyword was written. */
export function placed(node: MutableSchema, origins: Readonly<Record<string, string>>): MutableSchema {
  ORIGINS.set(node, new Map(Object.entries(origins)))
  return node
}

/** `allOf` folded into its parent: the rest of the node first, then each branch in order. */
export function mergeAllOf(node: JsonSchema, at: string, cx: ConvertContext): unknown {
  const branches = Array.isArray(node.allOf) ? node.allOf : []
  let merged: unknown = derive(node, at, (keyword) => keyword !== 'allOf')
  branches.forEach((branch, i) => {
    merged = mergeSchemas({ schema: merged, at }, { schema: branch, at: locate(node, at, 'allOf', i) }, cx)
  })
  return merged
}

/** The intersection of two schemas as one schema (`false` when nothing can satisfy both). */
export function mergeSchemas(a: Located, b: Located, cx: ConvertContext): unknown {
  const left = inlineTop(a, cx)
  const right = inlineTop(b, cx)
  if (left === false || right === false) return false
  if (left === true || left === undefined) return right ?? true
  if (right === true || right === undefined) return left
  if (!isPlainObject(left) || !isPlainObject(right)) return left
  const out = derive(left, a.at, () => true)
  const origins = ORIGINS.get(out) as Map<string, string>
  for (const [keyword, value] of Object.entries(right)) {
    if (!Object.hasOwn(out, keyword)) {
      out[keyword] = value
      origins.set(keyword, locate(right, b.at, keyword))
      continue
    }
    const combined = combine(keyword, { schema: out[keyword], at: locate(left, a.at, keyword) }, { schema: value, at: locate(right, b.at, keyword) }, cx, origins)
    if (combined === UNSATISFIABLE) return false
    out[keyword] = combined
  }
  return out
}

const UNSATISFIABLE = Symbol('unsatisfiable')

const LOWER_BOUNDS = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains'])
const UPPER_BOUNDS = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains'])
const SUBSCHEMAS = new Set(['additionalProperties', 'unevaluatedProperties', 'items', 'additionalItems', 'propertyNames', 'contains', 'unevaluatedItems'])
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'])
/** Keywords whose first value may stand: annotations, where the parent speaks before its branches. */
const FIRST_WINS = new Set(['title', 'description', 'default', 'examples', 'example', 'deprecated', '$comment', '$schema', '$id', '$anchor'])

function combine(keyword: string, a: Located, b: Located, cx: ConvertContext, origins: Map<string, string>): unknown {
  const va = a.schema
  const vb = b.schema
  if (deepEqual(va, vb) || FIRST_WINS.has(keyword)) return va
  if (keyword === 'type') return intersectTypes(va, vb)
  if (keyword === 'required') return [...new Set([...(Array.isArray(va) ? va : []), ...(Array.isArray(vb) ? vb : [])])]
  if (keyword === 'enum') return intersectValues(va, vb)
  if (keyword === 'const') return UNSATISFIABLE
  if (keyword === 'uniqueItems') return va === true || vb === true
  if (LOWER_BOUNDS.has(keyword) && typeof va === 'number' && typeof vb === 'number') return Math.max(va, vb)
  if (UPPER_BOUNDS.has(keyword) && typeof va === 'number' && typeof vb === 'number') return Math.min(va, vb)
  if (SUBSCHEMAS.has(keyword)) return mergeSchemas(a, b, cx)
  if (SCHEMA_MAPS.has(keyword) && isPlainObject(va) && isPlainObject(vb)) return mergeMaps(keyword, a, b, cx, origins)
  if (keyword === 'prefixItems' && Array.isArray(va) && Array.isArray(vb)) {
    const length = Math.max(va.length, vb.length)
    return Array.from({ length }, (_, i) => mergeSchemas({ schema: va[i], at: childPointer(a.at, i) }, { schema: vb[i], at: childPointer(b.at, i) }, cx))
  }
  if (keyword === 'dependentRequired' && isPlainObject(va) && isPlainObject(vb)) {
    const out: Record<string, unknown> = { ...va }
    for (const [key, list] of Object.entries(vb)) out[key] = [...new Set([...(Array.isArray(out[key]) ? (out[key] as unknown[]) : []), ...(Array.isArray(list) ? list : [])])]
    return out
  }
  if ((keyword === 'anyOf' || keyword === 'oneOf') && Array.isArray(va) && Array.isArray(vb)) return crossUnions(keyword, a, b, cx)
  if (keyword === 'not') return { anyOf: [va, vb] }
  cx.warnings.add('ALL_OF_CONFLICT', b.at, `allOf branches disagree on "${keyword}" (${JSON.stringify(va)} and ${JSON.stringify(vb)}); the first is kept`)
  return va
}

function mergeMaps(keyword: string, a: Located, b: Located, cx: ConvertContext, origins: Map<string, string>): Record<string, unknown> {
  const va = a.schema as Record<string, unknown>
  const vb = b.schema as Record<string, unknown>
  const out: Record<string, unknown> = {}
  // Keys are property names, which may be anything, `__proto__` included.
  for (const [key, child] of Object.entries(va)) {
    setOwn(out, key, child)
    origins.set(`${keyword}${SEPARATOR}${key}`, childPointer(a.at, key))
  }
  for (const [key, child] of Object.entries(vb)) {
    if (Object.hasOwn(out, key)) {
      setOwn(out, key, mergeSchemas({ schema: out[key], at: childPointer(a.at, key) }, { schema: child, at: childPointer(b.at, key) }, cx))
    } else {
      setOwn(out, key, child)
      origins.set(`${keyword}${SEPARATOR}${key}`, childPointer(b.at, key))
    }
  }
  return out
}

/** Both sides must hold: every pair of branches, merged; unsatisfiable pairs dropped. */
function crossUnions(keyword: string, a: Located, b: Located, cx: ConvertContext): unknown {
  const left = a.schema as unknown[]
  const right = b.schema as unknown[]
  if (left.length * right.length > 64) {
    cx.warnings.add('ALL_OF_CONFLICT', b.at, `Too many combinations of "${keyword}" branches to merge; the first list is kept`)
    return left
  }
  const out: unknown[] = []
  left.forEach((x, i) => {
    right.forEach((y, j) => {
      const merged = mergeSchemas({ schema: x, at: childPointer(a.at, i) }, { schema: y, at: childPointer(b.at, j) }, cx)
      if (merged !== false) out.push(merged)
    })
  })
  return out.length === 0 ? UNSATISFIABLE : out
}

function intersectTypes(a: unknown, b: unknown): unknown {
  const left = typeList(a)
  const right = typeList(b)
  const out: string[] = []
  for (const type of left) {
    if (right.includes(type)) out.push(type)
    else if (type === 'integer' && right.includes('number')) out.push('integer')
    else if (type === 'number' && right.includes('integer')) out.push('integer')
  }
  const unique = [...new Set(out)]
  if (unique.length === 0) return UNSATISFIABLE
  return unique.length === 1 ? unique[0] : unique
}

function typeList(type: unknown): string[] {
  return typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : []
}

function intersectValues(a: unknown, b: unknown): unknown {
  if (!Array.isArray(a) || !Array.isArray(b)) return a
  const out = a.filter((value) => b.some((other) => deepEqual(value, other)))
  return out.length === 0 ? UNSATISFIABLE : out
}

/** A node with its top-level `$ref` resolved and its own `allOf` folded in. */
function inlineTop(located: Located, cx: ConvertContext): unknown {
  const { schema, at } = located
  if (!isPlainObject(schema)) return schema
  const ref = refOf(schema)
  let node: unknown = schema
  if (ref !== undefined) {
    if (++cx.mergeDepth > 64) {
      throw new ProviderSchemaError('RECURSIVE_SCHEMA', childPointer(at, '$ref'), 'The schema references itself through allOf without end')
    }
    try {
      const target = cx.refs.resolve(ref, at)
      const siblings = derive(schema, at, (keyword) => !['$ref', '$dynamicRef', '$recursiveRef'].includes(keyword))
      node = mergeSchemas({ schema: siblings, at }, { schema: target.schema, at: target.pointer }, cx)
    } finally {
      cx.mergeDepth--
    }
  }
  if (isPlainObject(node) && Array.isArray(node.allOf)) node = mergeAllOf(node, at, cx)
  return node
}
