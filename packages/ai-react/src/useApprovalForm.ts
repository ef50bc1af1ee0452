import { useId, useMemo, useState, useSyncExternalStore, type ChangeEvent, type FormEvent } from 'react'
import type { AnyTool, ToolMetadata } from '@toolgate/ai'
import type { GrantRequest } from '@toolgate/ai/protocol'
import { formOfPendingApproval, type ApprovalFormState, type FormField, type PendingApproval } from '@toolgate/ai/client'
import type { UseChatResult } from './useChat.ts'

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement

/** Props for a field's `<input>`, `<select>` or `<textarea>`: value, change handler and the `aria-*` that tie it to its label, description and error. */
export interface FieldInputProps {
  readonly id: string
  readonly name: string
  readonly type?: string
  readonly value?: string
  readonly checked?: boolean
  readonly required?: boolean | undefined
  readonly min?: number | undefined
  readonly max?: number | undefined
  readonly step?: number | 'any'
  readonly minLength?: number | undefined
  readonly maxLength?: number | undefined
  readonly 'aria-invalid': boolean
  readonly 'aria-describedby'?: string | undefined
  readonly onChange: (event: ChangeEvent<Control>) => void
}

export interface UseApprovalFormResult extends ApprovalFormState {
  readonly toolCallId: string
  readonly toolName: string
  /**
   * How the call was reached: the agent tools it was made in, outermost first, then the tool
   * (`['research-assistant', 'send_email']` for a subagent's call); `[toolName]` for the model's own.
   * Show it as the title, joined with ' → ', so the approver sees who asks.
   */
  readonly path: readonly string[]
  /** The approval policy's reason, if it gave one. */
  readonly reason: string | undefined
  /** For an agent tool's call: what approving it lets its subagent do (the tools it may call, and which will still ask). */
  readonly delegation: NonNullable<PendingApproval['approval']>['delegation']
  readonly metadata: ToolMetadata & { readonly icon?: string; readonly destructive?: boolean }
  /** Spread on the dialog (a native `<dialog>` or any modal): its title and the reason label and describe it. */
  readonly dialogProps: { readonly role: 'dialog'; readonly 'aria-modal': true; readonly 'aria-labelledby': string; readonly 'aria-describedby': string }
  readonly titleProps: { readonly id: string }
  readonly reasonProps: { readonly id: string }
  /** Spread on the `<form>`: submitting (Enter in a field) approves, with the edits if any. */
  readonly formProps: { readonly onSubmit: (event: FormEvent) => void; readonly noValidate: true }
  inputProps(field: FormField): FieldInputProps
  labelProps(field: FormField): { readonly id: string; readonly htmlFor: string }
  descriptionProps(field: FormField): { readonly id: string }
  errorProps(field: FormField): { readonly id: string; readonly role: 'alert' }
  /** The options of an `enum` field, for a `<select>` whose value is the option's index. */
  options(field: FormField): readonly { readonly value: string; readonly label: string }[]
  error(field: FormField): string | undefined
  isEdited(field: FormField): boolean
  addItem(field: FormField): void
  removeItem(field: FormField, index: number): void
  reset(): void
  /** Props for the deny reason's `<input>` or `<textarea>`. */
  readonly denyReasonProps: { readonly id: string; readonly value: string; readonly onChange: (event: ChangeEvent<Control>) => void }
  /**
   * Whether the approver may allow this tool for the rest of the conversation: offer "Allow for
   * this conversation" (`approve({ grant: {} })`), or for a while (`approve({ grant: { ttlMs } })`).
   * Later calls it covers run without asking, each recorded as run under the grant.
   */
  readonly grantable: boolean
  /**
   * Checks the edits (in the browser, with the tool's own schema when the chat has the tool) and
   * approves, with a grant for later calls when given (and `grantable`); `false` when a field is invalid.
   */
  approve(options?: { readonly grant?: GrantRequest }): Promise<boolean>
  /** Denies; the reason (given here, or typed in the deny reason field) is what the model reads. */
  deny(reason?: string): Promise<void>
}

/**
 * A headless approval dialog for one pending approval: fields derived from the tool's input JSON
 * Schema (sent by the server with the approval), starting at the model's arguments, each knowing
 * whether it was edited, validated in the browser before they are sent (and by the server again).
 * Bring your own markup: spread the props. Enter in a field approves (the form submits); the
 * dialog's Escape (a native `<dialog>`'s `cancel`) is the app's "review later". `approval` is one of
 * `chat.pendingApprovals`: the form's code comes with the chunk the chat's first pause loads.
 */
export function useApprovalForm<const TTools extends readonly AnyTool[]>(
  chat: Pick<UseChatResult<TTools>, 'approve' | 'deny' | 'client'>,
  approval: PendingApproval<TTools>,
): UseApprovalFormResult {
  const { toolCallId, toolName } = approval
  const form = useMemo(
    () => formOfPendingApproval(approval, chat.client.tools),
    // One form per call: its edits survive the approval part's later snapshots.
    [chat.client, toolCallId],
  )
  const state = useSyncExternalStore(form.subscribe, form.getSnapshot, form.getSnapshot)
  const id = useId()
  const [denyReason, setDenyReason] = useState('')
  // Ids are space-separated in aria-describedby: no whitespace in them.
  const fieldId = (field: FormField, part: string) => `${id}-${part}-${field.name.replace(/\s/g, '_')}`

  const grantable = approval.approval?.grantable === true
  const approve = async (options: { readonly grant?: GrantRequest } = {}) => {
    if (!(await form.validate())) return false
    const editedArgs = form.editedArgs()
    await chat.approve(toolCallId, { ...(editedArgs === undefined ? {} : { editedArgs }), ...(grantable && options.grant ? { grant: options.grant } : {}) })
    return true
  }

  return {
    ...state,
    toolCallId,
    toolName,
    path: approval.approval?.path ?? [toolName],
    reason: approval.approval?.reason,
    delegation: approval.approval?.delegation,
    metadata: approval.metadata as UseApprovalFormResult['metadata'],
    dialogProps: { role: 'dialog', 'aria-modal': true, 'aria-labelledby': `${id}-title`, 'aria-describedby': `${id}-reason` },
    titleProps: { id: `${id}-title` },
    reasonProps: { id: `${id}-reason` },
    formProps: {
      noValidate: true,
      onSubmit: (event) => {
        event.preventDefault()
        void approve()
      },
    },
    inputProps(field) {
      const value = form.valueAt(field.path)
      const error = state.errors[field.name]
      // Attributes left `undefined` are not rendered.
      const props = {
        id: fieldId(field, 'input'),
        name: field.name,
        required: field.required || undefined,
        'aria-invalid': error !== undefined,
        'aria-describedby': [field.description && fieldId(field, 'description'), error && fieldId(field, 'error')].filter(Boolean).join(' ') || undefined,
        onChange: (event: ChangeEvent<Control>) => form.setText(field, event.target.value),
      }
      switch (field.kind) {
        case 'boolean':
          return { ...props, type: 'checkbox', checked: value === true, onChange: (event) => form.setValue(field.path, (event.target as HTMLInputElement).checked) }
        case 'enum': {
          const index = field.options!.findIndex((option) => JSON.stringify(option) === JSON.stringify(value))
          return { ...props, value: index < 0 ? '' : String(index), onChange: (event) => form.setValue(field.path, event.target.value === '' ? undefined : field.options![Number(event.target.value)]) }
        }
        case 'number':
        case 'integer':
          return {
            ...props,
            type: 'number',
            step: field.kind === 'integer' ? 1 : 'any',
            min: field.minimum,
            max: field.maximum,
            value: state.drafts[field.name] ?? (typeof value === 'number' ? String(value) : ''),
          }
        case 'text':
          return { ...props, type: inputType(field.format), minLength: field.minLength, maxLength: field.maxLength, value: typeof value === 'string' ? value : '' }
        default:
          return { ...props, value: state.drafts[field.name] ?? (value === undefined ? '' : JSON.stringify(value, null, 2)) }
      }
    },
    labelProps: (field) => ({ id: fieldId(field, 'label'), htmlFor: fieldId(field, 'input') }),
    descriptionProps: (field) => ({ id: fieldId(field, 'description') }),
    errorProps: (field) => ({ id: fieldId(field, 'error'), role: 'alert' }),
    options: (field) => (field.options ?? []).map((option, index) => ({ value: String(index), label: typeof option === 'string' ? option : JSON.stringify(option) })),
    error: (field) => state.errors[field.name],
    isEdited: (field) => form.isEdited(field.path),
    addItem: (field) => form.addItem(field),
    removeItem: (field, index) => form.removeItem(field, index),
    reset: () => form.reset(),
    denyReasonProps: { id: `${id}-deny-reason`, value: denyReason, onChange: (event) => setDenyReason(event.target.value) },
    grantable,
    approve,
    deny: (reason) => chat.deny(toolCallId, (reason ?? denyReason).trim() || undefined),
  }
}

const INPUT_TYPES: Record<string, string> = { date: 'date', 'date-time': 'datetime-local', email: 'email', uri: 'url', url: 'url' }

function inputType(format: string | undefined): string {
  return INPUT_TYPES[format ?? ''] ?? 'text'
}
