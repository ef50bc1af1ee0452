import { useEffect, useRef } from 'react'
import { renderToolCall, useUserRequest, type ToolRenderers } from '@toolgate/ai-react'
import { askUserRequests } from '../clientTools.ts'
import type { DemoToolCall, DemoTools } from '../types.ts'
import { SubagentActivity } from './SubagentActivity.tsx'
import { ToolCallCard } from './ToolCallCard.tsx'

// Per-tool renderers, typed by tool name: each gets its call's part narrowed to its tool. Tools
// without one get the generic card.

export const toolRenderers: ToolRenderers<DemoTools> = {
  // Generative UI: the weather as a card in place of the raw result.
  get_weather: ({ part }) => (
    <ToolCallCard call={part as DemoToolCall} showOutput={false}>
      {part.state === 'output-available' && (
        <div className="weather-card" aria-label={`Weather in ${part.output.city}`}>
          <span className="weather-card__temp">{part.output.tempC}°C</span>
          <span>
            {part.output.city} · {part.output.conditions}
          </span>
        </div>
      )}
    </ToolCallCard>
  ),
  // A client tool that waits for the user: its card asks, and the answer is the tool's result.
  ask_user: ({ part }) => {
    const request = useUserRequest(askUserRequests, part.toolCallId)
    const question = useRef<HTMLDivElement>(null)
    // The run waits for this answer: bring the question to the middle of the screen, clear of the composer.
    useEffect(() => {
      if (request) question.current?.scrollIntoView({ block: 'center' })
    }, [request])
    return (
      <ToolCallCard call={part as DemoToolCall}>
        {request && (
          <div ref={question} className="ask-user" role="group" aria-label={request.input.question}>
            <p>{request.input.question}</p>
            {request.input.options.map((option) => (
              <button key={option} type="button" className="choice" onClick={() => request.respond({ choice: option })}>
                {option}
              </button>
            ))}
            <button type="button" className="link-button" onClick={() => request.decline('The user preferred not to choose')}>
              Skip
            </button>
          </div>
        )}
      </ToolCallCard>
    )
  },
}

/** The generic card, for tools without a renderer of their own; an agent tool's card holds its subagent's work. */
export function GenericCard({ part }: { readonly part: DemoToolCall }) {
  return (
    <ToolCallCard call={part}>
      {part.subagent && <SubagentActivity subagent={part.subagent} renderCall={(call) => renderToolCall(call as DemoToolCall, toolRenderers, GenericCard)} />}
    </ToolCallCard>
  )
}
