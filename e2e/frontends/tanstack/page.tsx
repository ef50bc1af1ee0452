import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { toolDefinition, type ToolCallPart } from '@tanstack/ai'

// TanStack AI's own `useChat` on the demo's server, wired as the guide says
// (docs/existing-frontends.md): its stock SSE connection at `?client=tanstack`, the thread id in the
// URL and `persistence: true`, so a reload reads the thread from the server and rejoins a run.
// Only TanStack's API is used; nothing of Toolgate's client.

function threadIdOfPage(): string {
  const url = new URL(location.href)
  const id = url.searchParams.get('thread') ?? `tanstack-${crypto.randomUUID()}`
  if (!url.searchParams.has('thread')) {
    url.searchParams.set('thread', id)
    history.replaceState(null, '', url)
  }
  return id
}

const threadId = threadIdOfPage()
const connection = fetchServerSentEvents('/api/chat?client=tanstack')

/** How often the page ran each client tool, kept across reloads (sessionStorage), so a test sees a tool run once. */
function ran(name: string): void {
  const key = `ran:${name}`
  sessionStorage.setItem(key, String(Number(sessionStorage.getItem(key) ?? 0) + 1))
  document.body.dataset[`ran_${name}`] = sessionStorage.getItem(key)!
}

// The demo's browser tools (bare definitions on the server), as TanStack client tools of the same name:
// TanStack runs one when the server hands its call over, and resumes with its output.
const clientTools = [
  toolDefinition({ name: 'set_theme', description: 'Switch the page between light and dark' }).client((input) => {
    const { theme } = input as { theme: 'light' | 'dark' }
    ran('set_theme')
    document.documentElement.dataset.theme = theme
    return { theme }
  }),
  toolDefinition({ name: 'copy_to_clipboard', description: "Copy text to the user's clipboard" }).client((input) => {
    const { text } = input as { text: string }
    ran('copy_to_clipboard')
    document.body.dataset.copied = text // not the real clipboard: a headless browser may not grant it
    return { copied: true }
  }),
  toolDefinition({ name: 'get_browser_info', description: "The browser's time zone and language" }).client(async () => {
    ran('get_browser_info')
    return { timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone, language: navigator.language }
  }),
]

/** `ask_user`'s options, once its arguments have streamed whole. */
function optionsOf(args: string): string[] {
  try {
    return (JSON.parse(args) as { options?: string[] }).options ?? []
  } catch {
    return [] // still streaming
  }
}

/** Stops the run on the server (`stop()` only stops reading); what to tell the user when that fails: the run goes on there. */
async function stopOnServer(threadId: string): Promise<string | undefined> {
  const failed = 'The run may still be going on the server: stopping it failed'
  try {
    const response = await fetch('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ threadId, stop: true }) })
    return response.ok ? undefined : `${failed} (${response.status}).`
  } catch {
    return `${failed} (the server could not be reached).`
  }
}

function Chat() {
  const [notStopped, setNotStopped] = useState<string>()
  const { messages, sendMessage, addToolApprovalResponse, addToolResult, interrupts, status, error, stop } = useChat({ connection, threadId, persistence: true, tools: clientTools })
  const [text, setText] = useState('')
  return (
    <main data-testid="chat" data-status={status}>
      <h1>TanStack AI useChat</h1>
      {messages.map((message) => (
        <section key={message.id} data-testid="message" data-role={message.role}>
          {/* Toolgate marks a turn the user stopped in the message's metadata (a reloaded thread). */}
          {message.metadata?.toolgate?.stopped === true && <em data-testid="stopped">(stopped)</em>}
          {message.parts.map((each, index) => {
            if (each.type === 'text') return <p key={index} data-testid="text">{each.content}</p>
            if (each.type !== 'tool-call') return null
            // Typed by the page's client tools alone; the server's tools, and their approvals, come too.
            const part: ToolCallPart = each
            // The interrupt behind the approval (its id is the approval's): the policy's reason is its `message`.
            const interrupt = interrupts.find((each) => each.id === part.approval?.id)
            return (
              <div key={index} data-testid="tool" data-tool={part.name} data-state={part.state}>
                <code>
                  {part.name} {part.arguments}
                </code>
                {part.output !== undefined && <pre data-testid="output">{JSON.stringify(part.output)}</pre>}
                {/* `ask_user` waits for the person, live or after a reload: their choice is its output. */}
                {part.name === 'ask_user' && part.output === undefined && (
                  <div role="group" aria-label="Answer">
                    {optionsOf(part.arguments).map((option) => (
                      <button key={option} onClick={() => void addToolResult({ tool: 'ask_user', toolCallId: part.id, output: { choice: option } })}>
                        {option}
                      </button>
                    ))}
                  </div>
                )}
                {part.state === 'approval-requested' && part.approval && (
                  <div role="group" aria-label={`Approve ${part.name}`}>
                    <p data-testid="approval-reason">{interrupt?.message}</p>
                    <button onClick={() => void addToolApprovalResponse({ id: part.approval!.id, approved: true })}>Approve</button>
                    <button onClick={() => void addToolApprovalResponse({ id: part.approval!.id, approved: false })}>Deny</button>
                  </div>
                )}
              </div>
            )
          })}
        </section>
      ))}
      {error && <p data-testid="error">{error.message}</p>}
      {notStopped && <p role="alert">{notStopped}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          if (text.trim() === '') return
          setNotStopped(undefined) // as the guide has it: a new message ends whatever runs
          void sendMessage(text)
          setText('')
        }}
      >
        <input aria-label="Message" value={text} onChange={(event) => setText(event.target.value)} />
        <button type="submit" disabled={status !== 'ready' && status !== 'error'}>
          Send
        </button>
      </form>
      {/* `stop()` stops reading; the guide's POST stops the run on the server, and says when it could not. */}
      <button
        onClick={() => {
          stop()
          void stopOnServer(threadId).then(setNotStopped)
        }}
      >
        Stop
      </button>
    </main>
  )
}

createRoot(document.getElementById('root')!).render(<Chat />)
