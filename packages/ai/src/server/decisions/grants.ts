import type { Grant, GrantRequest, Principal, Reviewers } from '../../protocol/decisions.ts'
import { digestOf } from '../../util/digest.ts'
import { randomId } from '../../util/randomId.ts'
import { isReviewer } from './reviewers.ts'

// Grants: "allow this tool for the thread", made by an approver with their approval and kept in
// the thread's head, so a covered call is decided under the same compare-and-set as the rest.
// A grant is never wider than the person who gave it.

/** The longest a grant may last (`grant.ttlMs`): a year. For longer, leave `ttlMs` out: the grant lasts as long as the thread. */
export const MAX_GRANT_TTL_MS = 365 * 24 * 60 * 60 * 1000

/**
 * The grant an approval asked for, made by `by` for calls of `toolName` (with `args`, if
 * `sameArguments`); `agents`: the agent tools a subagent's call was reached through (the grant then
 * covers that tool there, and nowhere else).
 */
export async function makeGrant(request: GrantRequest, toolName: string, by: Principal, args: unknown, now = Date.now(), agents: readonly string[] = []): Promise<Grant> {
  return {
    id: randomId('grant_'),
    toolName,
    ...(agents.length > 0 ? { agents } : {}),
    by,
    at: new Date(now).toISOString(),
    ...(request.ttlMs === undefined ? {} : { expiresAt: new Date(now + request.ttlMs).toISOString() }),
    ...(request.sameArguments ? { argsDigest: await digestOf(args) } : {}),
  }
}

/**
 * The grant that lets this call run without asking, if any: same tool, not expired, same
 * arguments when it says so, and, when the call's policy names reviewers, given by one of them
 * who is not the requester and under no two-person rule.
 */
export async function coveringGrant(
  grants: readonly Grant[] | undefined,
  call: { readonly toolName: string; readonly input: unknown; readonly agents?: readonly string[] },
  requester: Principal,
  reviewers: Reviewers | undefined,
  now = Date.now(),
): Promise<Grant | undefined> {
  if (!grants || grants.length === 0) return undefined
  let digest: string | undefined
  for (const grant of grants) {
    if (grant.toolName !== call.toolName || !sameAgents(grant.agents, call.agents)) continue
    if (grant.expiresAt !== undefined && Date.parse(grant.expiresAt) <= now) continue
    if (reviewers && ((reviewers.required ?? 1) > 1 || grant.by.id === requester.id || !isReviewer(reviewers, grant.by))) continue
    if (grant.argsDigest !== undefined && grant.argsDigest !== (digest ??= await digestOf(call.input))) continue
    return grant
  }
  return undefined
}

/** A grant for a tool reached through agents covers it only through the same agents (and a top-level grant only at the top). */
function sameAgents(granted: readonly string[] | undefined, called: readonly string[] | undefined): boolean {
  const a = granted ?? []
  const b = called ?? []
  return a.length === b.length && a.every((name, index) => name === b[index])
}
