import type { ReactNode } from 'react'
import type { SubagentPart, ToolCallPart } from '@toolgate/ai/client'

const STATUS_LABELS: Record<SubagentPart['status'], string> = {
  running: 'Working…',
  suspended: 'Waiting for an answer',
  finished: 'Done',
  error: 'Failed',
}

interface SubagentActivityProps {
  readonly subagent: SubagentPart
  /** Renders one of its tool calls (with the chat's renderers: a call of another agent holds that one's work in turn). */
  readonly renderCall: (call: ToolCallPart) => ReactNode
}

/** What a subagent (an agent tool's own model and tools) did inside its call: its text and calls, as they stream. */
export function SubagentActivity({ subagent, renderCall }: SubagentActivityProps) {
  const labelId = `subagent-${subagent.subagentRunId}`
  return (
    <section className="subagent" data-status={subagent.status} data-agent={subagent.name} aria-labelledby={labelId}>
      <header className="subagent__header">
        <span id={labelId} className="subagent__name">
          {subagent.name}
        </span>
        <span className="badge subagent__status" role="status">
          {STATUS_LABELS[subagent.status]}
        </span>
      </header>
      {subagent.parts.map((part, index) =>
        part.type === 'text' ? (
          <p key={index} className="subagent__text">
            {part.text}
          </p>
        ) : (
          renderCall(part)
        ),
      )}
      {subagent.status === 'error' && (
        <p className="tool-card__error" role="alert">
          {subagent.error}
        </p>
      )}
    </section>
  )
}
