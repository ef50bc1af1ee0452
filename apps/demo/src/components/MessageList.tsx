import { memo, useEffect, useRef } from 'react'
import type { DemoMessage } from '../types.ts'
import { renderToolCall } from '@toolgate/ai-react'
import { ThreadIdContext } from './Attachments.tsx'
import { ReviewContext } from './ToolCallCard.tsx'
import { GenericCard, toolRenderers } from './toolRenderers.tsx'
import { APP_TOOLS, McpAppView } from './McpAppView.tsx'

interface MessageListProps {
  readonly messages: readonly DemoMessage[]
  readonly onReview: (toolCallId: string) => void
  /** Where the thread's stored files load from; known once the first run starts. */
  readonly threadId: string | undefined
  /** Ids of the replies the user stopped. */
  readonly stopped: ReadonlySet<string>
}

/** The conversation; unchanged messages keep their identity, so `memo` skips them while tokens stream. */
export function MessageList({ messages, onReview, threadId, stopped }: MessageListProps) {
  const end = useRef<HTMLDivElement>(null)
  const last = messages[messages.length - 1]
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' })
  }, [last])
  return (
    <ReviewContext.Provider value={onReview}>
      <ThreadIdContext.Provider value={threadId}>
        <ol className="messages" aria-label="Conversation" aria-live="polite">
          {messages.map((message) => (
            <Message key={message.id} message={message} stopped={stopped.has(message.id) || (message.role === 'assistant' && message.stopped === true)} />
          ))}
          <div ref={end} />
        </ol>
      </ThreadIdContext.Provider>
    </ReviewContext.Provider>
  )
}

const Message = memo(function Message({ message, stopped }: { message: DemoMessage; stopped: boolean }) {
  return (
    <li className={`message message--${message.role}`} data-role={message.role}>
      <span className="visually-hidden">{message.role === 'user' ? 'You said:' : 'Assistant:'}</span>
      {message.parts.map((part, index) =>
        part.type === 'text' ? (
          part.text && (
            <p key={index} className="message__text">
              {part.text}
            </p>
          )
        ) : APP_TOOLS.has(part.toolName) ? (
          <McpAppView key={part.toolCallId} part={part} />
        ) : (
          renderToolCall(part, toolRenderers, GenericCard)
        ),
      )}
      {stopped && (
        <p className="message__stopped" role="note">
          Stopped: you ended this reply here.
        </p>
      )}
    </li>
  )
})
