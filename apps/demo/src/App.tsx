import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react'
import { useApprovalQueue, useChat } from '@toolgate/ai-react'
import { ApprovalDialog } from './components/ApprovalDialog.tsx'
import { Composer } from './components/Composer.tsx'
import { MessageList } from './components/MessageList.tsx'
import { ToolCatalog } from './components/ToolCatalog.tsx'
import { IdentitySwitcher } from './components/IdentitySwitcher.tsx'
import { Grants } from './components/Grants.tsx'
import { currentPerson } from './identity.ts'
import { statusText, waitsForMe } from './status.ts'
import { chatTools } from './clientTools.ts'
import { ChatClientContext } from './components/McpAppView.tsx'
import { suggestions } from './suggestions.ts'
import { putThreadIdInUrl, threadIdFromUrl } from './threadUrl.ts'

// Its own chunk, loaded when first opened: the chat's bundle carries none of it.
const ToolgateDevtools = lazy(() => import('@toolgate/ai-react/devtools').then((module) => ({ default: module.ToolgateDevtools })))

export function App() {
  const [initialThreadId] = useState(threadIdFromUrl)
  const [user] = useState(currentPerson)
  const chat = useChat({ endpoint: '/api/chat', tools: chatTools, threadId: initialThreadId, user })
  const { messages, status, error, threadId, pendingApprovals } = chat
  const queue = useApprovalQueue(chat)
  const [devtoolsOpen, setDevtoolsOpen] = useState(false)

  useEffect(() => {
    putThreadIdInUrl(threadId)
  }, [threadId])

  // Stable for the memoized message list: the queue's `review` changes with every render.
  const review = useRef(queue.review)
  review.current = queue.review
  const onReview = useCallback((toolCallId: string) => review.current(toolCallId), [])
  const { current } = queue
  // Replies the user stopped on this page, marked at once; after a reload the stored thread says so (`message.stopped`).
  const [stopped, setStopped] = useState<ReadonlySet<string>>(() => new Set())
  const stop = () => {
    const last = messages.at(-1)
    if (last?.role === 'assistant') setStopped((ids) => new Set(ids).add(last.id))
    chat.stop()
  }
  const busy = status === 'streaming' || status === 'running-tools'

  return (
    <div className="app" data-status={status}>
      <header className="app__header">
        <div className="brand">
          <svg className="brand__mark" viewBox="0 0 32 32" width="32" height="32" aria-hidden="true">
            <rect width="32" height="32" rx="8" fill="var(--accent)" />
            <path d="M7 10h18M9 14h14M11 10v14M21 10v14" stroke="var(--accent-text)" strokeWidth="2.5" strokeLinecap="round" />
          </svg>
          <div>
            <h1>Toolgate</h1>
            <p className="brand__tagline">One tool definition, every side of the chat</p>
          </div>
        </div>
        <div className="app__meta">
          {threadId && (
            <span className="thread-id" title="Thread id (also in the address bar)">
              Thread <code data-testid="thread-id">{threadId.slice(0, 10)}…</code>
            </span>
          )}
          <IdentitySwitcher />
          <a className="button button--ghost" href="/outbox">
            Outbox
          </a>
          <button type="button" className="button button--ghost" aria-pressed={devtoolsOpen} onClick={() => setDevtoolsOpen((open) => !open)}>
            Devtools
          </button>
          <a className="button button--ghost" href="/">
            New chat
          </a>
        </div>
      </header>

      <main className="app__main">
        {messages.length === 0 && status !== 'streaming' ? (
          <section className="welcome" aria-labelledby="welcome-title">
            <h2 id="welcome-title">Try a prompt</h2>
            <p>
              The embedded scripted model calls tools on the server and in your browser, and asks you before anything risky.
            </p>
            <ul className="suggestions" aria-label="Suggested prompts">
              {suggestions.map((suggestion) => (
                <li key={suggestion.prompt}>
                  <button type="button" className="chip" onClick={() => void chat.send(suggestion.prompt)}>
                    <strong>{suggestion.label}</strong>
                    <span>{suggestion.prompt}</span>
                  </button>
                </li>
              ))}
            </ul>
            <ToolCatalog />
          </section>
        ) : (
          <ChatClientContext.Provider value={chat.client}>
            <MessageList messages={messages} onReview={onReview} threadId={threadId} stopped={stopped} />
          </ChatClientContext.Provider>
        )}
      </main>

      <footer className="app__footer">
        {error && (
          <div className="error-banner" role="alert">
            <span>
              <strong>Something went wrong.</strong> {error.message}
            </span>
            <button type="button" className="button button--ghost" onClick={() => void chat.load()}>
              Reload thread
            </button>
          </div>
        )}
        <Grants threadId={threadId} idle={status === 'idle' || status === 'awaiting-approval'} />
        <p className="status" role="status" aria-live="polite" data-testid="chat-status">
          {statusText(status, messages, pendingApprovals)}
        </p>
        <Composer busy={busy} onSend={(text) => void chat.send(text)} onStop={stop} />
      </footer>

      {devtoolsOpen && (
        <Suspense fallback={null}>
          <ToolgateDevtools endpoint="/api/chat" threadId={threadId} onClose={() => setDevtoolsOpen(false)} />
        </Suspense>
      )}

      {/* Only an approval this person may give opens the dialog; one that waits for a reviewer says so on its card. */}
      {current && waitsForMe(current) && (
        <ApprovalDialog
          key={current.toolCallId}
          chat={chat}
          approval={current}
          position={queue.position}
          onDismiss={queue.dismiss}
          onApproveAll={() => void queue.approveAll()}
        />
      )}
    </div>
  )
}
