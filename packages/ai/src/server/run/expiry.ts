import type { Reviewers } from '../../protocol/decisions.ts'
import { toolFailures } from '../errors.ts'
import type { ChatConfig, ExpiredApproval } from '../options.ts'
import { endedWaits, settleInterrupts } from './interrupts.ts'
import { isExpired, unanswered } from '../thread/step.ts'
import { approvalFacts, requestReviews } from '../decisions/approvalRequests.ts'
import { chainDecisions, recordOutcomes, SYSTEM, type DecisionDraft } from '../decisions/records.ts'
import { reportDecisions } from '../decisions/report.ts'
import { checkedReviewers, describeReviewers } from '../decisions/reviewers.ts'
import { recoverLostRun } from '../thread/recovery.ts'
import { isRunning } from '../thread/thread.ts'
import { updateThread } from '../thread/writer/index.ts'
import type { StoredInterrupt, ThreadHead } from '../thread/threadStore.ts'
import { cancelStep, escalate } from '../thread/transitions.ts'

// Expiry when it is due, not when someone next writes: an approval past its `expiresAt` is
// settled by whoever looks first (a reader of the thread on any instance, or the timer of the
// instance that asked), in one compare-and-set, so it happens once. `onExpired` may send it to
// other reviewers with a fresh expiry instead (recorded as `escalated`); else it ends `expired`.

/** Why a call approved in a step whose other approvals expired did not run: the step ended without it. */
export const EXPIRED_STEP_REASON = 'another approval asked with it expired unanswered'

/** Whether `head` holds an approval past its expiry that nobody settled yet (no run holds the thread). */
export function hasDueExpiry(head: ThreadHead, leaseMs: number, now = Date.now()): boolean {
  return !isRunning(head, leaseMs) && unanswered(head.step).some((interrupt) => isExpired(interrupt, now))
}

/**
 * Settles what is due in the thread: each expired interrupt is escalated (`onExpired` named other
 * reviewers) or, once every open interrupt of its step is expired, the step joins the history with
 * `expired` results. Returns the head as written, or `head` when nothing was due. `request` is the
 * reader's, when a reader triggered it (for telemetry); a timer has none.
 */
export async function settleDueExpiries(config: ChatConfig, head: ThreadHead, request?: Request): Promise<ThreadHead> {
  if (!hasDueExpiry(head, config.limits.runLeaseMs)) return head
  const { runLeaseMs } = config.limits
  let escalated: StoredInterrupt[] = []
  let expired: StoredInterrupt[] = []
  // The app is asked once per expiry here, not again on each compare-and-set retry.
  const routes = new Map<string, ReturnType<typeof escalation>>()
  const routeOf = (threadId: string, interrupt: StoredInterrupt, now: number) => {
    const key = `${interrupt.id}@${interrupt.expiresAt}`
    if (!routes.has(key)) routes.set(key, escalation(config, threadId, interrupt, now))
    return routes.get(key)!
  }
  let written
  try {
    written = await updateThread(
      config.store,
      head.id,
      async (current) => {
        const now = Date.now()
        escalated = []
        expired = []
        const recovery = recoverLostRun(current, runLeaseMs, config.tools)
        const { step } = recovery
        if (isRunning(current, runLeaseMs) || !step || step.running.length > 0) throw new NothingDue()
        const due = unanswered(step).filter((interrupt) => isExpired(interrupt, now))
        if (due.length === 0) throw new NothingDue()
        const drafts: DecisionDraft[] = []
        const routed = new Map<string, StoredInterrupt>()
        for (const interrupt of due) {
          const next = interrupt.reason === 'tool_approval' ? await routeOf(current.id, interrupt, now) : undefined
          if (!next) continue
          routed.set(interrupt.id, next.interrupt)
          drafts.push(next.draft)
        }
        escalated = [...routed.values()]
        const interrupts = step.interrupts.map((interrupt) => routed.get(interrupt.id) ?? interrupt)
        const open = unanswered({ ...step, interrupts })
        if (open.some((interrupt) => !isExpired(interrupt, now))) {
          // Something still waits: the step stays open; what expired without a route ends with it.
          if (routed.size === 0) throw new NothingDue()
          return escalate(current, { recovery, step: { ...step, interrupts }, decided: await chainDecisions(current.decisions, drafts, config.recordKey) })
        }
        expired = open
        const settled = await settleInterrupts(step.message, interrupts, config.tools, 'cancel', toolFailures(config, current.id, ''), now, EXPIRED_STEP_REASON)
        const outcomes = await recordOutcomes(current, interrupts, settled, SYSTEM, config.recordKey)
        return cancelStep(current, { recovery, step: { ...step, interrupts }, settled: outcomes, decided: outcomes.decided })
      },
      head,
    )
  } catch (error) {
    if (error instanceof NothingDue) return (await config.store.head(head.id)) ?? head
    throw error
  }
  void reportDecisions(config, written.change)
  if (request && expired.length > 0) config.telemetry?.waitsEnded(request, endedWaits(head.id, expired, Date.now()))
  if (escalated.length > 0) {
    void requestReviews(config, head.id, escalated)
    watchExpiry(config, head.id, escalated)
  }
  return written.head
}

/** What `onExpired` makes of an expired approval: the interrupt waiting for its new reviewers, and the record saying so. */
async function escalation(config: ChatConfig, threadId: string, interrupt: StoredInterrupt, now: number) {
  const hook = config.onExpired
  if (!hook) return undefined
  const expiredApproval: ExpiredApproval = {
    ...approvalFacts(threadId, interrupt),
    ...(interrupt.reviewers === undefined ? {} : { reviewers: interrupt.reviewers }),
    expiredAt: interrupt.expiresAt!,
    escalations: interrupt.escalations ?? 0,
  }
  let route
  try {
    route = await hook(expiredApproval)
  } catch (error) {
    report(config, threadId, interrupt, error)
    return undefined
  }
  if (route === undefined || route === null) return undefined
  const reviewers: Reviewers | string = typeof route === 'object' ? checkedReviewers(route.reviewers) : '`onExpired` must return `{ reviewers, ttlMs? }` or undefined'
  const ttlMs = typeof route === 'object' ? (route.ttlMs ?? config.limits.interruptTtlMs) : 0
  if (typeof reviewers === 'string' || !(Number.isSafeInteger(ttlMs) && ttlMs > 0)) {
    // A bad route is the app's bug: reported, and the approval expires (it fails closed).
    report(config, threadId, interrupt, new TypeError(`onExpired: ${typeof reviewers === 'string' ? reviewers : '`ttlMs` must be a positive integer of milliseconds'}`))
    return undefined
  }
  const expiresAt = new Date(now + ttlMs).toISOString()
  const { approvals: _, ...rest } = interrupt
  const next: StoredInterrupt = { ...rest, reviewers, expiresAt, escalations: (interrupt.escalations ?? 0) + 1 }
  const draft: DecisionDraft = {
    threadId,
    interruptId: interrupt.id,
    toolCallId: interrupt.toolCallId,
    toolName: interrupt.toolName,
    decision: 'escalated',
    by: SYSTEM,
    at: new Date(now).toISOString(),
    channel: 'chat',
    reason: `expired unanswered; now waits for ${describeReviewers(reviewers)} until ${expiresAt}`,
    shownArgs: expiredApproval.arguments,
  }
  return { interrupt: next, draft }
}

function report(config: ChatConfig, threadId: string, interrupt: StoredInterrupt, error: unknown): void {
  if (config.onError) config.onError(error, { threadId, runId: '', source: 'decision-hook', toolCallId: interrupt.toolCallId, toolName: interrupt.toolName })
  else console.error('[toolgate] onExpired failed:', error)
}

/** Thrown inside the update when nothing is due after all (another instance settled it first). */
class NothingDue extends Error {}

/** The longest a timer can wait (setTimeout's limit); a later expiry is settled by a reader, or by a timer set again. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Settles the thread's expiry when it is due on this instance. Only a shortcut: if this process
 * dies, the next reader of the thread settles it (`read` in edge/reads.ts), on any instance.
 */
export function watchExpiry(config: ChatConfig, threadId: string, interrupts: readonly StoredInterrupt[]): void {
  const due = Math.min(...interrupts.map((interrupt) => (interrupt.expiresAt === undefined ? Infinity : Date.parse(interrupt.expiresAt))))
  if (!Number.isFinite(due)) return
  const timer = setTimeout(() => {
    void (async () => {
      const head = await config.store.head(threadId)
      if (head) await settleDueExpiries(config, head)
    })().catch((error) => {
      if (config.onError) config.onError(error, { threadId, runId: '', source: 'decision-hook' })
      else console.error('[toolgate] settling an expired approval failed:', error)
    })
  }, Math.min(Math.max(0, due - Date.now()) + 5, MAX_TIMER_MS))
  // Never keeps a process alive: the store is the authority, the timer only saves a reader the wait.
  ;(timer as { unref?: () => void }).unref?.()
}
