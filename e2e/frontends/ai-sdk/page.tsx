import { useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'

// The page both AI SDK versions share: a plain chat over `useChat`'s messages, with approval
// buttons on calls that ask for one. Only the AI SDK's own API is used; nothing of Toolgate's client.

interface Part {
  type: string
  text?: string
  state?: string
  toolCallId?: string
  input?: unknown
  output?: unknown
  errorText?: string
  approval?: { id: string; approved?: boolean; reason?: string }
  /** Toolgate puts the approval policy's reason here (server tools). */
  toolMetadata?: { toolgate?: { approvalReason?: string } }
  url?: string
  mediaType?: string
  /** Toolgate marks the parts of a step the user stopped (a reloaded thread). */
  providerMetadata?: { toolgate?: { stopped?: true } }
  callProviderMetadata?: { toolgate?: { stopped?: true } }
}
interface Message {
  id: string
  role: string
  parts: Part[]
}
/** What the page needs of `useChat`'s result, in either version. */
interface ChatHelpers {
  messages: Message[]
  status: string
  error: Error | undefined
  sendMessage(message: { text: string }): Promise<void>
  stop(): Promise<void>
  addToolApprovalResponse(response: { id: string; approved: boolean; reason?: string }): void | PromiseLike<void>
  addToolOutput(output: { tool: never; toolCallId: string; output: never }): void | PromiseLike<void>
}

/** How often the page ran each browser tool, kept across reloads (sessionStorage), so a test sees a tool run once. */
function ran(name: string): void {
  const key = `ran:${name}`
  sessionStorage.setItem(key, String(Number(sessionStorage.getItem(key) ?? 0) + 1))
  showRuns()
}
function showRuns(): void {
  for (const key of Object.keys(sessionStorage)) if (key.startsWith('ran:')) document.body.dataset[`ran_${key.slice(4)}`] = sessionStorage.getItem(key)!
}
showRuns()

/** The browser tools of the demo's server, run here. */
export function runBrowserTool(name: string, input: unknown): unknown {
  ran(name)
  if (name === 'set_theme') {
    const { theme } = input as { theme: 'light' | 'dark' }
    document.documentElement.dataset.theme = theme
    return { theme }
  }
  if (name === 'get_browser_info') return { timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone, language: navigator.language }
  return undefined
}

/** The stored thread as `UIMessage`s, and how its last run failed, as the guide's `loadChat` reads it. */
export async function loadChat(id: string): Promise<{ messages: unknown[]; lastRunError?: { message: string } }> {
  const response = await fetch(`/api/chat?threadId=${encodeURIComponent(id)}&format=ai-sdk`)
  if (response.status === 404) return { messages: [] }
  if (!response.ok) throw new Error(await response.text())
  return (await response.json()) as { messages: unknown[]; lastRunError?: { message: string } }
}

export function mount<M>(version: string, useToolgateChat: (id: string, messages: M[]) => unknown): void {
  createRoot(document.getElementById('root')!).render(<Page version={version} useToolgateChat={useToolgateChat as (id: string, messages: unknown[]) => unknown} />)
}

/** The chat id lives in the URL, so a reload finds the thread; its messages come from the server. */
function Page({ version, useToolgateChat }: { version: string; useToolgateChat: (id: string, messages: unknown[]) => unknown }) {
  const [loaded, setLoaded] = useState<{ id: string; messages: unknown[]; lastRunError?: { message: string } }>()
  useEffect(() => {
    const url = new URL(location.href)
    const id = url.searchParams.get('chat') ?? `aisdk-${crypto.randomUUID()}`
    if (!url.searchParams.has('chat')) {
      url.searchParams.set('chat', id)
      history.replaceState(null, '', url)
    }
    void loadChat(id).then((thread) => setLoaded({ id, ...thread }))
  }, [])
  if (!loaded) return <p>Loading…</p>
  return <Chat version={version} id={loaded.id} initial={loaded.messages} lastRunError={loaded.lastRunError} useToolgateChat={useToolgateChat} />
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

function Chat({ version, id, initial, lastRunError, useToolgateChat }: { version: string; id: string; initial: unknown[]; lastRunError?: { message: string }; useToolgateChat: (id: string, messages: unknown[]) => unknown }) {
  const chat = useToolgateChat(id, initial) as ChatHelpers
  // `useChat` takes no error to start with: a reloaded thread's failed run is shown until the chat moves on.
  const error = chat.error ?? (chat.messages.length === initial.length ? lastRunError : undefined)
  const [text, setText] = useState('')
  const [notStopped, setNotStopped] = useState<string>()
  return (
    <main data-testid="chat" data-status={chat.status} data-version={version}>
      <h1>AI SDK {version} useChat</h1>
      {chat.messages.map((message) => (
        <section key={message.id} data-testid="message" data-role={message.role}>
          {message.parts.map((part, index) => (
            <PartView key={index} part={part} chat={chat} />
          ))}
        </section>
      ))}
      {error && <p data-testid="error">{error.message}</p>}
      {notStopped && <p role="alert">{notStopped}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          if (text.trim() === '') return
          setNotStopped(undefined) // as the guide has it: a new message ends whatever runs
          void chat.sendMessage({ text })
          setText('')
        }}
      >
        <input aria-label="Message" value={text} onChange={(event) => setText(event.target.value)} />
        {/* As the guide has it: a chat that goes to `error` (a new chat's first reconnect did) never sends again. */}
        <button type="submit" disabled={chat.status !== 'ready'}>
          Send
        </button>
      </form>
      {/* `stop()` only stops reading; the guide's POST stops the run on the server, and says when it could not. */}
      <button
        disabled={chat.status !== 'streaming' && chat.status !== 'submitted'}
        onClick={() => {
          void chat.stop()
          void stopOnServer(id).then(setNotStopped)
        }}
      >
        Stop
      </button>
    </main>
  )
}

function PartView({ part, chat }: { part: Part; chat: ChatHelpers }) {
  const [reason, setReason] = useState('')
  if (part.type === 'text')
    return (
      <p data-testid="text">
        {part.text}
        {part.providerMetadata?.toolgate?.stopped && <em data-testid="stopped"> (stopped)</em>}
      </p>
    )
  if (part.type === 'file') return <img data-testid="file" src={part.url} alt={part.mediaType} />
  if (!part.type.startsWith('tool-')) return null
  const name = part.type.slice('tool-'.length)
  return (
    <div data-testid="tool" data-tool={name} data-state={part.state}>
      <code>
        {name} {JSON.stringify(part.input)}
      </code>
      {part.state === 'output-available' && <pre data-testid="output">{JSON.stringify(part.output)}</pre>}
      {part.state === 'output-error' && <pre data-testid="output-error">{part.errorText}</pre>}
      {/* `ask_user` waits for the person, live or after a reload (an `input-available` part): their choice is its output. */}
      {name === 'ask_user' && part.state === 'input-available' && (
        <div role="group" aria-label="Answer">
          {((part.input as { options?: string[] } | undefined)?.options ?? []).map((option) => (
            <button key={option} onClick={() => void chat.addToolOutput({ tool: 'ask_user' as never, toolCallId: part.toolCallId!, output: { choice: option } as never })}>
              {option}
            </button>
          ))}
        </div>
      )}
      {part.state === 'output-denied' && <p data-testid="denied">Denied{part.approval?.reason ? `: ${part.approval.reason}` : ''}</p>}
      {part.state === 'approval-requested' && part.approval && (
        <div role="group" aria-label={`Approve ${name}`}>
          <p data-testid="approval-reason">{part.toolMetadata?.toolgate?.approvalReason}</p>
          <button onClick={() => void chat.addToolApprovalResponse({ id: part.approval!.id, approved: true })}>Approve</button>
          <input aria-label="Reason" value={reason} onChange={(event) => setReason(event.target.value)} />
          <button onClick={() => void chat.addToolApprovalResponse({ id: part.approval!.id, approved: false, ...(reason ? { reason } : {}) })}>Deny</button>
        </div>
      )}
    </div>
  )
}
