'use client'
import { useChat } from '@toolgate/ai-react'
import { getWeather, transferMoney } from '../../shared/chat.ts'

const tools = [getWeather, transferMoney] as const

export default function Page() {
  const { messages, pendingApprovals, send, approve, deny, status } = useChat({ endpoint: '/api/chat', tools })
  return (
    <main>
      {messages.map((message) =>
        message.parts.map((part, index) =>
          part.type === 'text' ? (
            <p key={`${message.id}-${index}`}>{part.text}</p>
          ) : (
            <p key={part.toolCallId}>
              {part.toolName} — {part.state}
              {part.toolName === 'get_weather' && part.state === 'output-available' ? ` ${part.output.tempC}°C` : ''}
            </p>
          ),
        ),
      )}
      {pendingApprovals.map((approval) => (
        <div key={approval.toolCallId} role="alertdialog" aria-label={`Allow ${approval.toolName}?`}>
          {approval.approval?.reason}
          <button onClick={() => approve(approval.toolCallId)}>Approve</button>
          <button onClick={() => deny(approval.toolCallId, 'Not now')}>Deny</button>
        </div>
      ))}
      <button disabled={status === 'streaming'} onClick={() => send('weather in Paris and send 250 to Bob')}>
        Try it
      </button>
    </main>
  )
}
