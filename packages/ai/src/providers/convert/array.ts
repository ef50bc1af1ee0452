import type { JsonSchema } from '../../schema/types.ts'
import { omit, type MutableSchema } from '../json.ts'
import { tupleOf, type Tuple } from '../keywords.ts'
import { isSame, SAME, type Plan } from '../plan.ts'
import type { ConvertContext, Converted } from './context.ts'
import { convertNode } from './convertNode.ts'
import { finishNode } from './finish.ts'
import { locate, placed } from './merge.ts'
import { buildRecord, type Field } from './record.ts'

const ITEM_KEYWORDS = ['items', 'prefixItems', 'additionalItems']

export function convertArray(node: JsonSchema, at: string, cx: ConvertContext): Converted {
  const tuple = tupleOf(node)
  if (tuple && tuple.prefix.length > 0) return cx.dialect.tuples ? convertTuple(node, tuple, at, cx) : tupleAsObject(node, tuple, at, cx)
  const schema: MutableSchema = { type: 'array' }
  let plan: Plan = SAME
  // An array without `items` takes anything; dialects that need a declared item type get "any JSON value".
  if (node.items !== undefined || !cx.dialect.openValues) {
    const items = convertNode(node.items ?? {}, locate(node, at, 'items'), cx)
    schema.items = items.schema
    if (items.absent && cx.dialect.keywords.has('maxItems')) schema.maxItems = 0
    if (!isSame(items.plan)) plan = { kind: 'array', items: items.plan, prefix: [] }
  }
  const rest = schema.maxItems === 0 ? omit(node, [...ITEM_KEYWORDS, 'maxItems', 'minItems']) : omit(node, ITEM_KEYWORDS)
  return { schema: finishNode(schema, rest, at, cx, 'array'), plan, admitsNull: false }
}

/** A tuple where the dialect takes `prefixItems` (2020-12 spelling, whatever the input used). */
function convertTuple(node: JsonSchema, tuple: Tuple, at: string, cx: ConvertContext): Converted {
  const prefix = tuple.prefix.map((schema, i) => convertNode(schema, locate(node, at, tuple.prefixKeyword, i), cx))
  const schema: MutableSchema = { type: 'array', prefixItems: prefix.map((item) => item.schema) }
  let restPlan: Plan = SAME
  if (tuple.rest === false) schema.items = false
  else if (tuple.rest !== undefined) {
    const rest = convertNode(tuple.rest, locate(node, at, tuple.restKeyword), cx)
    schema.items = rest.schema
    restPlan = rest.plan
  }
  const plans = prefix.map((item) => item.plan)
  const plan: Plan = plans.every(isSame) && isSame(restPlan) ? SAME : { kind: 'array', items: restPlan, prefix: plans }
  return { schema: finishNode(schema, omit(node, ITEM_KEYWORDS), at, cx, 'array'), plan, admitsNull: false }
}

/** A tuple as `{ _0, _1, ... }` (and `_rest` for further items): strict dialects and Gemini have no tuples. */
function tupleAsObject(node: JsonSchema, tuple: Tuple, at: string, cx: ConvertContext): Converted {
  cx.warnings.add('TUPLE_AS_OBJECT', at, `${cx.dialect.label} has no tuples; this one is sent as an object {"_0", "_1", ...} and mapped back`)
  const minItems = typeof node.minItems === 'number' ? node.minItems : 0
  const keys = tuple.prefix.map((_, i) => `_${i}`)
  const fields: Field[] = tuple.prefix.map((schema, i) => ({ key: `_${i}`, schema, at: locate(node, at, tuple.prefixKeyword, i), required: i < minItems }))
  const open = tuple.rest !== undefined && tuple.rest !== false
  if (open) {
    const restAt = locate(node, at, tuple.restKeyword)
    fields.push({ key: '_rest', schema: placed({ type: 'array', items: tuple.rest }, { items: restAt }), at: restAt, required: false })
  }
  const record = buildRecord(fields, cx)
  // minItems is now the required keys; maxItems holds by construction unless it is below the prefix.
  const consumed = [...ITEM_KEYWORDS, 'minItems', ...(typeof node.maxItems === 'number' && node.maxItems >= keys.length && !open ? ['maxItems'] : [])]
  const schema = finishNode(record.schema, omit(node, consumed), at, cx, 'array', {
    notes: ['A list sent as an object: "_0" is its first item, "_1" the second, and so on.'],
    carry: false,
  })
  return { schema, plan: { kind: 'tuple', keys, restKey: open ? '_rest' : undefined, object: record.plan }, admitsNull: false }
}
