import type { JsonSchema } from '../schema/types.ts'
import { isPlainObject } from '../util/isPlainObject.ts'
import { setOwn } from '../util/setOwn.ts'

/**
 * How to turn a value the model produced under the converted schema back into the shape the
 * original schema describes. Built alongside the converted schema, node for node; `same` wherever
 * the conversion did not change the shape, so most of a plan is skipped at once.
 */
export type Plan =
  | { readonly kind: 'same' }
  | { readonly kind: 'object'; readonly fields: ReadonlyMap<string, FieldPlan> }
  | { readonly kind: 'array'; readonly items: Plan; readonly prefix: readonly Plan[] }
  | { readonly kind: 'tuple'; readonly keys: readonly string[]; readonly restKey: string | undefined; readonly object: Plan }
  | { readonly kind: 'entries'; readonly key: Plan; readonly value: Plan }
  | { readonly kind: 'json' }
  | { readonly kind: 'enum'; readonly values: ReadonlyMap<string, unknown> }
  | { readonly kind: 'union'; readonly branches: readonly UnionBranch[] }
  | { readonly kind: 'all'; readonly plans: readonly Plan[] }
  | { readonly kind: 'ref'; readonly target: PlanHolder }
  | { readonly kind: 'null' }
  | { readonly kind: 'unwrap'; readonly key: string; readonly inner: Plan }

export interface FieldPlan {
  /** The property's name in the original schema. */
  readonly key: string
  readonly plan: Plan
  /** `null` here means "absent": the property was made required-and-nullable only for strict mode. */
  readonly dropNull: boolean
}

export interface UnionBranch {
  /** The branch as converted: a value is routed to the first branch it fits. */
  readonly schema: unknown
  readonly plan: Plan
}

/** Filled in once a `$defs` entry is converted; references to it may be built before that. */
export interface PlanHolder {
  plan: Plan
  schema: unknown
}

export const SAME: Plan = Object.freeze({ kind: 'same' })

export function isSame(plan: Plan): boolean {
  return plan.kind === 'same'
}

/** Looks up a converted `$defs` entry by name, for routing values through `$ref` branches. */
export type DefLookup = (ref: string) => unknown

/** Applies a plan to a value. Never throws: a value that does not fit is returned as it is, for validation to report. */
export function restore(plan: Plan, value: unknown, defs: DefLookup = () => undefined): unknown {
  switch (plan.kind) {
    case 'same': return value
    case 'object': return restoreObject(plan.fields, value, defs)
    case 'array': return Array.isArray(value) ? value.map((item, i) => restore(plan.prefix[i] ?? plan.items, item, defs)) : value
    case 'tuple': return restoreTuple(plan, restore(plan.object, value, defs))
    case 'entries': return restoreEntries(plan, value, defs)
    case 'json': return typeof value === 'string' ? parseJsonOr(value) : value
    case 'enum': return typeof value === 'string' && plan.values.has(value) ? plan.values.get(value) : value
    case 'union': {
      const branch = plan.branches.find((candidate) => fits(candidate.schema, value, defs)) ?? plan.branches[0]
      return branch ? restore(branch.plan, value, defs) : value
    }
    case 'all': return plan.plans.reduce((current, step) => restore(step, current, defs), value)
    case 'ref': return restore(plan.target.plan, value, defs)
    case 'null': return null
    case 'unwrap': return isPlainObject(value) && Object.hasOwn(value, plan.key) ? restore(plan.inner, value[plan.key], defs) : value
  }
}

function restoreObject(fields: ReadonlyMap<string, FieldPlan>, value: unknown, defs: DefLookup): unknown {
  if (!isPlainObject(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    const field = fields.get(key)
    if (!field) setOwn(out, key, item)
    else if (!(item === null && field.dropNull)) setOwn(out, field.key, restore(field.plan, item, defs))
  }
  return out
}

function restoreTuple(plan: Extract<Plan, { kind: 'tuple' }>, value: unknown): unknown {
  if (!isPlainObject(value)) return value
  // A list has no holes: it ends at the first position the model left out ({_1} alone is []).
  let length = 0
  while (length < plan.keys.length && Object.hasOwn(value, plan.keys[length] as string)) length++
  const items: unknown[] = plan.keys.slice(0, length).map((key) => value[key])
  const rest = plan.restKey === undefined ? undefined : value[plan.restKey]
  if (Array.isArray(rest) && length === plan.keys.length) items.push(...rest)
  return items
}

function restoreEntries(plan: Extract<Plan, { kind: 'entries' }>, value: unknown, defs: DefLookup): unknown {
  if (!Array.isArray(value)) return value
  const out: Record<string, unknown> = {}
  for (const entry of value) {
    if (!isPlainObject(entry) || !Object.hasOwn(entry, 'key')) continue
    const key = restore(plan.key, entry.key, defs)
    setOwn(out, String(key), restore(plan.value, entry.value, defs))
  }
  return out
}

function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * Whether a value has the shape of a converted branch: its type, its enum, its required keys, and
 * the same for the values of its declared properties and its items, a few levels down: a map sent
 * as entries and a real list of `{ key, value }` objects differ only there.
 */
function fits(schema: unknown, value: unknown, defs: DefLookup, depth = 0): boolean {
  if (schema === true || schema === undefined) return true
  if (!isPlainObject(schema) || depth > 8) return false
  if (typeof schema.$ref === 'string') {
    const target = defs(schema.$ref)
    return target === undefined || fits(target, value, defs, depth + 1)
  }
  if (value === null && schema.nullable === true) return true
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((branch) => fits(branch, value, defs, depth + 1))) return false
  if (schema.type !== undefined && !fitsType(schema.type, value)) return false
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => option === value)) return false
  if (typeof value === 'string' && typeof schema.format === 'string' && FORMAT_SHAPES[schema.format]?.test(value) === false) return false
  if (Object.hasOwn(schema, 'const') && schema.const !== value && typeof value !== 'object') return false
  if (isPlainObject(value) && Array.isArray(schema.required)) {
    if (!schema.required.every((key) => typeof key !== 'string' || Object.hasOwn(value, key))) return false
  }
  if (isPlainObject(value) && schema.additionalProperties === false && isPlainObject(schema.properties)) {
    const known = schema.properties
    if (!Object.keys(value).every((key) => Object.hasOwn(known, key))) return false
  }
  if (isPlainObject(value) && isPlainObject(schema.properties)) {
    const properties = schema.properties
    for (const [key, item] of Object.entries(value)) if (Object.hasOwn(properties, key) && !fits(properties[key], item, defs, depth + 1)) return false
  }
  if (Array.isArray(value) && isPlainObject(schema.items) && !value.every((item) => fits(schema.items, item, defs, depth + 1))) return false
  return true
}

/** The outline of common formats: enough to tell a date-time branch from a free string one. */
const FORMAT_SHAPES: Readonly<Record<string, RegExp>> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  time: /^\d{2}:\d{2}/,
  email: /^[^@\s]+@[^@\s]+$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  ipv4: /^\d{1,3}(\.\d{1,3}){3}$/,
}

function fitsType(type: unknown, value: unknown): boolean {
  if (Array.isArray(type)) return type.some((item) => fitsType(item, value))
  switch (typeof type === 'string' ? type.toLowerCase() : type) {
    case 'string': return typeof value === 'string'
    case 'number': return typeof value === 'number'
    case 'integer': return typeof value === 'number' && Number.isInteger(value)
    case 'boolean': return typeof value === 'boolean'
    case 'null': return value === null
    case 'array': return Array.isArray(value)
    case 'object': return isPlainObject(value)
    default: return true
  }
}

/** A def lookup for a converted document with root `$defs`. */
export function defLookup(root: JsonSchema): DefLookup {
  const defs = isPlainObject(root.$defs) ? root.$defs : {}
  return (ref) => {
    const prefix = '#/$defs/'
    if (!ref.startsWith(prefix)) return undefined
    const name = ref.slice(prefix.length).replace(/~1/g, '/').replace(/~0/g, '~')
    return Object.hasOwn(defs, name) ? defs[name] : undefined
  }
}
