import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { type ApprovalRequest, createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { useReview } from '@toolgate/ai-react'

afterEach(cleanup)

const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money',
  inputSchema: v.object({ to: v.string(), amount: v.number() }),
  needsApproval: (input) => ({ reason: `Sends ${input.amount} EUR to ${input.to}`, reviewers: { roles: ['finance'] } }),
})

/** A review page made of the hook alone. */
function ReviewPage({ token, fetch }: { token: string; fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> }) {
  const review = useReview(token, { endpoint: '/api/chat', fetch })
  if (review.status === 'loading') return <p>Loading…</p>
  if (review.status === 'error') return <p role="alert">{review.error?.code}</p>
  if (review.status === 'refused') return <p role="alert">Not yours: {review.error?.message}</p>
  if (review.status === 'decided') return <p>Decided: {review.decided?.decision.decision} by {review.decided?.decision.by.name}</p>
  const interrupt = review.view!.interrupt
  const amount = review.formState?.fields.find((field) => field.name === 'amount')
  return (
    <div>
      <h1>{interrupt.message}</h1>
      <p>Asked by {interrupt.requestedBy?.name}</p>
      {amount && review.form && <input aria-label="amount" value={String(review.form.valueAt(amount.path))} onChange={(event) => review.form!.setText(amount, event.target.value)} />}
      <button onClick={() => void review.approve()}>Approve</button>
      <button onClick={() => void review.deny('no')}>Deny</button>
    </div>
  )
}

describe('useReview', () => {
  it('opens a signed link, edits the arguments in the approval form, and records the reviewer; the link then refuses a second use', async () => {
    const requests: ApprovalRequest[] = []
    const ran: unknown[] = []
    const handler = createChatHandler({
      model: scriptedModel([{ when: /pay/, call: () => ({ tool: 'transfer_money', input: { to: 'Eve', amount: 900 } }), then: ([r]) => r.status }], { tools: [transfer] }),
      tools: [transfer.server(async (input) => (ran.push(input), { ok: true }))],
      identify: (request) => (request.headers.get('x-session') === 'bob' ? { id: 'bob', name: 'Bob', roles: ['finance'] } : { id: 'alice', name: 'Alice' }),
      reviewLinks: { secret: 'react-test-secret-0123456789-abcdefghij' },
      onApprovalRequested: (request) => void requests.push(request),
    })
    const as = (who: string) => (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(new URL(String(input), 'http://test'), init)
      request.headers.set('x-session', who)
      return handler(request)
    }
    await (await as('alice')('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'pay' }) })).text()
    await waitFor(() => expect(requests).toHaveLength(1))
    const token = requests[0]!.links[0]!.token

    const page = render(<ReviewPage token={token} fetch={as('bob')} />)
    expect(await screen.findByRole('heading')).toHaveProperty('textContent', 'Sends 900 EUR to Eve')
    screen.getByText('Asked by Alice')
    fireEvent.change(screen.getByLabelText('amount'), { target: { value: '800' } })
    fireEvent.click(screen.getByText('Approve'))
    await screen.findByText('Decided: edited by Bob')
    await waitFor(() => expect(ran).toEqual([{ to: 'Eve', amount: 800 }]))
    page.unmount()

    render(<ReviewPage token={token} fetch={as('bob')} />)
    expect(await screen.findByRole('alert')).toHaveProperty('textContent', 'REVIEW_LINK_USED')
  })

  it('tells someone the link is not for, before any form: the requester, and a person outside the role', async () => {
    const requests: ApprovalRequest[] = []
    const handler = createChatHandler({
      model: scriptedModel([{ when: /pay/, call: () => ({ tool: 'transfer_money', input: { to: 'Eve', amount: 900 } }), then: ([r]) => r.status }], { tools: [transfer] }),
      tools: [transfer.server(async () => ({ ok: true }))],
      // Alice asks, and holds the role herself: still not hers to decide.
      identify: (request) => ({ id: request.headers.get('x-session') ?? 'anonymous', roles: request.headers.get('x-session') === 'alice' ? ['finance'] : [] }),
      reviewLinks: { secret: 'react-test-secret-0123456789-abcdefghij' },
      onApprovalRequested: (request) => void requests.push(request),
    })
    const as = (who: string) => (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(new URL(String(input), 'http://test'), init)
      request.headers.set('x-session', who)
      return handler(request)
    }
    await (await as('alice')('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'pay' }) })).text()
    await waitFor(() => expect(requests).toHaveLength(1))
    const token = requests[0]!.links[0]!.token

    const page = render(<ReviewPage token={token} fetch={as('alice')} />)
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Not yours: "transfer_money" waits for a reviewer (finance); the person who asked for it may not decide it',
    )
    expect(screen.queryByText('Approve')).toBeNull()
    page.unmount()
    render(<ReviewPage token={token} fetch={as('carol')} />)
    expect((await screen.findByRole('alert')).textContent).toBe('Not yours: This review link is for someone in role "finance", and "carol" is not in it')
  })
})
