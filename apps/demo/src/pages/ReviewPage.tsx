import { useState } from 'react'
import { useReview } from '@toolgate/ai-react'
import { IdentitySwitcher } from '../components/IdentitySwitcher.tsx'

/** A signed review link's page: the arguments in the approval form, approve (maybe edited) or deny. */
export function ReviewPage({ token }: { token: string }) {
  const review = useReview(token, { endpoint: '/api/chat' })
  const [reason, setReason] = useState('')
  const interrupt = review.view?.interrupt
  return (
    <div className="app page">
      <header className="app__header">
        <h1>Review</h1>
        <IdentitySwitcher />
        <a className="button button--ghost" href="/outbox">Outbox</a>
      </header>
      <main className="app__main">
        {review.status === 'loading' && <p>Loading…</p>}
        {review.status === 'error' && (
          <p role="alert">
            This link cannot be used ({review.error?.code}): {review.error?.message}
          </p>
        )}
        {review.status === 'decided' && (
          <p role="status" data-testid="review-decided">
            {review.decided?.decision.decision === 'denied' ? 'Denied' : 'Approved'} as {review.decided?.decision.by.name ?? review.decided?.decision.by.id}.
            {review.decided?.resumed ? ' The conversation continues.' : ''}
          </p>
        )}
        {interrupt && (review.status === 'ready' || review.status === 'submitting') && (
          <form
            className="tool-card"
            onSubmit={(event) => {
              event.preventDefault()
              void review.approve()
            }}
          >
            <h2>{interrupt.message ?? interrupt.toolName}</h2>
            <p>Asked by {interrupt.requestedBy?.name ?? interrupt.requestedBy?.id ?? 'someone'}</p>
            {review.formState?.fields.map((field) => (
              <label key={field.name} className="field">
                {field.label}
                <input
                  name={field.name}
                  value={String(review.form?.valueAt(field.path) ?? '')}
                  onChange={(event) => review.form?.setText(field, event.target.value)}
                />
              </label>
            ))}
            <label className="field">
              Reason (if you deny)
              <input name="reason" value={reason} onChange={(event) => setReason(event.target.value)} />
            </label>
            <div className="dialog__actions">
              <button type="button" className="button button--ghost" onClick={() => void review.deny(reason || undefined)}>
                Deny
              </button>
              <button type="submit" className="button">
                Approve
              </button>
            </div>
          </form>
        )}
      </main>
    </div>
  )
}
