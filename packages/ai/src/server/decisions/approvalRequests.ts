import type { Reviewers } from '../../protocol/decisions.ts'
import { UNSIGNED_DECISIONS, warnOnce } from '../warnings.ts'
import { digestOf } from '../../util/digest.ts'
import type { ApprovalRequest, ChatConfig, LinkReviewer, ReviewLink } from '../options.ts'
import type { StoredInterrupt } from '../thread/threadStore.ts'
import { signReviewLink } from './reviewLinks.ts'

// What the app is handed when a call waits for reviewers: enough to notify them (Slack, email,
// a queue) with a link each, made after the interrupt is stored so a link never points at
// nothing.

const DAY_MS = 24 * 60 * 60 * 1000

/** Makes each reviewer-only interrupt's links and hands them to `onApprovalRequested`; its failures go to `onError`. */
export async function requestReviews(config: ChatConfig, threadId: string, interrupts: readonly StoredInterrupt[]): Promise<void> {
  // Reviewers decide here, and nothing signs what they decided: said once, whatever the hooks.
  if (!config.recordKey && interrupts.some((interrupt) => interrupt.reviewers)) warnOnce(UNSIGNED_DECISIONS)
  const hook = config.onApprovalRequested
  if (!hook) return
  for (const interrupt of interrupts) {
    const { reviewers } = interrupt
    if (!reviewers) continue
    try {
      await hook(await approvalRequest(config, threadId, interrupt, reviewers))
    } catch (error) {
      if (config.onError) config.onError(error, { threadId, runId: '', source: 'decision-hook', toolCallId: interrupt.toolCallId, toolName: interrupt.toolName })
      else console.error('[toolgate] onApprovalRequested threw:', error)
    }
  }
}

/** What every hook about an approval is told of it: which call, the arguments shown, why, and who asked. */
export function approvalFacts(threadId: string, interrupt: StoredInterrupt) {
  return {
    threadId,
    interruptId: interrupt.id,
    toolCallId: interrupt.toolCallId,
    toolName: interrupt.toolName,
    arguments: interrupt.proposed ?? interrupt.input,
    ...(interrupt.message === undefined ? {} : { reason: interrupt.message }),
    ...(interrupt.requestedBy === undefined ? {} : { requestedBy: interrupt.requestedBy }),
    ...(interrupt.path === undefined ? {} : { path: interrupt.path }),
  }
}

export async function approvalRequest(config: ChatConfig, threadId: string, interrupt: StoredInterrupt, reviewers: Reviewers): Promise<ApprovalRequest> {
  const shown = interrupt.proposed ?? interrupt.input
  const links: ReviewLink[] = []
  const settings = config.reviewLinks
  if (settings) {
    const key = await settings.key
    const argsDigest = await digestOf(shown)
    const expiry = Math.min(Date.now() + settings.ttlMs, interrupt.expiresAt === undefined ? Infinity : Date.parse(interrupt.expiresAt))
    const targets: LinkReviewer[] = [
      ...(reviewers.users ?? []).map((user) => ({ user })),
      ...(reviewers.roles ?? []).flatMap((role) => Array.from({ length: reviewers.required ?? 1 }, () => ({ role }))),
    ]
    for (const reviewer of targets) {
      const token = await signReviewLink(key, { threadId, interruptId: interrupt.id, reviewer, argsDigest, expiresAt: expiry })
      links.push({ reviewer, token, url: settings.url(token), expiresAt: new Date(expiry).toISOString() })
    }
  }
  return {
    ...approvalFacts(threadId, interrupt),
    reviewers,
    ...(interrupt.expiresAt === undefined ? {} : { expiresAt: interrupt.expiresAt }),
    links,
  }
}

export { DAY_MS as DEFAULT_LINK_TTL_MS }
