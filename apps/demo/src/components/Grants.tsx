import { useEffect, useState } from 'react'
import type { Grant } from '@toolgate/ai/protocol'

/**
 * "Allow for this conversation" made a grant: listed here while it is in force, with a revoke
 * (`POST { threadId, revokeGrant }`); later calls of the tool ask again once it is gone. The list is
 * the server's (`handler.grants`, served by the demo's `/api/grants`), read again after each run.
 */
export function Grants({ threadId, idle }: { readonly threadId: string | undefined; readonly idle: boolean }) {
  const [grants, setGrants] = useState<readonly Grant[]>([])
  const [version, setVersion] = useState(0)
  useEffect(() => {
    if (threadId === undefined || !idle) return
    const controller = new AbortController()
    fetch(`/api/grants?threadId=${encodeURIComponent(threadId)}`, { signal: controller.signal })
      .then(async (response) => (response.ok ? setGrants((await response.json()) as Grant[]) : setGrants([])))
      .catch(() => {})
    return () => controller.abort()
  }, [threadId, idle, version])
  if (threadId === undefined || grants.length === 0) return null
  const revoke = async (grantId: string) => {
    await fetch('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ threadId, revokeGrant: grantId }) })
    setVersion((value) => value + 1)
  }
  return (
    <ul className="grants" aria-label="Allowed for this conversation">
      {grants.map((grant) => (
        <li key={grant.id} className="grants__item" data-testid="grant">
          <span>
            <code>{grant.toolName}</code> runs without asking in this conversation (allowed by {grant.by.name ?? grant.by.id}
            {grant.expiresAt ? `, until ${new Date(grant.expiresAt).toLocaleTimeString()}` : ''})
          </span>
          <button type="button" className="button button--ghost" onClick={() => void revoke(grant.id)}>
            Revoke
          </button>
        </li>
      ))}
    </ul>
  )
}
