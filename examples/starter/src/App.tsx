import { useState } from 'react'
import { useChat } from '@toolgate/ai-react'
import { getWeather, sendEmail } from './tools.ts'

const tools = [getWeather, sendEmail] as const

export function App() {
  const chat = useChat({ endpoint: '/api/chat', tools })
  const [text, setText] = useState('')
  return (
    <main>
      {chat.messages.map((message) => (
        <section key={message.id} data-role={message.role}>
          {message.parts.map((part, index) =>
            part.type === 'text' ? (
              <p key={index}>{part.text}</p>
            ) : (
              <p key={part.toolCallId}>
                <code>{part.toolName}</code>: {part.state}
              </p>
            ),
          )}
        </section>
      ))}
      {chat.pendingApprovals.map((approval) =>
        // A call whose policy names reviewers waits for them ("finance"): this page only says so.
        approval.approval?.waitingFor && approval.approval.waitingFor !== 'you' ? (
          <p key={approval.toolCallId}>
            {approval.toolName} waits for {approval.approval.waitingFor}
          </p>
        ) : (
          <p key={approval.toolCallId}>
            Allow {approval.toolName}? {approval.approval?.reason}{' '}
            <button onClick={() => chat.approve(approval.toolCallId)}>Approve</button>{' '}
            <button onClick={() => chat.deny(approval.toolCallId, 'Not now')}>Deny</button>
          </p>
        ),
      )}
      {chat.error && <p role="alert">{chat.error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void chat.send(text)
          setText('')
        }}
      >
        <input value={text} onChange={(event) => setText(event.target.value)} placeholder='Try "email bob@example.com"' />
        <button disabled={chat.status === 'streaming' || text.trim() === ''}>Send</button>
      </form>
    </main>
  )
}
