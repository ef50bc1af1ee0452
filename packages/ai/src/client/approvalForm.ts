import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { JsonSchema } from '../schema/types.ts'
import type { AnyTool } from '../tools/types.ts'
import { deepEqual } from '../util/deepEqual.ts'
import { isRecord } from '../util/isRecord.ts'

// An approval dialog's form, without a framework: the fields a tool's input JSON Schema asks for
// (as the server sends it with the approval), the values (the model's arguments, then the user's
// edits), which fields were edited, and the errors, each on its field. React binds it in
// `useApprovalForm`; any other view can use `ApprovalForm` directly.

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

export function pathName(path: FieldPath): string {
  let out = ''
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${key}` : key
  return out
}

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

/** The approval a form edits: a pending approval part, or anything with its call's id, name, arguments and schema. */
export interface FormApproval {
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
  readonly approval?: { readonly reason?: string | undefined; readonly inputSchema?: JsonSchema | undefined } | undefined
}

export interface ApprovalFormState {
  readonly fields: readonly FormField[]
  /** The arguments as edited so far. */
  readonly value: unknown
  /** Whether any field differs from the model's arguments. */
  readonly edited: boolean
  /** Field name → message. A field's error clears when it is edited. */
  readonly errors: Readonly<Record<string, string>>
  /** Text of `json`, `number` and `integer` fields as typed, while it does not parse. */
  readonly drafts: Readonly<Record<string, string>>
}

/**
 * The form of one approval: the one writer of its state. Views read `getSnapshot()` and call the
 * methods; `subscribe` fits React's `useSyncExternalStore`.
 */
export class ApprovalForm {
  readonly approval: FormApproval
  readonly #tool: AnyTool | undefined
  readonly #listeners = new Set<() => void>()
  #state: ApprovalFormState

  /** `tool`: the tool's definition, when the app has it, to check edits with its own schema. */
  constructor(approval: FormApproval, tool?: AnyTool) {
    this.approval = approval
    this.#tool = tool
    this.#state = { fields: formFields(approval.approval?.inputSchema, approval.input), value: approval.input, edited: false, errors: {}, drafts: {} }
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  readonly getSnapshot = (): ApprovalFormState => this.#state

  /** Whether the field at `path` differs from the model's argument there. */
  isEdited(path: FieldPath): boolean {
    return !deepEqual(valueAt(this.#state.value, path), valueAt(this.approval.input, path))
  }

  /** Sets a field's value (`undefined` clears an optional one). */
  setValue(path: FieldPath, next: unknown): void {
    const name = pathName(path)
    const { [name]: _error, ...errors } = this.#state.errors
    const { [name]: _draft, ...drafts } = this.#state.drafts
    this.#update(withValueAt(this.#state.value, path, next), errors, drafts)
  }

  /** Sets a field from text as typed: numbers and JSON parse, and text that does not stays a draft with an error. */
  setText(field: FormField, text: string): void {
    if (field.kind === 'text') return this.setValue(field.path, text === '' && !field.required ? undefined : text)
    if (text.trim() === '') return this.setValue(field.path, field.nullable ? null : undefined)
    let parsed: unknown
    try {
      parsed = field.kind === 'json' ? JSON.parse(text) : Number(text)
    } catch {
      // not JSON: kept as a draft below
    }
    if (parsed !== undefined && (field.kind === 'json' || Number.isFinite(parsed))) return this.setValue(field.path, parsed)
    const errors = { ...this.#state.errors, [field.name]: field.kind === 'json' ? 'Not valid JSON' : 'Expected a number' }
    this.#update(this.#state.value, errors, { ...this.#state.drafts, [field.name]: text })
  }

  /** Appends an element to an array field: the schema's `default`, else an empty value of its kind. */
  addItem(field: FormField): void {
    const list = Array.isArray(valueAt(this.#state.value, field.path)) ? (valueAt(this.#state.value, field.path) as unknown[]) : []
    this.setValue(field.path, [...list, emptyValueOf(isRecord(field.schema.items) ? (field.schema.items as JsonSchema) : {})])
  }

  removeItem(field: FormField, index: number): void {
    const list = valueAt(this.#state.value, field.path)
    if (Array.isArray(list)) this.setValue(field.path, list.filter((_, i) => i !== index))
  }

  reset(): void {
    this.#update(this.approval.input, {}, {})
  }

  /**
   * Checks the edits: each field against its schema, then the whole value against the tool's own
   * schema when the form has it. Errors land on their fields (or on `''` for the form); `true` when there are none.
   */
  async validate(): Promise<boolean> {
    const errors: Record<string, string> = {}
    for (const [name, message] of Object.entries(this.#state.errors)) if (name in this.#state.drafts) errors[name] = message
    const walk = (fields: readonly FormField[]) => {
      for (const field of fields) {
        const problem = fieldProblem(field, valueAt(this.#state.value, field.path))
        if (problem && !errors[field.name]) errors[field.name] = problem
        if (field.fields) walk(field.fields)
      }
    }
    walk(this.#state.fields)
    // The tool's own schema knows what JSON Schema could not say (formats, transforms, refinements).
    if (this.#tool?.inputSchema) {
      const result = await this.#tool.inputSchema['~standard'].validate(this.#state.value)
      for (const issue of result.issues ?? []) errors[issueName(issue)] ??= issue.message
    }
    this.#update(this.#state.value, errors, this.#state.drafts)
    return Object.keys(errors).length === 0
  }

  /** The edited arguments to approve with, or `undefined` when nothing was edited. */
  editedArgs(): unknown {
    return this.#state.edited ? this.#state.value : undefined
  }

  #update(value: unknown, errors: Record<string, string>, drafts: Record<string, string>): void {
    const fields = value === this.#state.value ? this.#state.fields : formFields(this.approval.approval?.inputSchema, value)
    this.#state = { fields, value, edited: !deepEqual(value, this.approval.input), errors, drafts }
    for (const listener of [...this.#listeners]) listener()
  }
}

function issueName(issue: StandardSchemaV1.Issue): string {
  return pathName((issue.path ?? []).map((segment) => (typeof segment === 'object' && segment !== null ? segment.key : segment)) as (string | number)[])
}

/** A new element's value by type, as JSON text so each is a fresh copy. */
const EMPTY: Record<string, string> = { string: '""', number: '0', integer: '0', boolean: 'false', array: '[]', object: '{}' }

function emptyValueOf(schema: JsonSchema): unknown {
  return 'default' in schema ? schema.default : JSON.parse(EMPTY[typeOf(schema) ?? ''] ?? 'null')
}
