import type { RevokeGrantRequest } from '../../protocol/requests.ts'
import { echoed } from '../../util/capText.ts'
import { HttpError } from '../errors.ts'
import type { ChatConfig } from '../options.ts'
import { loadHead } from '../thread/thread.ts'
import { updateThread } from '../thread/writer/index.ts'
import { revokeGrant } from '../thread/transitions.ts'

// Revoking a grant (decisions/grants.ts): through the chat endpoint, or the handler's `revokeGrant`.

/** What `POST { threadId, revokeGrant }` answers. */
export interface GrantRevoked {
  readonly threadId: string
  readonly revoked: string
}

/** `POST { threadId, revokeGrant }`: later calls the grant covered ask again. 404 `GRANT_NOT_FOUND` when the thread has no such grant (or it was revoked). */
export async function revokeGrantOf(config: ChatConfig, request: Request, body: RevokeGrantRequest): Promise<GrantRevoked> {
  await loadHead(config, request, body.threadId, 'write')
  await revoke(config, body.threadId, body.revokeGrant)
  return { threadId: body.threadId, revoked: body.revokeGrant }
}

/** Revokes the thread's grant `grantId` (404 `GRANT_NOT_FOUND` without it), with one compare-and-set. */
export async function revoke(config: ChatConfig, threadId: string, grantId: string): Promise<void> {
  await updateThread(config.store, threadId, (head) => {
    if (!head.grants?.some((grant) => grant.id === grantId)) {
      throw new HttpError(404, 'GRANT_NOT_FOUND', `Thread "${threadId}" has no grant ${echoed(grantId)} (or it was revoked)`, 'revokeGrant')
    }
    return revokeGrant(head, { grantId })
  })
}
