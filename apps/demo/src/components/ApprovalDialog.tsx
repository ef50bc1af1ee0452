import { useEffect, useRef } from 'react'
import { useApprovalForm, type UseApprovalFormResult } from '@toolgate/ai-react'
import { type FormField } from '@toolgate/ai/client'
import type { DemoApproval, DemoChat } from '../types.ts'
import { Icon } from './Icon.tsx'

interface ApprovalDialogProps {
  readonly chat: DemoChat
  readonly approval: DemoApproval
  /** This approval's place in the queue, e.g. 1 of 3. */
  readonly position: { readonly index: number; readonly total: number }
  /** Escape closes the dialog; the call stays pending and its card offers “Review”. */
  readonly onDismiss: (toolCallId: string) => void
  /** For a batch of parallel calls: answer them all at once. */
  readonly onApproveAll?: () => void
}

/**
 * Approve, edit then approve, or deny with a reason: the markup only, every field, id and check
 * comes from `useApprovalForm`. A native modal dialog: focus stays inside, Enter approves, Escape
 * puts it aside.
 */
export function ApprovalDialog({ chat, approval, position, onDismiss, onApproveAll }: ApprovalDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null)
  const form = useApprovalForm(chat, approval)

  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
    return () => element?.close()
  }, [])

  const { role: _role, 'aria-modal': _modal, ...dialogAria } = form.dialogProps
  return (
    <dialog
      ref={dialog}
      className="approval"
      {...dialogAria}
      onCancel={(event) => {
        event.preventDefault()
        onDismiss(approval.toolCallId)
      }}
    >
      <form {...form.formProps}>
        <header className="approval__header">
          <Icon name={form.metadata.icon} className="approval__icon" />
          <div>
            <h2 {...form.titleProps}>
              {/* A subagent's call says who asks: research-assistant → send_email. */}
              Allow <code>{form.path.join(' → ')}</code>?
            </h2>
            {position.total > 1 && (
              <p className="approval__position">
                {position.index} of {position.total} waiting
              </p>
            )}
          </div>
          {form.metadata.destructive && <span className="badge badge--danger">Destructive</span>}
        </header>
        <p {...form.reasonProps} className="approval__reason">
          {form.reason ?? 'This tool always asks before it runs.'}
        </p>

        {/* The fields scroll; the header above and the actions below stay in view. */}
        <div className="approval__body" tabIndex={-1}>
        <fieldset className="approval__fields">
          <legend>Arguments — edit them before approving if you like</legend>
          {form.fields.map((field) => (
            <Field key={field.name} form={form} field={field} />
          ))}
          {form.errors[''] && (
            <p className="field__error" role="alert">
              {form.errors['']}
            </p>
          )}
        </fieldset>

        <label className="field">
          <span className="field__label">Reason for denying (optional, the model reads it)</span>
          <input {...form.denyReasonProps} maxLength={500} />
        </label>
        </div>

        <footer className="approval__actions">
          <button type="button" className="button button--secondary" onClick={() => void form.deny()}>
            Deny
          </button>
          {onApproveAll && position.total > 1 && (
            <button type="button" className="button button--secondary" onClick={onApproveAll}>
              Approve all {position.total}
            </button>
          )}
          {/* A harmless tool may be allowed for the rest of the conversation; a destructive one asks every time. */}
          {form.grantable && !form.metadata.destructive && (
            <button type="button" className="button button--secondary" onClick={() => void form.approve({ grant: {} })}>
              Allow for this conversation
            </button>
          )}
          <button type="submit" className={`button ${form.metadata.destructive ? 'button--danger' : 'button--primary'}`}>
            {form.edited ? 'Approve with edits' : 'Approve'}
          </button>
        </footer>
      </form>
    </dialog>
  )
}

/** One field of the form, by kind; nested objects and lists recurse. `legend` names a list's item. */
function Field({ form, field, legend }: { form: UseApprovalFormResult; field: FormField; legend?: string }) {
  const error = form.error(field)
  if (field.kind === 'object') {
    return (
      <fieldset className="field-group">
        <legend>{legend ?? field.label}</legend>
        {field.fields!.map((child) => <Field key={child.name} form={form} field={child} />)}
      </fieldset>
    )
  }
  if (field.kind === 'array') {
    return (
      <fieldset className="field-group">
        <legend>{field.label}</legend>
        {field.fields!.map((item, index) => (
          <div key={item.name} className="field-group__item">
            <Field form={form} field={item} legend={`${itemName(field.label)} ${index + 1}`} />
            <button type="button" className="link-button" onClick={() => form.removeItem(field, index)}>
              Remove {itemName(field.label).toLowerCase()} {index + 1}
            </button>
          </div>
        ))}
        <button type="button" className="link-button" onClick={() => form.addItem(field)}>
          Add {itemName(field.label).toLowerCase()}
        </button>
        {error && <p {...form.errorProps(field)} className="field__error">{error}</p>}
      </fieldset>
    )
  }
  const input = form.inputProps(field)
  const long = field.kind === 'json' || (typeof input.value === 'string' && (input.value.length > 60 || input.value.includes('\n')))
  return (
    <div className={`field${form.isEdited(field) ? ' field--edited' : ''}`}>
      <label {...form.labelProps(field)} className="field__label">
        {field.label}
      </label>
      {field.kind === 'enum' ? (
        <select {...input}>
          {!field.required && <option value="">—</option>}
          {form.options(field).map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : long ? (
        <textarea {...input} rows={field.kind === 'json' ? 4 : 5} />
      ) : (
        <input {...input} />
      )}
      {field.description && <small {...form.descriptionProps(field)}>{field.description}</small>}
      {error && (
        <p {...form.errorProps(field)} className="field__error">
          {error}
        </p>
      )}
    </div>
  )
}

/** What one item of a list is called: "Attendees" holds an "Attendee". */
function itemName(listLabel: string): string {
  return listLabel.endsWith('s') && listLabel.length > 3 ? listLabel.slice(0, -1) : listLabel
}
