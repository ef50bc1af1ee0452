import type { StandardSchemaV1 } from '@standard-schema/spec'
import { Validator, type OutputUnit, type SchemaDraft } from '@cfworker/json-schema'
import type { JsonSchema } from './types.ts'
import { isRecord } from '../util/isRecord.ts'

// Plain JSON Schema validation is @cfworker/json-schema's: eval-free (it runs under a strict
// Content-Security-Policy and on Workers), and at the level of the reference validators on the
// official test suite (test/schema/jsonSchemaTestSuite.test.ts prints the score). What is ours is
// the report: one issue per thing to fix, at the value's path, in the words the rest of Toolgate
// uses, instead of the library's trail of "a subschema had errors".

type Path = (string | number)[]
type Issue = StandardSchemaV1.Issue

/**
 * Validates a value against a plain JSON Schema: 2020-12 unless `$schema` names another draft
 * (draft-07 and 2019-09; a schema with draft-07's array `items`, `additionalItems` or
 * `dependencies` and no `$schema` is read as draft-07), plus OpenAPI 3.0's `nullable`.
 */
export function validateJsonSchema(schema: JsonSchema | boolean, value: unknown): Issue[] {
  if (schema === true) return []
  if (schema === false) return [{ message: 'No value is allowed here', path: [] }]
  let errors: readonly OutputUnit[]
  try {
    errors = validatorFor(schema).validate(value).errors
  } catch (error) {
    // The library resolves references lazily and recurses without a bound: both surface here.
    const unresolved = error instanceof Error ? /Unresolved \$ref "([^"]*)"/.exec(error.message) : null
    if (unresolved) return [{ message: `Schema reference ${unresolved[1]} does not resolve`, path: [] }]
    if (error instanceof RangeError) return [{ message: 'Schema nests too deeply (recursive $ref?)', path: [] }]
    throw error
  }
  return issuesOf(errors, value, schema)
}

const validators = new WeakMap<object, Validator>()

function validatorFor(schema: JsonSchema): Validator {
  let validator = validators.get(schema)
  if (!validator) {
    // A copy: the library marks the schema objects it indexes, and the app's may be frozen or shared.
    // Format assertion stays on (the library's default): `format: email` is a promise the model must keep.
    validator = new Validator(normalized(schema) as never, draftOf(schema), false)
    validators.set(schema, validator)
  }
  return validator
}

/** The draft a schema is read in (see `validateJsonSchema`); the meta-schema check reads it the same way. */
export function draftOf(schema: JsonSchema): SchemaDraft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : ''
  if (declared.includes('draft-04')) return '4'
  if (declared.includes('draft-07') || declared.includes('draft-06')) return '7'
  if (declared.includes('2019-09')) return '2019-09'
  if (declared.includes('2020-12')) return '2020-12'
  return usesDraft7(schema, 0) ? '7' : '2020-12'
}

function usesDraft7(node: unknown, depth: number): boolean {
  if (!isRecord(node) || depth > 64) return Array.isArray(node) && node.some((child) => usesDraft7(child, depth + 1))
  if (Array.isArray(node.items) || 'additionalItems' in node || isRecord(node.dependencies)) return true
  return Object.values(node).some((child) => typeof child === 'object' && child !== null && usesDraft7(child, depth + 1))
}

/**
 * A copy the library can read as the schema means it: OpenAPI 3.0's `nullable: true` (Gemini's
 * schemas) adds `null` to the types and the enum, and draft-04's boolean `exclusiveMinimum` /
 * `exclusiveMaximum` beside `minimum` / `maximum` become the numeric bounds of later drafts.
 */
export function normalized(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalized)
  if (!isRecord(node)) return node
  // fromEntries, not assignment: a property named `__proto__` stays a property.
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(node).map(([key, child]) => [key, key === 'enum' || key === 'const' || key === 'default' || key === 'examples' ? child : normalized(child)]),
  )
  if (node.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null']
    else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null']
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null]
  }
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof out[exclusive] !== 'boolean') continue
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound]
      delete out[bound]
    } else delete out[exclusive]
  }
  return out
}

/** Keywords whose failure is reported whole: what failed inside their branches would only confuse. */
const WHOLE: ReadonlySet<string> = new Set(['anyOf', 'oneOf', 'not', 'contains', 'dependentSchemas'])
/** Keywords that reject extra items or properties with a `false` schema, reported per extra. */
const EXTRAS: ReadonlySet<string> = new Set(['items', 'additionalItems', 'unevaluatedItems', 'additionalProperties', 'unevaluatedProperties'])

function issuesOf(errors: readonly OutputUnit[], value: unknown, root: JsonSchema): Issue[] {
  const under = (child: OutputUnit, parent: OutputUnit) => child !== parent && child.keywordLocation.startsWith(`${parent.keywordLocation}/`)
  // The library reports a `false` schema at the instance's location, not under the keyword that holds it.
  const extraOf = (error: OutputUnit) =>
    error.keyword === 'false' ? errors.find((parent) => EXTRAS.has(parent.keyword) && error.instanceLocation.startsWith(`${parent.instanceLocation}/`)) : undefined
  const issues: Issue[] = []
  const add = (issue: Issue) => {
    if (!issues.some((seen) => seen.message === issue.message && samePath(seen.path, issue.path))) issues.push(issue)
  }
  for (const error of errors) {
    if (errors.some((parent) => (WHOLE.has(parent.keyword) || parent.keyword === 'propertyNames') && under(error, parent))) continue
    if (error.keyword === 'propertyNames') {
      for (const child of errors.filter((other) => under(other, error))) {
        const path = pathOf(child.instanceLocation, value)
        add({ message: `Property name is not allowed: ${issueOf(child, value, root, path.at(-1)).message}`, path })
      }
      continue
    }
    const extra = extraOf(error)
    if (extra) {
      add(extraIssue(extra, error, value, root))
      continue
    }
    if (WHOLE.has(error.keyword)) {
      add(issueOf(error, value, root))
      continue
    }
    // An applicator (`properties`, `items`, `$ref`, `allOf`, ...) whose failure is told by what failed inside it;
    // `if` is told by its `then` or `else`, which sit beside it.
    const branches = error.keyword === 'if' ? ['then', 'else'].map((branch) => `${error.keywordLocation.slice(0, -'if'.length)}${branch}/`) : []
    const rejectsExtras = EXTRAS.has(error.keyword) && errors.some((other) => extraOf(other) !== undefined && other.instanceLocation.startsWith(`${error.instanceLocation}/`))
    if (rejectsExtras || errors.some((other) => under(other, error) || branches.some((branch) => other.keywordLocation.startsWith(branch)))) continue
    add(issueOf(error, value, root))
  }
  return issues
}

/** An item or property a `false` schema rejects: too many items, or an unknown property. */
function extraIssue(parent: OutputUnit, error: OutputUnit, value: unknown, root: JsonSchema): Issue {
  const path = pathOf(error.instanceLocation, value)
  if (parent.keyword === 'additionalProperties' || parent.keyword === 'unevaluatedProperties') return { message: `Unknown property "${String(path.at(-1))}"`, path }
  const node = schemaAt(root, parent.keywordLocation)
  const tuple = Array.isArray(node?.prefixItems) ? node.prefixItems : Array.isArray(node?.items) ? node.items : undefined
  return { message: tuple ? `Expected at most ${tuple.length} items` : 'No more items are allowed here', path }
}

/** One failed keyword in Toolgate's words; `instance` overrides the value checked (a property's name). */
function issueOf(error: OutputUnit, value: unknown, root: JsonSchema, instance: unknown = at(value, pathOf(error.instanceLocation, value))): Issue {
  const path = pathOf(error.instanceLocation, value)
  const node = schemaAt(root, error.keywordLocation)
  const text = error.error.replace(/\.$/, '')
  // Where the keyword's own value cannot be found (a reference to another resource), the library's words.
  const expectedType = /Expected "([^"]*)"/.exec(error.error)?.[1]
  if (node === undefined && error.keyword === 'type' && expectedType) return { message: `Expected ${expectedType.split('", "').join(' or ')}, received ${typeOfValue(instance)}`, path }
  if (node === undefined && error.keyword !== 'required' && error.keyword !== 'additionalProperties' && error.keyword !== 'uniqueItems') return { message: text, path }
  const keyword = node?.[error.keyword]
  switch (error.keyword) {
    case 'required': {
      const name = quoted(error.error)
      return name === undefined ? { message: text, path } : { message: 'Required', path: [...path, name] }
    }
    case 'additionalProperties': {
      const name = quoted(error.error)
      if (name === undefined) return { message: text, path }
      return { message: keyword === false ? `Unknown property "${name}"` : `Property "${name}" is not allowed by \`additionalProperties\``, path: [...path, name] }
    }
    case 'type':
      return { message: `Expected ${describeType(keyword ?? node?.type)}, received ${typeOfValue(instance)}`, path }
    case 'enum':
      return { message: Array.isArray(keyword) ? `Expected one of ${keyword.map((option) => JSON.stringify(option)).join(', ')}` : text, path }
    case 'const':
      return { message: node && 'const' in node ? `Expected ${JSON.stringify(node.const)}` : text, path }
    case 'minLength':
      return { message: `Expected at least ${String(keyword)} characters, received ${lengthOf(instance)}`, path }
    case 'maxLength':
      return { message: `Expected at most ${String(keyword)} characters, received ${lengthOf(instance)}`, path }
    case 'pattern':
      return { message: `Expected to match the pattern ${String(keyword)}`, path }
    case 'format':
      return { message: `Expected a valid ${String(keyword)}`, path }
    case 'minimum':
      return { message: `Expected a number >= ${String(keyword)}, received ${String(instance)}`, path }
    case 'maximum':
      return { message: `Expected a number <= ${String(keyword)}, received ${String(instance)}`, path }
    case 'exclusiveMinimum':
      return { message: `Expected a number > ${String(typeof keyword === 'number' ? keyword : node?.minimum)}, received ${String(instance)}`, path }
    case 'exclusiveMaximum':
      return { message: `Expected a number < ${String(typeof keyword === 'number' ? keyword : node?.maximum)}, received ${String(instance)}`, path }
    case 'multipleOf':
      return { message: `Expected a multiple of ${String(keyword)}, received ${String(instance)}`, path }
    case 'minItems':
      return { message: `Expected at least ${String(keyword)} items, received ${Array.isArray(instance) ? instance.length : '?'}`, path }
    case 'maxItems':
      return { message: `Expected at most ${String(keyword)} items, received ${Array.isArray(instance) ? instance.length : '?'}`, path }
    case 'uniqueItems': {
      const duplicate = /indexes \d+ and (\d+)/.exec(error.error)
      return { message: 'Duplicate item; items must be unique', path: duplicate ? [...path, Number(duplicate[1])] : path }
    }
    case 'minProperties':
      return { message: `Expected at least ${String(keyword)} properties`, path }
    case 'maxProperties':
      return { message: `Expected at most ${String(keyword)} properties`, path }
    case 'anyOf':
    case 'oneOf': {
      const matches = Number(/\((\d+) matches\)/.exec(error.error)?.[1] ?? 0)
      if (matches > 1) return { message: `Matches ${matches} alternatives, expected exactly one`, path }
      return { message: `Does not match any of the ${Array.isArray(keyword) ? `${keyword.length} ` : ''}allowed alternatives`, path }
    }
    case 'not':
      return { message: 'Matches a schema it must not match', path }
    case 'contains':
      return { message: 'No item matches the required schema (contains)', path }
    case 'false':
      return { message: 'No value is allowed here', path }
    case 'dependentRequired':
    case 'dependencies': {
      const names = /has "(.*)" but does not have "(.*)"/.exec(error.error)
      return names ? { message: `Required when "${names[1]}" is present`, path: [...path, names[2]!] } : { message: text, path }
    }
    default:
      return { message: text, path }
  }
}

/** `#/a/0` as `['a', 0]`: array indexes as numbers (as Standard Schema issues have them), keys as strings. */
function pathOf(location: string, value: unknown): Path {
  const path: Path = []
  let current = value
  for (const raw of location.replace(/^#\/?/, '').split('/')) {
    if (raw === '') continue
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    const segment = Array.isArray(current) ? Number(key) : key
    path.push(segment)
    current = isRecord(current) || Array.isArray(current) ? (current as Record<string | number, unknown>)[segment] : undefined
  }
  return path
}

function at(value: unknown, path: Path): unknown {
  let current = value
  for (const key of path) current = isRecord(current) || Array.isArray(current) ? (current as Record<string | number, unknown>)[key] : undefined
  return current
}

/**
 * The schema object a keyword sits in, found along the keyword's location from the root, following
 * local `$ref`s (`#/...`) on the way. `undefined` when the way goes elsewhere: the library's own
 * text is used then.
 */
function schemaAt(root: JsonSchema, keywordLocation: string): Record<string, unknown> | undefined {
  const segments = keywordLocation.replace(/^#\/?/, '').split('/').slice(0, -1)
  let node: unknown = root
  for (const raw of segments) {
    if (raw === '') continue
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    if (key === '$ref' && isRecord(node) && typeof node.$ref === 'string') node = local(root, node.$ref)
    else node = isRecord(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined
    if (node === undefined) return undefined
  }
  return isRecord(node) ? node : undefined
}

function local(root: JsonSchema, ref: string): unknown {
  if (ref === '#') return root
  if (/^#[A-Za-z_][\w.-]*$/.test(ref)) return anchored(root, ref.slice(1), 0)
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    node = isRecord(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined
  }
  return node
}

/** The subschema named `name` by `$anchor` (2019-09 on) or a plain-name `$id` (draft-07). */
function anchored(node: unknown, name: string, depth: number): unknown {
  if (!isRecord(node) || depth > 64) return Array.isArray(node) ? node.map((child) => anchored(child, name, depth + 1)).find(Boolean) : undefined
  if (node.$anchor === name || node.$id === `#${name}`) return node
  for (const child of Object.values(node)) {
    const found = typeof child === 'object' && child !== null ? anchored(child, name, depth + 1) : undefined
    if (found) return found
  }
  return undefined
}

function quoted(text: string): string | undefined {
  return /"(.*)"[^"]*$/.exec(text)?.[1]
}

function samePath(a: StandardSchemaV1.Issue['path'], b: StandardSchemaV1.Issue['path']): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? [])
}

function describeType(type: unknown): string {
  return Array.isArray(type) ? type.join(' or ') : String(type)
}

function typeOfValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

function lengthOf(value: unknown): number | string {
  return typeof value === 'string' ? [...value].length : '?'
}
