import { useEffect, useId, useRef, useState, type FormEvent } from 'react'
import type { DemoApproval } from '../types.ts'

interface ApprovalDialogProps {
  readonly approval: DemoApproval
  /** This approval's place in the queue, e.g. 1 of 3. */
  readonly position: { readonly index: number; readonly total: number }
  readonly onApprove: (toolCallId: string, editedArgs?: unknown) => void
  readonly onDeny: (toolCallId: string, reason?: string) => void
  /** Escape closes the dialog; the call stays pending and its card offers “Review”. */
  readonly onDismiss: (toolCallId: string) => void
}

type Fields = Record<string, string>

/** Approve, edit then approve, or deny with a reason. A native modal dialog: focus stays inside and Escape works. */
export function ApprovalDialog({ approval, position, onApprove, onDeny, onDismiss }: ApprovalDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null)
  const id = useId()
  const original = toFields(approval.input)
  const [fields, setFields] = useState<Fields>(original)
  const [reason, setReason] = useState('')
  const [fieldError, setFieldError] = useState<string>()
  const metadata = approval.metadata as { icon?: string; destructive?: boolean }
  const edited = Object.keys(fields).some((key) => fields[key] !== original[key])

  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
    return () => element?.close()
  }, [])

  const approve = (event: FormEvent) => {
    event.preventDefault()
    if (!edited) return onApprove(approval.toolCallId)
    const parsed = fromFields(fields, approval.input)
    if ('error' in parsed) return setFieldError(parsed.error)
    onApprove(approval.toolCallId, parsed.value)
  }

  return (
    <dialog
      ref={dialog}
      className="approval"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-reason`}
      onCancel={(event) => {
        event.preventDefault()
        onDismiss(approval.toolCallId)
      }}
    >
      <form onSubmit={approve}>
        <header className="approval__header">
          <span aria-hidden="true" className="approval__icon">{metadata.icon ?? '🔧'}</span>
          <div>
            <h2 id={`${id}-title`}>
              Allow <code>{approval.toolName}</code>?
            </h2>
            {position.total > 1 && (
              <p className="approval__position">
                {position.index} of {position.total} waiting
              </p>
            )}
          </div>
          {metadata.destructive && <span className="badge badge--danger">Destructive</span>}
        </header>
        <p id={`${id}-reason`} className="approval__reason">
          {approval.approval?.reason ?? 'This tool always asks before it runs.'}
        </p>

        <fieldset className="approval__fields">
          <legend>Arguments — edit them before approving if you like</legend>
          {Object.entries(fields).map(([key, value]) => (
            <label key={key} className="field">
              <span className="field__label">{key}</span>
              {isLong(key, value) ? (
                <textarea value={value} rows={5} onChange={(event) => setFields({ ...fields, [key]: event.target.value })} />
              ) : (
                <input value={value} onChange={(event) => setFields({ ...fields, [key]: event.target.value })} />
              )}
            </label>
          ))}
          {fieldError && (
            <p className="field__error" role="alert">
              {fieldError}
            </p>
          )}
        </fieldset>

        <label className="field">
          <span className="field__label">Reason for denying (optional, the model reads it)</span>
          <input value={reason} maxLength={500} onChange={(event) => setReason(event.target.value)} />
        </label>

        <footer className="approval__actions">
          <button type="button" className="button button--secondary" onClick={() => onDeny(approval.toolCallId, reason.trim() || undefined)}>
            Deny
          </button>
          <button type="submit" className={`button ${metadata.destructive ? 'button--danger' : 'button--primary'}`}>
            {edited ? 'Approve with edits' : 'Approve'}
          </button>
        </footer>
      </form>
    </dialog>
  )
}

/** Strings are edited as they are; other values as JSON. */
function toFields(input: unknown): Fields {
  if (typeof input !== 'object' || input === null) return {}
  return Object.fromEntries(
    Object.entries(input).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
  )
}

function fromFields(fields: Fields, original: unknown): { value: Record<string, unknown> } | { error: string } {
  const source = (original ?? {}) as Record<string, unknown>
  const value: Record<string, unknown> = {}
  for (const [key, text] of Object.entries(fields)) {
    if (typeof source[key] === 'string') {
      value[key] = text
      continue
    }
    try {
      value[key] = JSON.parse(text)
    } catch {
      return { error: `${key}: not valid JSON` }
    }
  }
  return { value }
}

function isLong(key: string, value: string): boolean {
  return key === 'body' || value.length > 60 || value.includes('\n')
}
