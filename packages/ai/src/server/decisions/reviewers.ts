import type { Principal, Reviewers } from '../../protocol/decisions.ts'
import { HttpError } from '../errors.ts'
import type { StoredInterrupt } from '../thread/threadStore.ts'

// Who may decide an interrupt whose policy named reviewers: never the requester, only a principal
// in one of the roles or among the users, and each person once (the two-person rule counts
// distinct principals). Checked on every answer, whatever channel it came by.

/** The reviewers of a call whose policy named them badly: no one can approve it (it fails closed). */
export const NOBODY: Reviewers = Object.freeze({ users: [] })

/** How many distinct approvals the interrupt needs. */
export function requiredApprovals(interrupt: StoredInterrupt): number {
  return interrupt.reviewers?.required ?? 1
}

/** Throws 403/409 with a code when `principal` may not decide `interrupt` now. */
export function checkReviewer(interrupt: StoredInterrupt, principal: Principal, path: string): void {
  const { reviewers } = interrupt
  if (!reviewers) return
  if (interrupt.requestedBy && principal.id === interrupt.requestedBy.id) {
    throw new HttpError(403, 'REVIEWER_REQUIRED', `"${interrupt.toolName}" waits for ${describeReviewers(reviewers)}; the person who asked for it may not decide it`, `${path}.interruptId`)
  }
  if (!isReviewer(reviewers, principal)) {
    throw new HttpError(403, 'NOT_A_REVIEWER', `"${interrupt.toolName}" waits for ${describeReviewers(reviewers)}, and "${principal.id}" is not one of them`, `${path}.interruptId`)
  }
  if (interrupt.approvals?.some((approval) => approval.by.id === principal.id)) {
    throw new HttpError(409, 'ALREADY_DECIDED', `"${principal.id}" already approved "${interrupt.toolName}"; another reviewer must decide`, `${path}.interruptId`)
  }
}

export function isReviewer(reviewers: Reviewers, principal: Principal): boolean {
  if (reviewers.users?.includes(principal.id)) return true
  return reviewers.roles?.some((role) => principal.roles?.includes(role)) ?? false
}

/** `a reviewer (finance)`, `alice or bob`, `2 reviewers (finance)`: what the chat shows the interrupt waits for. */
export function describeReviewers(reviewers: Reviewers): string {
  const names = [...(reviewers.roles ?? []), ...(reviewers.users ?? [])].join(', ') || 'no one: the approval policy is misconfigured'
  const required = reviewers.required ?? 1
  return `${required === 1 ? 'a reviewer' : `${required} reviewers`} (${names})`
}

/** A policy's `reviewers` as stored: checked, so a malformed policy fails closed at the call (no one but a named reviewer can approve). */
export function checkedReviewers(value: unknown): Reviewers | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return '`reviewers` must be `{ roles?, users?, required? }`'
  const { roles, users, required } = value as Record<string, unknown>
  const strings = (list: unknown) => list === undefined || (Array.isArray(list) && list.every((item) => typeof item === 'string' && item !== ''))
  if (!strings(roles)) return '`reviewers.roles` must be an array of role names'
  if (!strings(users)) return '`reviewers.users` must be an array of principal ids'
  if (((roles as string[] | undefined)?.length ?? 0) + ((users as string[] | undefined)?.length ?? 0) === 0) return '`reviewers` names no role and no user'
  if (required !== undefined && !(Number.isInteger(required) && (required as number) >= 1 && (required as number) <= 10)) return '`reviewers.required` must be an integer from 1 to 10'
  return {
    ...(roles === undefined ? {} : { roles: [...(roles as string[])] }),
    ...(users === undefined ? {} : { users: [...(users as string[])] }),
    ...(required === undefined ? {} : { required: required as number }),
  }
}
