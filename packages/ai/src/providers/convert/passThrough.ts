import type { JsonSchema } from '../../schema/types.ts'
import type { MutableSchema } from '../json.ts'
import { isPlainObject } from '../../util/isPlainObject.ts'
import { refOf } from '../keywords.ts'
import { childPointer } from '../pointer.ts'
import { isSame, SAME, type FieldPlan, type Plan, type UnionBranch } from '../plan.ts'
import type { ConvertContext, Converted } from './context.ts'
import { convertNode } from './convertNode.ts'
import { locate } from './merge.ts'
import { providerPropertyNames } from './propertyNames.ts'
import { convertRef } from './ref.ts'

/** One node being passed through: where it is, what is built, and the plans of its parts. */
interface Pass {
  readonly node: JsonSchema
  readonly at: string
  readonly cx: ConvertContext
  readonly out: MutableSchema
  readonly plans: Plan[]
  readonly rename: (key: string) => string
}

/** Handles one keyword: `here` is where it was written. */
type Handler = (value: unknown, keyword: string, here: string, pass: Pass) => void

/**
 * A node for a dialect that takes any JSON Schema: every keyword kept, spelled as in 2020-12
 * (`$defs`, `prefixItems`, numeric exclusive bounds, `dependentRequired`), `nullable` read as a
 * `null` type, references pointed at the rebuilt `$defs`, and refused property names renamed.
 */
export function convertPassThrough(node: JsonSchema, at: string, cx: ConvertContext): Converted {
  const names = providerPropertyNames(isPlainObject(node.properties) ? Object.keys(node.properties) : [], cx.dialect.propertyName)
  const pass: Pass = { node, at, cx, out: {}, plans: [], rename: (key) => names.get(key) ?? key }
  for (const [keyword, value] of Object.entries(node)) {
    const handle = HANDLERS[keyword] ?? copy
    handle(value, keyword, locate(node, at, keyword), pass)
  }
  return { schema: pass.out, plan: allOf(pass.plans), admitsNull: true }
}

const copy: Handler = (value, keyword, _here, pass) => {
  pass.out[keyword] = value
}

/** `$defs` are rebuilt from the references in use; the rest means nothing to a provider. */
const drop: Handler = () => {}

const reference: Handler = (value, _keyword, _here, { node, at, cx, out, plans }) => {
  if (refOf(node) !== value) return // one spelling per node
  const converted = convertRef({ $ref: value }, at, cx, {})
  out.$ref = converted.schema.$ref
  // Without renames nothing inside a definition can change shape.
  if (cx.dialect.propertyName) plans.push(converted.plan)
}

const subschema: Handler = (value, keyword, here, pass) => {
  pass.out[keyword] = sub(value, here, pass.cx).schema
}

const subschemaMap: Handler = (value, keyword, here, pass) => {
  if (!isPlainObject(value)) return copy(value, keyword, here, pass)
  const key = (name: string) => (keyword === 'dependentSchemas' ? pass.rename(name) : name)
  pass.out[keyword] = Object.fromEntries(Object.entries(value).map(([name, child]) => [key(name), sub(child, childPointer(here, name), pass.cx).schema]))
}

const properties: Handler = (value, _keyword, here, { cx, out, plans, rename }) => {
  if (!isPlainObject(value)) return
  const converted: MutableSchema = {}
  const fields = new Map<string, FieldPlan>()
  for (const [key, child] of Object.entries(value)) {
    const name = rename(key)
    const childAt = childPointer(here, key)
    const { schema, plan } = sub(child, childAt, cx)
    converted[name] = schema
    if (name !== key) cx.warnings.add('PROPERTY_RENAMED', childAt, `Property "${key}" is sent as "${name}" (${cx.dialect.label} refuses the name) and mapped back`)
    if (name !== key || !isSame(plan)) fields.set(name, { key, plan, dropNull: false })
  }
  out.properties = converted
  if (fields.size > 0) plans.push({ kind: 'object', fields })
}

const propertyList: Handler = (value, keyword, _here, pass) => {
  pass.out[keyword] = renameKeys(value, pass.rename)
}

/** draft-07 `dependencies` is `dependentRequired` (lists) and `dependentSchemas` (schemas) in 2020-12. */
const dependencies: Handler = (value, _keyword, here, { cx, out, rename }) => {
  if (!isPlainObject(value)) return
  for (const [key, dependency] of Object.entries(value)) {
    if (Array.isArray(dependency)) out.dependentRequired = { ...(out.dependentRequired as object), [rename(key)]: renameKeys(dependency, rename) }
    else out.dependentSchemas = { ...(out.dependentSchemas as object), [rename(key)]: sub(dependency, childPointer(here, key), cx).schema }
  }
}

/** A draft-07 `items` array is a tuple: `prefixItems`, with `additionalItems` as `items`. */
const items: Handler = (value, _keyword, here, pass) => {
  if (!Array.isArray(value)) {
    const converted = sub(value, here, pass.cx)
    pass.out.items = converted.schema
    pass.plans.push(arrayPlan([], converted.plan))
    return
  }
  prefixItems(value, 'prefixItems', here, pass)
  const rest = pass.node.additionalItems
  if (rest !== undefined) pass.out.items = sub(rest, locate(pass.node, pass.at, 'additionalItems'), pass.cx).schema
}

const prefixItems: Handler = (value, _keyword, here, { cx, out, plans }) => {
  if (!Array.isArray(value)) return
  const prefix = value.map((item, i) => sub(item, childPointer(here, i), cx))
  out.prefixItems = prefix.map((item) => item.schema)
  plans.push(arrayPlan(prefix.map((item) => item.plan), SAME))
}

const composition: Handler = (value, keyword, here, pass) => {
  if (!Array.isArray(value)) return copy(value, keyword, here, pass)
  const branches = value.map((branch, i) => sub(branch, childPointer(here, i), pass.cx))
  pass.out[keyword] = branches.map((branch) => branch.schema)
  pass.plans.push(keyword === 'allOf' ? allOf(branches.map((branch) => branch.plan)) : union(branches))
}

const type: Handler = (value, _keyword, _here, { node, out }) => {
  const list = Array.isArray(value) ? value : [value]
  out.type = node.nullable === true && !list.includes('null') ? [...list, 'null'] : value
}

const enumValues: Handler = (value, _keyword, _here, { node, out }) => {
  out.enum = node.nullable === true && Array.isArray(value) && !value.includes(null) ? [...value, null] : value
}

/** draft-04 `exclusiveMinimum: true` beside `minimum` is 2020-12's numeric `exclusiveMinimum`. */
const exclusiveBound: Handler = (value, keyword, here, pass) => {
  if (typeof value !== 'boolean') return copy(value, keyword, here, pass)
  const bound = keyword === 'exclusiveMinimum' ? 'minimum' : 'maximum'
  if (value && typeof pass.node[bound] === 'number') pass.out[keyword] = pass.node[bound]
}

const inclusiveBound: Handler = (value, keyword, here, pass) => {
  const exclusive = keyword === 'minimum' ? 'exclusiveMinimum' : 'exclusiveMaximum'
  if (pass.node[exclusive] !== true) copy(value, keyword, here, pass)
}

const HANDLERS: Readonly<Record<string, Handler>> = {
  $schema: drop, $id: drop, id: drop, $defs: drop, definitions: drop, $anchor: drop, $dynamicAnchor: drop, $recursiveAnchor: drop, $vocabulary: drop, nullable: drop,
  additionalItems: drop, // read beside a draft-07 `items` array
  $ref: reference, $dynamicRef: reference, $recursiveRef: reference,
  type, enum: enumValues,
  properties, required: propertyList, dependentRequired: propertyList, dependencies,
  items, prefixItems,
  allOf: composition, anyOf: composition, oneOf: composition,
  not: subschema, if: subschema, then: subschema, else: subschema, contains: subschema, propertyNames: subschema, additionalProperties: subschema,
  unevaluatedItems: subschema, unevaluatedProperties: subschema, contentSchema: subschema,
  patternProperties: subschemaMap, dependentSchemas: subschemaMap,
  exclusiveMinimum: exclusiveBound, exclusiveMaximum: exclusiveBound, minimum: inclusiveBound, maximum: inclusiveBound,
}

/** A subschema, which pass-through keeps as it is when it is a boolean. */
function sub(schema: unknown, at: string, cx: ConvertContext): { schema: unknown; plan: Plan } {
  return typeof schema === 'boolean' ? { schema, plan: SAME } : convertNode(schema, at, cx)
}

function renameKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((key) => (typeof key === 'string' ? rename(key) : key))
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([key, list]) => [rename(key), renameKeys(list, rename)]))
  return value
}

function arrayPlan(prefix: Plan[], rest: Plan): Plan {
  return prefix.every(isSame) && isSame(rest) ? SAME : { kind: 'array', items: rest, prefix }
}

function allOf(plans: readonly Plan[]): Plan {
  const steps = plans.filter((plan) => !isSame(plan))
  if (steps.length === 0) return SAME
  return steps.length === 1 ? (steps[0] as Plan) : { kind: 'all', plans: steps }
}

function union(branches: readonly { schema: unknown; plan: Plan }[]): Plan {
  if (branches.every((branch) => isSame(branch.plan))) return SAME
  const routed: UnionBranch[] = branches.map((branch) => ({ schema: branch.schema, plan: branch.plan }))
  return { kind: 'union', branches: routed }
}
