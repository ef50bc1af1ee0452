import type { ChatStatus } from '@toolgate/ai/client'
import type { DemoApproval, DemoMessage } from './types.ts'

/**
 * The line above the message box, from what the page shows: "Thinking…" only until the reply's
 * text appears (after a reload mid-reply the text is there at once), and whom an approval waits
 * for ("finance"), not "your approval" when it is someone else's to give.
 */
export function statusText(status: ChatStatus, messages: readonly DemoMessage[], pendingApprovals: readonly DemoApproval[]): string {
  switch (status) {
    case 'streaming': {
      const last = messages.at(-1)
      const writing = last?.role === 'assistant' && last.parts.at(-1)?.type === 'text'
      return writing ? 'Writing…' : 'Thinking…'
    }
    case 'reconnecting':
      return 'Connection lost; reconnecting…'
    case 'running-tools':
      return 'Running tools in your browser…'
    case 'awaiting-approval': {
      if (pendingApprovals.some((approval) => waitsForMe(approval))) return 'Waiting for your approval'
      const others = [...new Set(pendingApprovals.map((approval) => approval.approval?.waitingFor ?? ''))].filter(Boolean)
      return `Waiting for ${others.join(' and ')}`
    }
    default:
      return ''
  }
}

/** Whether this page's person decides the approval: their own call without reviewers, or one that waits for them. */
export function waitsForMe(approval: Pick<DemoApproval, 'approval'>): boolean {
  const waitingFor = approval.approval?.waitingFor
  return waitingFor === undefined || waitingFor === 'you'
}
