/**
 * Values from a JSON Schema (or Gemini's OpenAPI-style Schema), for property tests. Close enough
 * to the schema that most samples are valid; tests filter with the validator for the rest.
 */
import * as fc from 'fast-check'

type Schema = Record<string, unknown>

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value)

const MAX_DEPTH = 5
const MAX_ITEMS = 3

/** Valid examples per format, so generated strings pass format checks. */
const FORMAT_EXAMPLES: Record<string, readonly string[]> = {
  'date-time': ['2024-01-02T03:04:05Z', '2025-12-31T23:59:59.5+02:00'],
  date: ['2024-01-02', '1999-12-31'],
  time: ['03:04:05Z', '23:59:59'],
  email: ['a@example.com', 'first.last@example.org'],
  uuid: ['123e4567-e89b-12d3-a456-426614174000'],
  uri: ['https://example.com/a', 'urn:isbn:0451450523'],
  ipv4: ['127.0.0.1', '10.0.0.255'],
  ipv6: ['::1'],
  hostname: ['example.com'],
  duration: ['P1D', 'PT5M'],
}

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -100, max: 100 }),
  fc.string({ maxLength: 8 }),
  fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
)

export function arbitraryFor(schema: unknown, root: unknown = schema, depth = 0): fc.Arbitrary<unknown> {
  if (schema === true || schema === undefined) return anyJson
  if (!isObject(schema)) return fc.constant(null)
  if (typeof schema.$ref === 'string') return refArbitrary(schema.$ref, root, depth)
  if (schema.nullable === true && depth > MAX_DEPTH) return fc.constant(null)
  const base = shapeArbitrary(schema, root, depth)
  return schema.nullable === true ? fc.oneof(fc.constant(null), base) : base
}

function refArbitrary(ref: string, root: unknown, depth: number): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH * 2) return fc.constant(null) // a recursion without a way out; filtered as invalid
  let node: unknown = root
  for (const token of ref.replace(/^#/, '').split('/').slice(1)) node = isObject(node) ? node[token.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined
  return arbitraryFor(node, root, depth + 1)
}

function shapeArbitrary(schema: Schema, root: unknown, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum)
  if ('const' in schema) return fc.constant(schema.const)
  const union = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined
  if (Array.isArray(union)) {
    if (depth > MAX_DEPTH && union.some((branch) => isObject(branch) && branch.type === 'null')) return fc.constant(null)
    const rest = Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'anyOf' && key !== 'oneOf'))
    return fc.oneof(...union.map((branch) => arbitraryFor(isObject(branch) && !('$ref' in branch) ? { ...rest, ...branch } : branch, root, depth)))
  }
  if (Array.isArray(schema.allOf)) return arbitraryFor(mergeBranches([{ ...schema, allOf: undefined }, ...schema.allOf], root), root, depth)
  const type = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? inferType(schema) : [schema.type]
  if (type.length === 0) return anyJson
  if (depth > MAX_DEPTH && type.includes('null')) return fc.constant(null)
  return fc.oneof(...type.map((t) => typedArbitrary(String(t).toLowerCase(), schema, root, depth)))
}

/** A rough intersection of `allOf` branches: enough to generate candidates (the validator filters). */
function mergeBranches(branches: readonly unknown[], root: unknown): Schema {
  const out: Schema = {}
  for (const raw of branches) {
    let branch = raw
    for (let hops = 0; isObject(branch) && typeof branch.$ref === 'string' && hops < 8; hops++) {
      let node: unknown = root
      for (const token of branch.$ref.replace(/^#/, '').split('/').slice(1)) node = isObject(node) ? node[token] : undefined
      branch = node
    }
    if (!isObject(branch)) continue
    const nested = Array.isArray(branch.allOf) ? mergeBranches([{ ...branch, allOf: undefined }, ...branch.allOf], root) : branch
    for (const [key, value] of Object.entries(nested)) {
      if (value === undefined) continue
      if (key === 'properties' && isObject(value)) out.properties = { ...(out.properties as Schema | undefined), ...value }
      else if (key === 'required' && Array.isArray(value)) out.required = [...((out.required as unknown[] | undefined) ?? []), ...value]
      else if (!(key in out)) out[key] = value
    }
  }
  return out
}

function inferType(schema: Schema): string[] {
  if ('properties' in schema || 'additionalProperties' in schema || 'required' in schema) return ['object']
  if ('items' in schema || 'prefixItems' in schema) return ['array']
  return []
}

function typedArbitrary(type: string, schema: Schema, root: unknown, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null': return fc.constant(null)
    case 'boolean': return fc.boolean()
    case 'string': return stringArbitrary(schema)
    case 'integer': return fc.integer({ min: lower(schema, true) ?? -1000, max: upper(schema, true) ?? 1000 })
    case 'number': return fc.oneof(
      fc.integer({ min: Math.ceil(lower(schema, false) ?? -1000), max: Math.floor(upper(schema, false) ?? 1000) }),
      fc.double({ min: lower(schema, false) ?? -1000, max: upper(schema, false) ?? 1000, noNaN: true, noDefaultInfinity: true, minExcluded: schema.exclusiveMinimum !== undefined, maxExcluded: schema.exclusiveMaximum !== undefined }),
    )
    case 'array': return arrayArbitrary(schema, root, depth)
    case 'object': return objectArbitrary(schema, root, depth)
    default: return anyJson
  }
}

function lower(schema: Schema, integer: boolean): number | undefined {
  const min = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + (integer ? 1 : 0) : typeof schema.minimum === 'number' ? schema.minimum : undefined
  return min === undefined ? undefined : integer ? Math.ceil(min) : min
}

function upper(schema: Schema, integer: boolean): number | undefined {
  const max = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - (integer ? 1 : 0) : typeof schema.maximum === 'number' ? schema.maximum : undefined
  return max === undefined ? undefined : integer ? Math.floor(max) : max
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const examples = typeof schema.format === 'string' ? FORMAT_EXAMPLES[schema.format] : undefined
  if (examples) return fc.constantFrom(...examples)
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern, 'u'))
    } catch {
      // fall through to plain strings
    }
  }
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0
  const maxLength = typeof schema.maxLength === 'number' ? Math.min(schema.maxLength, minLength + 12) : minLength + 12
  return fc.string({ minLength, maxLength })
}

function arrayArbitrary(schema: Schema, root: unknown, depth: number): fc.Arbitrary<unknown> {
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0
  const maxItems = Math.max(minItems, Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : MAX_ITEMS, depth >= MAX_DEPTH ? minItems : MAX_ITEMS))
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined
  if (prefix) {
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items
    const head = fc.tuple(...prefix.map((item) => arbitraryFor(item, root, depth + 1)))
    if (rest === false || rest === undefined) return head
    return fc.tuple(head, fc.array(arbitraryFor(rest, root, depth + 1), { maxLength: 2 })).map(([h, t]) => [...h, ...t])
  }
  if (maxItems === 0) return fc.constant([])
  const items = arbitraryFor(schema.items, root, depth + 1)
  return fc.array(items, { minLength: minItems, maxLength: maxItems })
}

function objectArbitrary(schema: Schema, root: unknown, depth: number): fc.Arbitrary<unknown> {
  const properties = isObject(schema.properties) ? schema.properties : {}
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === 'string') : [])
  const deep = depth >= MAX_DEPTH
  // Deep down only what is required, so recursive schemas end.
  const keys = [...new Set([...Object.keys(properties), ...required])].filter((key) => !deep || required.has(key))
  const model: Record<string, fc.Arbitrary<unknown>> = {}
  for (const key of keys) model[key] = arbitraryFor(properties[key], root, depth + 1)
  const record = fc.record(model, { requiredKeys: keys.filter((key) => required.has(key)) })
  const extra = schema.additionalProperties
  if (keys.length === 0 && isObject(extra)) {
    return fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), arbitraryFor(extra, root, depth + 1), { maxKeys: deep ? 0 : 2 })
  }
  if (keys.length === 0 && extra !== false && schema.properties === undefined) {
    return fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), anyJson, { maxKeys: deep ? 0 : 2 })
  }
  return record
}

/** Gemini's Schema as JSON Schema, so the shared validator can check values against it. */
export function openApiToJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openApiToJsonSchema)
  if (!isObject(schema)) return schema
  const out: Schema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase()
    else if (key === 'format' && value === 'enum') continue
    else if (/^(min|max)(Items|Length|Properties)$/.test(key) && typeof value === 'string') out[key] = Number(value) // int64 as a string
    else if (key === 'properties' && isObject(value)) out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, openApiToJsonSchema(v)]))
    else if (key === 'items' || key === 'anyOf') out[key] = openApiToJsonSchema(value)
    else out[key] = value
  }
  return out
}
