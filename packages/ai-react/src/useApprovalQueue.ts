import { useState } from 'react'
import type { AnyTool } from '@toolgate/ai'
import type { PendingApproval } from '@toolgate/ai/client'
import type { UseChatResult } from './useChat.ts'

export interface UseApprovalQueueResult<TApproval = PendingApproval> {
  /** Every pending approval, oldest first: the batch of the paused step. */
  readonly pending: readonly TApproval[]
  /** The one to show now: the first not put aside, or the one asked for with `review`. */
  readonly current: TApproval | undefined
  /** `current`'s place among the pending, from 1. */
  readonly position: { readonly index: number; readonly total: number }
  /** Approvals put aside to review later (they stay pending; the run waits). */
  readonly dismissed: readonly TApproval[]
  dismiss(toolCallId: string): void
  review(toolCallId: string): void
  /** Approves every pending call as the model sent it. */
  approveAll(): Promise<void>
  /** Denies every pending call, each with `reason`. */
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
  const current = pending.find((approval) => approval.toolCallId === focused) ?? pending.find((approval) => !isDismissed(approval))
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
    approveAll: async () => {
      await Promise.all(pending.map((approval) => chat.approve(approval.toolCallId)))
    },
    denyAll: async (reason) => {
      await Promise.all(pending.map((approval) => chat.deny(approval.toolCallId, reason)))
    },
  }
}
