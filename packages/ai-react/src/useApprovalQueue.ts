import { useState } from 'react'
import type { AnyTool } from '@toolgate/ai'
import type { PendingApproval } from '@toolgate/ai/client'
import type { UseChatResult } from './useChat.ts'

/** Whom a pending approval waits for: the user of this chat, or the reviewers its policy named. */
export interface ApprovalWaiter {
  /** `you`, or the reviewers: `finance`, `carol or dave`, `2 reviewers (finance)`. */
  readonly label: string
  /** Set when reviewers must decide (the requester may not): roles, users and how many. */
  readonly reviewers: NonNullable<NonNullable<PendingApproval['approval']>['reviewers']> | undefined
}

export interface UseApprovalQueueResult<TApproval = PendingApproval> {
  /** Every pending approval, oldest first: the batch of the paused step, those waiting for reviewers included. */
  readonly pending: readonly TApproval[]
  /**
   * The one to show now: the first this chat's user can answer (no reviewers named, or it waits for
   * them: `waitingFor: 'you'`, with the client's `user`) not put aside, or the one asked for with `review`.
   */
  readonly current: TApproval | undefined
  /** `current`'s place among the pending, from 1. */
  readonly position: { readonly index: number; readonly total: number }
  /** Approvals put aside to review later (they stay pending; the run waits). */
  readonly dismissed: readonly TApproval[]
  /** Puts an approval aside ("review later"): nothing is sent, the interrupt stays open on the server, and the run waits. */
  dismiss(toolCallId: string): void
  review(toolCallId: string): void
  /** Whom `approval` waits for, to show on each item. */
  waitsFor(approval: TApproval): ApprovalWaiter
  /** Approves every pending call this chat's user can answer, as the model sent it. */
  approveAll(): Promise<void>
  /** Denies every pending call this chat's user can answer, each with `reason`. */
  denyAll(reason?: string): Promise<void>
}

/**
 * The approvals a run waits for, one at a time: dismiss one to review it later, bring it back with
 * `review`, or answer the whole batch of parallel calls at once.
 */
export function useApprovalQueue<TChat extends Pick<UseChatResult<readonly AnyTool[]>, 'pendingApprovals' | 'approve' | 'deny'>>(
  chat: TChat,
): UseApprovalQueueResult<TChat['pendingApprovals'][number]> {
  type TApproval = TChat['pendingApprovals'][number]
  const [dismissedIds, setDismissed] = useState<readonly string[]>([])
  const [focused, setFocused] = useState<string>()
  const pending: readonly TApproval[] = chat.pendingApprovals
  const isDismissed = (approval: TApproval) => dismissedIds.includes(approval.toolCallId)
  // One another reviewer must decide is shown as waiting, not asked of this chat's user (the server would refuse them).
  const answerable = pending.filter((approval) => !approval.approval?.reviewers || approval.approval.waitingFor === 'you')
  const current = pending.find((approval) => approval.toolCallId === focused) ?? answerable.find((approval) => !isDismissed(approval))
  return {
    pending,
    current,
    position: { index: current ? pending.indexOf(current) + 1 : 0, total: pending.length },
    dismissed: pending.filter(isDismissed),
    dismiss: (toolCallId) => {
      setDismissed((ids) => (ids.includes(toolCallId) ? ids : [...ids, toolCallId]))
      setFocused((id) => (id === toolCallId ? undefined : id))
    },
    review: (toolCallId) => {
      setDismissed((ids) => ids.filter((id) => id !== toolCallId))
      setFocused(toolCallId)
    },
    waitsFor: (approval) => ({ label: approval.approval?.waitingFor ?? 'you', reviewers: approval.approval?.reviewers }),
    approveAll: async () => {
      await Promise.all(answerable.map((approval) => chat.approve(approval.toolCallId)))
    },
    denyAll: async (reason) => {
      await Promise.all(answerable.map((approval) => chat.deny(approval.toolCallId, reason)))
    },
  }
}
