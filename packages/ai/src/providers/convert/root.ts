import type { JsonSchema } from '../../schema/types.ts'
import { shortJson, type MutableSchema } from '../json.ts'
import { isPlainObject } from '../../util/isPlainObject.ts'
import { declaredTypes, hasUnion, inferredTypes, refOf } from '../keywords.ts'
import { ProviderSchemaError } from '../ProviderSchemaError.ts'
import type { ConvertContext, Converted } from './context.ts'
import { convertNode } from './convertNode.ts'
import { derive, locate, mergeAllOf, mergeSchemas } from './merge.ts'
import { convertObject, objectLayout } from './object.ts'
import { convertPassThrough } from './passThrough.ts'
import { buildRecord } from './record.ts'

/** The key a root that cannot be an object of arguments by itself is wrapped in. */
const WRAPPER_KEY = 'input'

/**
 * The root as an object of arguments, which every provider requires: a root `$ref` is inlined,
 * non-object types and branches are dropped (none left: `ROOT_NOT_OBJECT`), and a root the
 * dialect cannot declare as an object (a union, a map in strict mode) is wrapped as `{ input }`.
 */
export function convertRoot(schema: unknown, cx: ConvertContext): Converted {
  const node = objectRoot(schema, cx)
  if (cx.dialect.passThrough) {
    if (cx.dialect.wrapRootUnion && hasUnion(node)) return wrapRoot(convertPassThrough(node, '', cx), cx)
    const converted = convertPassThrough(node, '', cx)
    return { ...converted, schema: { type: 'object', ...converted.schema } }
  }
  if (hasUnion(node)) return wrapRoot(convertNode(node, '', cx), cx)
  const layout = objectLayout(node, true)
  if ((layout === 'map' || layout === 'free') && !cx.dialect.openValues) return wrapRoot(convertObject(node, '', cx), cx)
  return convertObject(node, '', cx, true)
}

/** The root with its `$ref` inlined, `allOf` merged (where the dialect merges) and narrowed to objects. */
function objectRoot(schema: unknown, cx: ConvertContext): JsonSchema {
  if (schema === true) return { type: 'object' }
  if (!isPlainObject(schema)) throw notAnObject('', `the root is ${shortJson(schema)}`)
  let node: unknown = schema
  for (let hops = 0; isPlainObject(node) && refOf(node) !== undefined; hops++) {
    if (hops > 32) throw new ProviderSchemaError('RECURSIVE_SCHEMA', '/$ref', 'The root refers to itself without end')
    const target = cx.refs.resolve(refOf(node) as string, '')
    const siblings = derive(node, '', (keyword) => !['$ref', '$dynamicRef', '$recursiveRef'].includes(keyword))
    node = mergeSchemas({ schema: siblings, at: '' }, { schema: target.schema, at: target.pointer }, cx)
  }
  if (!cx.dialect.passThrough && isPlainObject(node) && Array.isArray(node.allOf)) node = mergeAllOf(node, '', cx)
  if (node === true) return { type: 'object' }
  if (!isPlainObject(node)) throw notAnObject('', 'the root accepts no value')
  return narrowToObject(node, cx)
}

function narrowToObject(node: JsonSchema, cx: ConvertContext): JsonSchema {
  const types = declaredTypes(node)
  if (types && !types.has('object')) throw notAnObject(locate(node, '', 'type'), `the root is of type ${JSON.stringify(node.type)}`)
  const inferred = inferredTypes(node)
  if (!types && inferred.size > 0 && !inferred.has('object')) throw notAnObject('', `the root describes a ${[...inferred].join(' or ')}`)
  if (types && types.size > 1) {
    cx.warnings.add('ROOT_NARROWED', locate(node, '', 'type'), 'Tool arguments are always an object; the other root types are dropped')
  }
  const objectOnly = derive(node, '', (keyword) => keyword !== 'type' && keyword !== 'nullable', { type: 'object' })
  return hasUnion(node) ? narrowUnion(objectOnly, cx) : objectOnly
}

/** Keeps the branches that admit an object; one branch left is merged into the root. */
function narrowUnion(node: MutableSchema, cx: ConvertContext): JsonSchema {
  const keyword = Array.isArray(node.anyOf) ? 'anyOf' : 'oneOf'
  const branches = node[keyword] as unknown[]
  const kept = branches.map((schema, i) => ({ schema, at: locate(node, '', keyword, i) })).filter((branch) => admitsObject(branch.schema, branch.at, cx))
  if (kept.length === 0) throw notAnObject(locate(node, '', keyword), 'no branch of the root describes an object')
  if (kept.length < branches.length) {
    cx.warnings.add('ROOT_NARROWED', locate(node, '', keyword), 'Tool arguments are always an object; root branches that are not objects are dropped')
  }
  const base = derive(node, '', (k) => k !== keyword)
  if (kept.length === 1) {
    const merged = mergeSchemas({ schema: base, at: '' }, kept[0] as { schema: unknown; at: string }, cx)
    if (!isPlainObject(merged)) throw notAnObject('', 'the root accepts no value')
    return merged
  }
  return { ...base, [keyword]: kept.map((branch) => branch.schema) }
}

function admitsObject(schema: unknown, at: string, cx: ConvertContext): boolean {
  if (schema === true) return true
  if (!isPlainObject(schema)) return false
  const ref = refOf(schema)
  if (ref !== undefined) return admitsObject(cx.refs.resolve(ref, at).schema, at, cx)
  const types = declaredTypes(schema)
  if (types) return types.has('object')
  const inferred = inferredTypes(schema)
  return inferred.size === 0 || inferred.has('object')
}

/** `{ input: <root> }`: the model sends the root's value under one key; `fromProviderArgs` unwraps it. */
function wrapRoot(inner: Converted, cx: ConvertContext): Converted {
  cx.warnings.add('ROOT_WRAPPED', '', `${cx.dialect.label} needs a plain object at the root; the arguments are sent as {"${WRAPPER_KEY}": ...} and unwrapped`)
  const record = buildRecord([{ key: WRAPPER_KEY, at: '', required: true, converted: inner }], cx)
  return { schema: record.schema, plan: { kind: 'unwrap', key: WRAPPER_KEY, inner: inner.plan }, admitsNull: false }
}

function notAnObject(path: string, reason: string): ProviderSchemaError {
  return new ProviderSchemaError('ROOT_NOT_OBJECT', path, `Tool arguments must be an object, but ${reason}`)
}
