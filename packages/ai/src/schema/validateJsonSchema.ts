import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { JsonSchema } from './types.ts'
import { deepEqual } from '../util/deepEqual.ts'
import { isRecord } from '../util/isRecord.ts'

type Path = (string | number)[]
type Issue = StandardSchemaV1.Issue

/** Deeper than this, a schema is taken to recurse without end. */
const MAX_DEPTH = 200

const patternCache = new Map<string, RegExp | null>()

/**
 * Validates a value against a plain JSON Schema (draft-07, 2020-12, and OpenAPI 3.0's `nullable`).
 * An interpreter, not a compiler: it never calls `eval` or `new Function`, so it runs under a
 * strict Content-Security-Policy. Local `$ref`s are resolved against `root`.
 */
export function validateJsonSchema(schema: JsonSchema | boolean, value: unknown): Issue[] {
  const issues: Issue[] = []
  check(schema, value, [], { root: schema, issues, depth: 0 })
  return issues
}

interface State {
  readonly root: JsonSchema | boolean
  readonly issues: Issue[]
  depth: number
}

function check(schema: unknown, value: unknown, path: Path, state: State): void {
  if (schema === true || schema === undefined) return
  if (schema === false) return report(state, path, 'No value is allowed here')
  if (typeof schema !== 'object' || schema === null) return
  if (state.depth > MAX_DEPTH) return report(state, path, 'Schema nests too deeply (recursive $ref?)')
  state.depth++
  try {
    checkKeywords(schema as JsonSchema, value, path, state)
  } finally {
    state.depth--
  }
}

function checkKeywords(s: JsonSchema, value: unknown, path: Path, state: State): void {
  if (typeof s.$ref === 'string') {
    const target = resolveRef(state.root, s.$ref)
    if (target === undefined) return report(state, path, `Schema reference ${s.$ref} does not resolve`)
    check(target, value, path, state)
  }

  if (value === null && s.nullable === true) return

  if (s.type !== undefined && !matchesType(s.type, value)) {
    return report(state, path, `Expected ${describeType(s.type)}, received ${typeOfValue(value)}`)
  }
  if (Array.isArray(s.enum) && !s.enum.some((option) => deepEqual(option, value))) {
    report(state, path, `Expected one of ${s.enum.map((o) => JSON.stringify(o)).join(', ')}`)
  }
  if ('const' in s && !deepEqual(s.const, value)) {
    report(state, path, `Expected ${JSON.stringify(s.const)}`)
  }

  if (typeof value === 'string') checkString(s, value, path, state)
  else if (typeof value === 'number') checkNumber(s, value, path, state)
  else if (Array.isArray(value)) checkArray(s, value, path, state)
  else if (isRecord(value)) checkObject(s, value, path, state)

  if (Array.isArray(s.allOf)) for (const branch of s.allOf) check(branch, value, path, state)
  if (Array.isArray(s.anyOf) && !s.anyOf.some((branch) => passes(branch, value, state))) {
    reportBestBranch(s.anyOf, value, path, state, 'any')
  }
  if (Array.isArray(s.oneOf)) {
    const matching = s.oneOf.filter((branch) => passes(branch, value, state)).length
    if (matching === 0) reportBestBranch(s.oneOf, value, path, state, 'one')
    else if (matching > 1) report(state, path, `Matches ${matching} alternatives, expected exactly one`)
  }
  if (s.not !== undefined && passes(s.not, value, state)) report(state, path, 'Matches a schema it must not match')
  if (s.if !== undefined) {
    const branch = passes(s.if, value, state) ? s.then : s.else
    if (branch !== undefined) check(branch, value, path, state)
  }
}

function checkString(s: JsonSchema, value: string, path: Path, state: State): void {
  const length = [...value].length
  if (typeof s.minLength === 'number' && length < s.minLength) {
    report(state, path, `Expected at least ${s.minLength} characters, received ${length}`)
  }
  if (typeof s.maxLength === 'number' && length > s.maxLength) {
    report(state, path, `Expected at most ${s.maxLength} characters, received ${length}`)
  }
  if (typeof s.pattern === 'string') {
    const regex = compilePattern(s.pattern)
    if (regex && !regex.test(value)) report(state, path, `Expected to match the pattern ${s.pattern}`)
  }
  if (typeof s.format === 'string') {
    const test = FORMATS[s.format]
    if (test && !test(value)) report(state, path, `Expected a valid ${s.format}`)
  }
}

function checkNumber(s: JsonSchema, value: number, path: Path, state: State): void {
  // OpenAPI 3.0 (draft-04) spells exclusive bounds as booleans beside minimum/maximum.
  const exclusiveMin = s.exclusiveMinimum === true ? s.minimum : s.exclusiveMinimum
  const exclusiveMax = s.exclusiveMaximum === true ? s.maximum : s.exclusiveMaximum
  if (typeof s.minimum === 'number' && s.exclusiveMinimum !== true && value < s.minimum) {
    report(state, path, `Expected a number >= ${s.minimum}, received ${value}`)
  }
  if (typeof s.maximum === 'number' && s.exclusiveMaximum !== true && value > s.maximum) {
    report(state, path, `Expected a number <= ${s.maximum}, received ${value}`)
  }
  if (typeof exclusiveMin === 'number' && value <= exclusiveMin) {
    report(state, path, `Expected a number > ${exclusiveMin}, received ${value}`)
  }
  if (typeof exclusiveMax === 'number' && value >= exclusiveMax) {
    report(state, path, `Expected a number < ${exclusiveMax}, received ${value}`)
  }
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
    const quotient = value / s.multipleOf
    if (Math.abs(quotient - Math.round(quotient)) > 1e-9) {
      report(state, path, `Expected a multiple of ${s.multipleOf}, received ${value}`)
    }
  }
}

function checkArray(s: JsonSchema, value: unknown[], path: Path, state: State): void {
  if (typeof s.minItems === 'number' && value.length < s.minItems) {
    report(state, path, `Expected at least ${s.minItems} items, received ${value.length}`)
  }
  if (typeof s.maxItems === 'number' && value.length > s.maxItems) {
    report(state, path, `Expected at most ${s.maxItems} items, received ${value.length}`)
  }
  // 2020-12 tuples use prefixItems + items; draft-07 tuples use an items array + additionalItems.
  const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined
  const rest = Array.isArray(s.items) ? s.additionalItems : s.items
  value.forEach((item, index) => {
    const itemSchema = prefix && index < prefix.length ? prefix[index] : rest
    if (prefix && index >= prefix.length && itemSchema === false) {
      report(state, [...path, index], `Expected at most ${prefix.length} items`)
    } else {
      check(itemSchema, item, [...path, index], state)
    }
  })
  if (s.uniqueItems === true) {
    for (let i = 1; i < value.length; i++) {
      if (value.slice(0, i).some((earlier) => deepEqual(earlier, value[i]))) {
        report(state, [...path, i], 'Duplicate item; items must be unique')
        break
      }
    }
  }
  if (s.contains !== undefined && !value.some((item) => passes(s.contains, item, state))) {
    report(state, path, 'No item matches the required schema (contains)')
  }
}

function checkObject(s: JsonSchema, value: Record<string, unknown>, path: Path, state: State): void {
  const keys = Object.keys(value)
  if (typeof s.minProperties === 'number' && keys.length < s.minProperties) {
    report(state, path, `Expected at least ${s.minProperties} properties`)
  }
  if (typeof s.maxProperties === 'number' && keys.length > s.maxProperties) {
    report(state, path, `Expected at most ${s.maxProperties} properties`)
  }
  if (Array.isArray(s.required)) {
    for (const key of s.required) {
      if (typeof key === 'string' && !Object.hasOwn(value, key)) report(state, [...path, key], 'Required')
    }
  }
  if (isRecord(s.dependentRequired)) {
    for (const [key, needed] of Object.entries(s.dependentRequired)) {
      if (!Object.hasOwn(value, key) || !Array.isArray(needed)) continue
      for (const other of needed) {
        if (!Object.hasOwn(value, other)) report(state, [...path, other], `Required when "${key}" is present`)
      }
    }
  }
  const properties = isRecord(s.properties) ? s.properties : {}
  const patterns = isRecord(s.patternProperties) ? Object.entries(s.patternProperties) : []
  for (const key of keys) {
    const childPath = [...path, key]
    if (s.propertyNames !== undefined) {
      const before = state.issues.length
      check(s.propertyNames, key, childPath, state)
      for (const issue of state.issues.splice(before)) {
        report(state, childPath, `Property name is not allowed: ${issue.message}`)
      }
    }
    let matched = false
    if (Object.hasOwn(properties, key)) {
      matched = true
      check(properties[key], value[key], childPath, state)
    }
    for (const [pattern, schema] of patterns) {
      if (compilePattern(pattern)?.test(key)) {
        matched = true
        check(schema, value[key], childPath, state)
      }
    }
    if (matched) continue
    if (s.additionalProperties === false) report(state, childPath, `Unknown property "${key}"`)
    else check(s.additionalProperties, value[key], childPath, state)
  }
}

/** Reports the issues of the branch that got furthest, so the message stays specific. */
function reportBestBranch(branches: unknown[], value: unknown, path: Path, state: State, quantifier: string): void {
  let best: Issue[] | undefined
  for (const branch of branches) {
    const branchIssues = collect(branch, value, path, state)
    if (!best || branchIssues.length < best.length) best = branchIssues
  }
  if (branches.length === 1 && best) state.issues.push(...best)
  else report(state, path, `Does not match ${quantifier} of the ${branches.length} allowed alternatives${best?.[0] ? ` (closest: ${best[0].message})` : ''}`)
}

function passes(schema: unknown, value: unknown, state: State): boolean {
  return collect(schema, value, [], state).length === 0
}

function collect(schema: unknown, value: unknown, path: Path, state: State): Issue[] {
  const before = state.issues.length
  check(schema, value, path, state)
  return state.issues.splice(before)
}

function report(state: State, path: Path, message: string): void {
  state.issues.push({ message, path: [...path] })
}

/**
 * Resolves a local reference: `#`, a JSON Pointer (`#/$defs/x`, `#/definitions/x`), a plain-name
 * fragment (`#name`, for `$anchor: "name"` or draft-07's `$id: "#name"`), or the `$id` of an
 * embedded schema, optionally followed by a fragment. Nothing is fetched.
 */
function resolveRef(root: unknown, ref: string): unknown {
  const hash = ref.indexOf('#')
  const base = hash === -1 ? ref : ref.slice(0, hash)
  const fragment = hash === -1 ? '' : decodeURIComponent(ref.slice(hash + 1))
  const document = base === '' ? root : indexOf(root).ids.get(base)
  if (document === undefined) return undefined
  if (fragment === '') return document
  if (!fragment.startsWith('/')) return indexOf(document).anchors.get(fragment)
  let node: unknown = document
  for (const raw of fragment.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return undefined
    node = (node as Record<string, unknown>)[token]
  }
  return node
}

interface SchemaIndex {
  readonly anchors: Map<string, unknown>
  readonly ids: Map<string, unknown>
}

const indexes = new WeakMap<object, SchemaIndex>()

/** Anchors and embedded `$id`s of a schema, found once per schema object. */
function indexOf(root: unknown): SchemaIndex {
  const empty: SchemaIndex = { anchors: new Map(), ids: new Map() }
  if (typeof root !== 'object' || root === null) return empty
  let index = indexes.get(root)
  if (index) return index
  index = empty
  const rootId = typeof (root as JsonSchema).$id === 'string' ? ((root as JsonSchema).$id as string) : undefined
  const seen = new Set<unknown>()
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return
    seen.add(node)
    if (!Array.isArray(node)) {
      const { $anchor, $id } = node as JsonSchema
      if (typeof $anchor === 'string') index!.anchors.set($anchor, node)
      if (typeof $id === 'string') {
        if ($id.startsWith('#')) index!.anchors.set($id.slice(1), node)
        else {
          index!.ids.set($id, node)
          const absolute = absoluteId($id, rootId)
          if (absolute) index!.ids.set(absolute, node)
        }
      }
    }
    for (const child of Object.values(node)) visit(child)
  }
  visit(root)
  indexes.set(root, index)
  return index
}

function absoluteId(id: string, base: string | undefined): string | undefined {
  try {
    return new URL(id, base).href
  } catch {
    return undefined
  }
}

function matchesType(type: unknown, value: unknown): boolean {
  if (Array.isArray(type)) return type.some((t) => matchesType(t, value))
  switch (type) {
    case 'string': return typeof value === 'string'
    case 'number': return typeof value === 'number' && Number.isFinite(value)
    case 'integer': return typeof value === 'number' && Number.isInteger(value)
    case 'boolean': return typeof value === 'boolean'
    case 'null': return value === null
    case 'array': return Array.isArray(value)
    case 'object': return isRecord(value)
    default: return true
  }
}

function describeType(type: unknown): string {
  return Array.isArray(type) ? type.join(' or ') : String(type)
}

function typeOfValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer'
  return typeof value
}

function compilePattern(pattern: string): RegExp | null {
  let regex = patternCache.get(pattern)
  if (regex === undefined) {
    try {
      regex = new RegExp(pattern, 'u')
    } catch {
      regex = null // an ECMA-262-incompatible pattern is ignored rather than failing every call
    }
    patternCache.set(pattern, regex)
  }
  return regex
}

const FORMATS: Record<string, (value: string) => boolean> = {
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  time: (v) => /^\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/.test(v),
  email: (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v),
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  uri: (v) => /^[a-z][a-z0-9+.-]*:/i.test(v),
  ipv4: (v) => /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(v),
}
