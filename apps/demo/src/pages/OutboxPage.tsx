import { useEffect, useState } from 'react'
import type { ApprovalRequest } from '@toolgate/ai/server'
import { IdentitySwitcher } from '../components/IdentitySwitcher.tsx'

/** What `onApprovalRequested` handed the server: the review links a real app would post to Slack or send by email. */
export function OutboxPage() {
  const [requests, setRequests] = useState<readonly ApprovalRequest[] | undefined>()
  useEffect(() => {
    void fetch('/api/reviews').then(async (response) => setRequests((await response.json()) as ApprovalRequest[]))
  }, [])
  return (
    <div className="app page">
      <header className="app__header">
        <h1>Outbox</h1>
        <div className="app__meta">
          <IdentitySwitcher />
          <a className="button button--ghost" href="/">
            Chat
          </a>
        </div>
      </header>
      <main className="app__main">
        {requests?.length === 0 && <p>No approval requests yet.</p>}
        <ul className="outbox" aria-label="Review requests">
          {requests?.map((request) =>
            request.links.map((link) => (
              <li key={link.token} className="tool-card">
                <p>
                  <strong>{request.requestedBy?.name ?? 'Someone'}</strong> asks to run <code>{request.toolName}</code>: {request.reason}
                </p>
                <pre className="tool-card__json">{JSON.stringify(request.arguments, null, 2)}</pre>
                <p>
                  For {'role' in link.reviewer ? `anyone in ${link.reviewer.role}` : link.reviewer.user}, until {new Date(link.expiresAt).toLocaleString()}:{' '}
                  <a href={link.url}>Open review</a>
                </p>
              </li>
            )),
          )}
        </ul>
      </main>
    </div>
  )
}
