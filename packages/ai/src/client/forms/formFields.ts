import type { JsonSchema } from '../../schema/types.ts'
import { deepEqual } from '../../util/deepEqual.ts'
import { isRecord } from '../../util/isRecord.ts'

// The fields of an approval form: what a tool's input JSON Schema asks for, as the server sends it
// with the approval. `ApprovalForm` is their one user; the app reads them in its state.

/** How a field is edited. `json`: a schema part no other kind fits, edited as JSON text (never dropped). */
export type FieldKind = 'text' | 'number' | 'integer' | 'boolean' | 'enum' | 'object' | 'array' | 'json'

export type FieldPath = readonly (string | number)[]

export interface FormField {
  readonly kind: FieldKind
  readonly path: FieldPath
  /** The path as text (`to`, `items[0].name`): unique in the form, for ids and errors. */
  readonly name: string
  /** The schema's `title`, else the property name. */
  readonly label: string
  readonly description?: string | undefined
  readonly required: boolean
  /** `null` is a valid value (`type: [..., 'null']`, or `anyOf` with `null`). */
  readonly nullable: boolean
  /** `format` (`date`, `date-time`, `email`, `uri`, ...), a hint for the input type. */
  readonly format?: string | undefined
  /** For `enum`: the allowed values. */
  readonly options?: readonly unknown[] | undefined
  readonly minimum?: number | undefined
  readonly maximum?: number | undefined
  readonly minLength?: number | undefined
  readonly maxLength?: number | undefined
  readonly pattern?: string | undefined
  /** For `object`: its properties. For `array`: one field per element. */
  readonly fields?: readonly FormField[] | undefined
  /** The field's own schema (for an array, new elements follow `schema.items`). */
  readonly schema: JsonSchema
}

const MAX_DEPTH = 12

/**
 * The fields of a form for `value` under `schema`. Local `$ref`s (`#/$defs/...`) are followed;
 * `anyOf`/`oneOf` with `null` make a field nullable; anything else a form cannot show (tuples,
 * maps, unions of objects, unresolvable references) becomes a `json` field.
 */
export function formFields(schema: JsonSchema | undefined, value: unknown): readonly FormField[] {
  const root = schema && resolve(schema, schema)
  if (!root || !isObjectSchema(root)) return [{ kind: 'json', path: [], name: 'arguments', label: 'arguments', required: true, nullable: false, schema: schema ?? {} }]
  return objectFields(root, schema!, value, [], 0)
}

function objectFields(schema: JsonSchema, root: JsonSchema, value: unknown, path: FieldPath, depth: number): FormField[] {
  const properties = isRecord(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {}
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
  const record = isRecord(value) ? value : {}
  const names = Object.keys(properties)
  // Values the schema does not describe stay visible and editable, as JSON.
  for (const key of Object.keys(record)) if (!(key in properties)) names.push(key)
  return names.map((key) => fieldFor(properties[key] ?? {}, root, record[key], [...path, key], required.has(key), depth + 1))
}

function fieldFor(raw: JsonSchema, root: JsonSchema, value: unknown, path: FieldPath, required: boolean, depth: number): FormField {
  const key = path[path.length - 1]!
  const { schema, nullable } = unwrapNullable(resolve(raw, root) ?? {}, root)
  const base = {
    path,
    name: pathName(path),
    label: str(schema.title) ?? String(key),
    description: str(schema.description),
    required,
    nullable,
    schema,
  }
  if (depth > MAX_DEPTH) return { ...base, kind: 'json' }
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return { ...base, kind: 'enum', options: schema.enum }
  if ('const' in schema) return { ...base, kind: 'enum', options: [schema.const] }
  switch (typeOf(schema)) {
    case 'string':
      return { ...base, kind: 'text', format: str(schema.format), minLength: num(schema.minLength), maxLength: num(schema.maxLength), pattern: str(schema.pattern) }
    case 'number':
    case 'integer':
      return {
        ...base,
        kind: typeOf(schema) === 'integer' ? 'integer' : 'number',
        minimum: num(schema.minimum) ?? num(schema.exclusiveMinimum),
        maximum: num(schema.maximum) ?? num(schema.exclusiveMaximum),
      }
    case 'boolean':
      return { ...base, kind: 'boolean' }
    case 'object':
      if (!isObjectSchema(schema)) return { ...base, kind: 'json' }
      return { ...base, kind: 'object', fields: objectFields(schema, root, value, path, depth) }
    case 'array': {
      const items = isRecord(schema.items) ? (schema.items as JsonSchema) : undefined
      if (!items || Array.isArray(schema.prefixItems)) return { ...base, kind: 'json' }
      const elements = Array.isArray(value) ? value : []
      const fields = elements.map((element, index) => fieldFor(items, root, element, [...path, index], true, depth + 1))
      return { ...base, kind: 'array', fields, minLength: num(schema.minItems), maxLength: num(schema.maxItems) }
    }
    default:
      return { ...base, kind: 'json' }
  }
}

/** An object whose properties a form can list: no maps (`additionalProperties` schemas) or pattern properties. */
function isObjectSchema(schema: JsonSchema): boolean {
  if (typeOf(schema) !== 'object') return false
  if (isRecord(schema.additionalProperties) || isRecord(schema.patternProperties)) return isRecord(schema.properties)
  return true
}

function typeOf(schema: JsonSchema): string | undefined {
  const { type } = schema
  if (typeof type === 'string') return type
  if (Array.isArray(type)) {
    const types = type.filter((t) => t !== 'null')
    return types.length === 1 ? types[0] : undefined
  }
  if (isRecord(schema.properties)) return 'object'
  return undefined
}

/** `T | null` in any of its spellings becomes `T` with `nullable`. */
function unwrapNullable(schema: JsonSchema, root: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  if (Array.isArray(schema.type) && schema.type.includes('null')) return { schema, nullable: true }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key]
    if (!Array.isArray(options)) continue
    const others = options.filter((option) => !(isRecord(option) && option.type === 'null'))
    if (others.length === 1 && others.length < options.length) {
      const { [key]: _, ...rest } = schema
      return { schema: { ...rest, ...(resolve(others[0] as JsonSchema, root) ?? {}) }, nullable: true }
    }
  }
  return { schema, nullable: false }
}

/** Follows local references (`#/$defs/x`, `#/definitions/x`), a few levels deep; `undefined` when one does not resolve. */
function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema | undefined {
  let current: JsonSchema | undefined = schema
  for (let hops = 0; current && typeof current.$ref === 'string' && hops < 8; hops++) {
    const ref = current.$ref as string
    if (!ref.startsWith('#/')) return undefined
    let target: unknown = root
    for (const segment of ref.slice(2).split('/')) target = isRecord(target) ? target[segment.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined
    const { $ref: _, ...siblings } = current
    current = isRecord(target) ? { ...(target as JsonSchema), ...siblings } : undefined
  }
  return current
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined
}

/** A path as text (`to`, `items[0].name`): a field's `name`. */
export function pathName(path: FieldPath): string {
  let out = ''
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${key}` : key
  return out
}

/** The value at `path` inside `value`; `undefined` where the path leads nowhere. */
export function valueAt(value: unknown, path: FieldPath): unknown {
  let current = value
  for (const key of path) current = isRecord(current) || Array.isArray(current) ? (current as Record<string | number, unknown>)[key] : undefined
  return current
}

/** `value` with `next` at `path`: copies along the path, shares the rest. `undefined` removes an object key. */
export function withValueAt(value: unknown, path: FieldPath, next: unknown): unknown {
  if (path.length === 0) return next
  const [key, ...rest] = path
  if (typeof key === 'number') {
    const list = Array.isArray(value) ? [...value] : []
    list[key] = withValueAt(list[key], rest, next)
    return list
  }
  const record: Record<string, unknown> = isRecord(value) ? { ...value } : {}
  const inner = withValueAt(record[key!], rest, next)
  if (inner === undefined) delete record[key!]
  else record[key!] = inner
  return record
}

/** What a field's value breaks of its own schema: the checks a form can make before the tool's schema runs. */
export function fieldProblem(field: FormField, value: unknown): string | undefined {
  if (value === undefined || value === '') return field.required && field.kind !== 'boolean' ? 'Required' : undefined
  if (value === null) return field.nullable ? undefined : 'Required'
  const { kind, minimum, maximum, minLength, maxLength, pattern, options } = field
  const expected = { text: 'string', number: 'number', integer: 'number', boolean: 'boolean' }[kind as string]
  if (expected && (typeof value !== expected || (expected === 'number' && !Number.isFinite(value)))) return `Expected a ${expected === 'string' ? 'text' : expected}`
  if (kind === 'integer' && !Number.isInteger(value)) return 'Expected a whole number'
  if (kind === 'enum' && !options!.some((option) => deepEqual(option, value))) return 'Pick one of the options'
  if (kind === 'array' && !Array.isArray(value)) return 'Expected a list'
  if (typeof value === 'number') {
    if (minimum !== undefined && value < minimum) return `At least ${minimum}`
    if (maximum !== undefined && value > maximum) return `At most ${maximum}`
  }
  // Text counts characters (not UTF-16 units); lists count items.
  const length = typeof value === 'string' ? [...value].length : Array.isArray(value) ? value.length : undefined
  const unit = kind === 'array' ? 'items' : 'characters'
  if (length !== undefined && minLength !== undefined && length < minLength) return `At least ${minLength} ${unit}`
  if (length !== undefined && maxLength !== undefined && length > maxLength) return `At most ${maxLength} ${unit}`
  if (typeof value === 'string' && pattern !== undefined && !safeTest(pattern, value)) return `Does not match ${pattern}`
  return undefined
}

function safeTest(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value)
  } catch {
    return true // a pattern JavaScript cannot read is left to the tool's schema
  }
}

/** A new array element's value by type, as JSON text so each is a fresh copy. */
const EMPTY: Record<string, string> = { string: '""', number: '0', integer: '0', boolean: 'false', array: '[]', object: '{}' }

export function emptyValueOf(schema: JsonSchema): unknown {
  return 'default' in schema ? schema.default : JSON.parse(EMPTY[typeOf(schema) ?? ''] ?? 'null')
}
