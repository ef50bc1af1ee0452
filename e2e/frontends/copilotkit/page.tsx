import { useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'
import {
  CopilotChat,
  CopilotKitProvider,
  HttpAgent,
  UseAgentUpdate,
  useAgent,
  useDefaultRenderTool,
  useFrontendTool,
  useHumanInTheLoop,
  useInterrupt,
} from '@copilotkit/react-core/v2'
import '@copilotkit/react-core/v2/styles.css'
import { z } from 'zod'

// CopilotKit v2 on the demo's server, with no CopilotKit runtime: the provider takes a stock AG-UI
// `HttpAgent` pointed at the chat endpoint. Only CopilotKit's own API is used; nothing of Toolgate's client.

/** The thread id lives in the URL, so a reload finds the thread. */
function threadIdOfPage(): string {
  const url = new URL(location.href)
  const id = url.searchParams.get('thread') ?? `copilotkit-${crypto.randomUUID()}`
  if (!url.searchParams.has('thread')) {
    url.searchParams.set('thread', id)
    history.replaceState(null, '', url)
  }
  return id
}

const threadId = threadIdOfPage()
const agent = new HttpAgent({ url: '/api/chat', threadId })

/** What Toolgate puts in an approval interrupt's `metadata` (see the protocol README). */
interface ApprovalMetadata {
  toolName?: string
  input?: unknown
}

function Tools() {
  // Every tool call, as CopilotKit reports it: the server's tools arrive with their results.
  useDefaultRenderTool({
    render: ({ name, status, parameters, result }) => (
      <div data-testid="tool" data-tool={name} data-state={status}>
        <code>
          {name} {JSON.stringify(parameters)}
        </code>
        {result !== undefined && <pre data-testid="output">{result}</pre>}
      </div>
    ),
  })

  // Toolgate's approvals are AG-UI interrupts: answered with `{ approved, reason? }`.
  useInterrupt({
    enabled: (event) => (event.value as { reason?: string } | null)?.reason === 'tool_approval',
    render: ({ interrupt, resolve }) => <Approval interrupt={interrupt} resolve={resolve} />,
  })

  // A frontend tool: the page runs it and CopilotKit sends its result back.
  useFrontendTool({
    name: 'set_theme',
    description: 'Switch the page between light and dark',
    parameters: z.object({ theme: z.enum(['light', 'dark']) }),
    handler: async ({ theme }) => {
      document.documentElement.dataset.theme = theme
      return { theme }
    },
  })

  // A frontend tool that waits for the person: its result is what they pick.
  useHumanInTheLoop({
    name: 'ask_user',
    description: 'Ask the user to choose between options; waits for their answer',
    parameters: z.object({ question: z.string(), options: z.array(z.string()) }),
    render: ({ args, status, respond, result }) => (
      <div role="group" aria-label="Question" data-testid="question" data-state={status}>
        <p>{args.question}</p>
        {args.options?.map((option) => (
          <button key={option} disabled={!respond} onClick={() => void respond?.({ choice: option })}>
            {option}
          </button>
        ))}
        {result !== undefined && <pre data-testid="answer">{result}</pre>}
      </div>
    ),
  })
  return null
}

function Approval({ interrupt, resolve }: { interrupt: { message?: string; metadata?: unknown } | null; resolve: (payload: unknown) => Promise<unknown> }) {
  const [reason, setReason] = useState('')
  const { toolName, input } = (interrupt?.metadata ?? {}) as ApprovalMetadata
  return (
    <div role="group" aria-label={`Approve ${toolName}`} data-testid="approval">
      <code>
        {toolName} {JSON.stringify(input)}
      </code>
      <p data-testid="approval-reason">{interrupt?.message}</p>
      <button onClick={() => void resolve({ approved: true })}>Approve</button>
      <input aria-label="Reason" value={reason} onChange={(event) => setReason(event.target.value)} />
      <button onClick={() => void resolve({ approved: false, ...(reason ? { reason } : {}) })}>Deny</button>
    </div>
  )
}

/** The run's state and the last error, for the test to wait on. */
function Status({ error }: { error: string | undefined }) {
  const { agent } = useAgent({ updates: [UseAgentUpdate.OnRunStatusChanged] })
  return <p data-testid="status" data-running={String(agent.isRunning)} data-error={error ?? ''} hidden />
}

function Page() {
  const [error, setError] = useState<string>()
  useEffect(() => {
    document.title = `CopilotKit v2 on Toolgate (${threadId})`
  }, [])
  return (
    <CopilotKitProvider agents__unsafe_dev_only={{ default: agent }} enableInspector={false} onError={({ error }) => setError(error.message)}>
      <Tools />
      <Status error={error} />
      <main style={{ height: '100vh' }}>
        <CopilotChat threadId={threadId} />
      </main>
    </CopilotKitProvider>
  )
}

createRoot(document.getElementById('root')!).render(<Page />)
