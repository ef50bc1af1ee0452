/// <reference types="vite/client" />
import { useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { useChat } from '@toolgate/ai-react'
import { McpApp } from '@toolgate/ai-react/mcp-app'

// A chat whose tool calls show their MCP App. The sandbox proxy is
// `@toolgate/ai-react/mcp-app-sandbox.html`, served as it is from another origin than this page.
const endpoint = '/api/chat'
const sandbox = import.meta.env.VITE_MCP_APP_SANDBOX

/** The thread lives in the URL, so a reload shows it again, apps included. */
const thread = new URL(location.href).searchParams.get('thread') ?? undefined

function Chat() {
  const { client, messages, pendingApprovals, threadId, send, approve, deny, load } = useChat({ endpoint, threadId: thread })
  const [draft, setDraft] = useState('')
  useEffect(() => void load(), [load])
  useEffect(() => {
    if (threadId) history.replaceState(null, '', `?thread=${threadId}`)
  }, [threadId])

  return (
    <main>
      {messages.map((message) => (
        <article key={message.id} data-role={message.role}>
          {message.parts.map((part, i) =>
            part.type === 'text' ? (
              <p key={i}>{part.text}</p>
            ) : part.toolName === 'show_rooms' ? (
              <McpApp key={part.toolCallId} client={client} endpoint={endpoint} sandbox={sandbox} call={part} />
            ) : (
              <p key={part.toolCallId}>{`${part.toolName}: ${part.state}`}</p>
            ),
          )}
        </article>
      ))}
      {pendingApprovals.map((call) => (
        <div key={call.toolCallId} role="dialog" aria-label={`Approve ${call.toolName}`}>
          {call.approval?.reason}
          <button onClick={() => approve(call.toolCallId)}>Approve</button>
          <button onClick={() => deny(call.toolCallId)}>Deny</button>
        </div>
      ))}
      <form onSubmit={(event) => (event.preventDefault(), send(draft), setDraft(''))}>
        <input aria-label="Message" value={draft} onChange={(event) => setDraft(event.target.value)} />
        <button>Send</button>
      </form>
    </main>
  )
}

createRoot(document.getElementById('root')!).render(<Chat />)
