import { createContext, memo, useContext, type ReactNode } from 'react'
import type { ToolCallState } from '@toolgate/ai/client'
import type { DemoToolCall } from '../types.ts'
import { Attachments } from './Attachments.tsx'
import { Icon } from './Icon.tsx'

const STATE_LABELS: Record<ToolCallState, string> = {
  'input-streaming': 'Writing arguments…',
  'input-available': 'Ready',
  'approval-requested': 'Awaiting approval',
  executing: 'Running…',
  'output-available': 'Done',
  'output-error': 'Failed',
  denied: 'Denied',
  expired: 'Expired',
  cancelled: 'Cancelled',
}

/** Opens the approval dialog of a call again after it was put aside. */
export const ReviewContext = createContext<(toolCallId: string) => void>(() => {})

interface ToolCallCardProps {
  readonly call: DemoToolCall
  /** What a tool's own renderer adds to the card (generative UI). */
  readonly children?: ReactNode
  /** `false` when `children` show the output already, so it is not shown twice. Default `true`. */
  readonly showOutput?: boolean
}

/** One tool call: its state, its arguments as they stream, its result or error. */
export const ToolCallCard = memo(function ToolCallCard({ call, children, showOutput = true }: ToolCallCardProps) {
  const onReview = useContext(ReviewContext)
  const metadata = call.metadata as { icon?: string; destructive?: boolean; display?: string }
  const labelId = `call-${call.toolCallId}-label`
  // A think tool's call is the model's thought, not an action: shown as such.
  if (metadata.display === 'thought') {
    const thought = (call.input as { thought?: string } | undefined)?.thought
    return (
      <aside className="thought" data-tool={call.toolName} aria-label="Thought">
        <Icon name="thought" /> <em>{thought ?? '…'}</em>
      </aside>
    )
  }
  return (
    <article className="tool-card" data-state={call.state} data-tool={call.toolName} aria-labelledby={labelId}>
      <header className="tool-card__header">
        <Icon name={metadata.icon} className="tool-card__icon" />
        <h3 className="tool-card__name" id={labelId}>
          <code>{call.toolName}</code>
        </h3>
        {metadata.destructive && <span className="badge badge--danger">Destructive</span>}
        <span className="badge tool-card__state" data-state={call.state} role="status">
          {STATE_LABELS[call.state]}
        </span>
      </header>
      <section aria-label="Arguments">
        <pre className="tool-card__json">{formatJson(call.input)}</pre>
      </section>
      {call.state === 'approval-requested' && (
        <p className="tool-card__note" data-testid="waiting-for">
          {waitingText(call)}{' '}
          {(call.approval?.waitingFor ?? 'you') === 'you' && (
            <button type="button" className="link-button" onClick={() => onReview(call.toolCallId)}>
              Review
            </button>
          )}
        </p>
      )}
      {children}
      {call.state === 'output-available' && showOutput && (
        <section aria-label="Result">
          <pre className="tool-card__json tool-card__json--result">{formatJson(call.output)}</pre>
        </section>
      )}
      {call.state === 'output-available' && call.attachments && <Attachments attachments={call.attachments} />}
      {call.state === 'output-error' && (
        <p className="tool-card__error" role="alert" aria-label="Error">
          {call.error}
        </p>
      )}
      {call.decision && (
        <p className="tool-card__decision" data-testid="decision">
          {decisionText(call.decision)}
        </p>
      )}
      {(call.state === 'expired' || call.state === 'cancelled') && (
        <p className="tool-card__note">
          {call.state === 'expired' ? 'No one answered in time; it did not run.' : 'Cancelled before anyone decided; it did not run.'}
        </p>
      )}
      {call.state === 'denied' && !call.decision && <p className="tool-card__note">Denied</p>}
      {call.state === 'denied' && call.approval?.denyReason && (
        <p className="tool-card__note" data-testid="deny-reason">
          Reason: {call.approval.denyReason}
        </p>
      )}
    </article>
  )
})

/**
 * "Waits for finance, asked by Alice. Sends 250 EUR to Carol": whom the call waits for, in words
 * (`you` when it is this person's to decide), who asked, and the policy's reason.
 */
function waitingText(call: DemoToolCall): string {
  const approval = call.approval
  const who = approval?.waitingFor ?? 'you'
  const asked = approval?.requestedBy ? `, asked by ${approval.requestedBy.name ?? approval.requestedBy.id}` : ''
  const reason = approval?.reason ?? (who === 'you' ? 'This tool asks for your approval.' : undefined)
  return `Waits for ${who}${asked}.${reason ? ` ${reason}` : ''}`
}

/** "approved by Bob at 10:42, edited: amount": the decision trail of a card. */
function decisionText(decision: NonNullable<DemoToolCall['decision']>): string {
  const who = decision.by.name ?? decision.by.id
  const when = new Date(decision.at).toLocaleTimeString()
  const verb = decision.decision === 'granted' ? 'ran under a grant from' : `${decision.decision} by`
  const via = decision.channel === 'review-link' ? ' via a review link' : ''
  const granted = decision.grantId && decision.decision !== 'granted' ? ', allowed for this conversation' : ''
  return `${verb[0]!.toUpperCase()}${verb.slice(1)} ${who} at ${when}${via}${decision.editedFields?.length ? `, edited: ${decision.editedFields.join(', ')}` : ''}${granted}`
}

function formatJson(value: unknown): string {
  return value === undefined ? '…' : JSON.stringify(value, null, 2)
}
