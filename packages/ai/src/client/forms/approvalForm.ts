import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { JsonSchema } from '../../schema/types.ts'
import type { AnyTool } from '../../tools/types.ts'
import { deepEqual } from '../../util/deepEqual.ts'
import { isRecord } from '../../util/isRecord.ts'
import { emptyValueOf, fieldProblem, formFields, pathName, valueAt, withValueAt, type FieldPath, type FormField } from './formFields.ts'
import { Subscribable } from '../store/index.ts'

// An approval dialog's form, without a framework: the fields a tool's input JSON Schema asks for
// (as the server sends it with the approval), the values (the model's arguments, then the user's
// edits), which fields were edited, and the errors, each on its field. React binds it in
// `useApprovalForm`; any other view can use `ApprovalForm` directly.

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
export class ApprovalForm extends Subscribable {
  readonly approval: FormApproval
  readonly #tool: AnyTool | undefined
  #state: ApprovalFormState

  /** `tool`: the tool's definition, when the app has it, to check edits with its own schema. */
  constructor(approval: FormApproval, tool?: AnyTool) {
    super()
    this.approval = approval
    this.#tool = tool
    this.#state = { fields: formFields(approval.approval?.inputSchema, approval.input), value: approval.input, edited: false, errors: {}, drafts: {} }
  }

  readonly getSnapshot = (): ApprovalFormState => this.#state

  /** The value at `path` as edited so far (`[]`: the whole arguments). */
  valueAt(path: FieldPath): unknown {
    return valueAt(this.#state.value, path)
  }

  /** Whether the field at `path` differs from the model's argument there. */
  isEdited(path: FieldPath): boolean {
    return !deepEqual(this.valueAt(path), valueAt(this.approval.input, path))
  }

  /** What the field's value breaks of the field's own schema (required, type, bounds, pattern), before `validate()` runs the tool's. */
  problemOf(field: FormField): string | undefined {
    return fieldProblem(field, this.valueAt(field.path))
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
    const list = this.valueAt(field.path)
    this.setValue(field.path, [...(Array.isArray(list) ? list : []), emptyValueOf(isRecord(field.schema.items) ? (field.schema.items as JsonSchema) : {})])
  }

  removeItem(field: FormField, index: number): void {
    const list = this.valueAt(field.path)
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
        const problem = this.problemOf(field)
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
    this.notify()
  }
}

function issueName(issue: StandardSchemaV1.Issue): string {
  return pathName((issue.path ?? []).map((segment) => (typeof segment === 'object' && segment !== null ? segment.key : segment)) as (string | number)[])
}
