import { useState } from 'react'
import { useReview } from '@toolgate/ai-react'
import { IdentitySwitcher } from '../components/IdentitySwitcher.tsx'

/** Why a link cannot be used, in a sentence: what the page says before (and instead of) any form. */
const LINK_PROBLEMS: Partial<Record<string, string>> = {
  REVIEW_LINK_USED: 'This request was already decided, or this link was used.',
  REVIEW_LINK_EXPIRED: 'This review link has expired.',
  REVIEW_LINK_INVALID: 'This review link is not valid (it may be cut short or altered).',
  ARGUMENTS_CHANGED: 'The request changed since this link was made; it no longer applies.',
}

/**
 * A signed review link's page: what is asked and by whom, then approve (maybe edited) or deny.
 * Someone the link is not for is told so first, in a sentence, and gets no form.
 */
export function ReviewPage({ token }: { token: string }) {
  const review = useReview(token, { endpoint: '/api/chat' })
  const [reason, setReason] = useState('')
  const interrupt = review.view?.interrupt
  const asker = interrupt?.requestedBy?.name ?? interrupt?.requestedBy?.id ?? 'someone'
  return (
    <div className="app page">
      <header className="app__header">
        <h1>Review</h1>
        <div className="app__meta">
          <IdentitySwitcher />
          <a className="button button--ghost" href="/outbox">
            Outbox
          </a>
        </div>
      </header>
      <main className="app__main review">
        {review.status === 'loading' && <p>Loading…</p>}
        {review.status === 'refused' && interrupt && (
          <section className="notice" role="alert" data-testid="review-refused" data-code={review.error?.code}>
            <h2>This review is not yours to decide</h2>
            <p>
              {asker} asks to run <code>{interrupt.toolName}</code>
              {interrupt.message ? ` (${interrupt.message})` : ''}. {review.error?.message}.
            </p>
            <p className="notice__hint">Switch to the person it is for above, or forward the link to them.</p>
          </section>
        )}
        {review.status === 'error' && (
          <section className="notice" role="alert" data-testid="review-error" data-code={review.error?.code}>
            <h2>This link cannot be used</h2>
            <p>{LINK_PROBLEMS[review.error?.code ?? ''] ?? `${review.error?.message}.`}</p>
          </section>
        )}
        {review.status === 'decided' && (
          <p className="notice" role="status" data-testid="review-decided">
            {review.decided?.decision.decision === 'denied' ? 'Denied' : 'Approved'} as {review.decided?.decision.by.name ?? review.decided?.decision.by.id}.
            {review.decided?.resumed ? ' The conversation continues.' : ''}
          </p>
        )}
        {interrupt && (review.status === 'ready' || review.status === 'submitting') && (
          <form
            className="tool-card review__form"
            onSubmit={(event) => {
              event.preventDefault()
              void review.approve()
            }}
          >
            <h2>{interrupt.message ?? interrupt.toolName}</h2>
            <p>
              Asked by {asker} · <code>{interrupt.toolName}</code>
            </p>
            {review.formState?.fields.map((field) => (
              <label key={field.name} className="field">
                <span className="field__label">{field.label}</span>
                <input
                  name={field.name}
                  value={String(review.form?.valueAt(field.path) ?? '')}
                  onChange={(event) => review.form?.setText(field, event.target.value)}
                />
              </label>
            ))}
            <label className="field">
              <span className="field__label">Reason (if you deny; the model reads it)</span>
              <input name="reason" value={reason} onChange={(event) => setReason(event.target.value)} />
            </label>
            <div className="approval__actions">
              <button type="button" className="button button--secondary" disabled={review.status === 'submitting'} onClick={() => void review.deny(reason || undefined)}>
                Deny
              </button>
              <button type="submit" className="button button--primary" disabled={review.status === 'submitting'}>
                Approve
              </button>
            </div>
          </form>
        )}
      </main>
    </div>
  )
}
