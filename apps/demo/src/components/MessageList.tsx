import { memo, useEffect, useRef } from 'react'
import type { DemoMessage } from '../types.ts'
import { ToolCallCard } from './ToolCallCard.tsx'

interface MessageListProps {
  readonly messages: readonly DemoMessage[]
  readonly onReview: (toolCallId: string) => void
}

/** The conversation; unchanged messages keep their identity, so `memo` skips them while tokens stream. */
export function MessageList({ messages, onReview }: MessageListProps) {
  const end = useRef<HTMLDivElement>(null)
  const last = messages[messages.length - 1]
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' })
  }, [last])
  return (
    <ol className="messages" aria-label="Conversation" aria-live="polite">
      {messages.map((message) => (
        <Message key={message.id} message={message} onReview={onReview} />
      ))}
      <div ref={end} />
    </ol>
  )
}

const Message = memo(function Message({ message, onReview }: { message: DemoMessage; onReview: MessageListProps['onReview'] }) {
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
        ) : (
          <ToolCallCard key={part.toolCallId} call={part} onReview={onReview} />
        ),
      )}
    </li>
  )
})
