import { useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { HttpAgent } from '@ag-ui/client'
import type { RunAgentInput } from '@ag-ui/core'
import {
  CopilotChat,
  CopilotKitProvider,
  HttpAgent as BundledHttpAgent,
  UseAgentUpdate,
  type AbstractAgent,
  useAgent,
  useDefaultRenderTool,
  useFrontendTool,
  useHumanInTheLoop,
  useInterrupt,
} from '@copilotkit/react-core/v2'
import '@copilotkit/react-core/v2/styles.css'
import { z } from 'zod'

// CopilotKit v2 on the demo's server, with no CopilotKit runtime: the provider takes a stock AG-UI
// 1.0 `HttpAgent` (`@ag-ui/client`, not the 0.0.59 CopilotKit 1.74 bundles) pointed at the chat
// endpoint, wired as docs/existing-frontends.md has it. Only CopilotKit's and AG-UI's own API is
// used; nothing of Toolgate's client.

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

/**
 * CopilotKit connects the agent when the chat mounts (`connectAgent`), and `HttpAgent` leaves
 * `connect` unimplemented: sending the thread's input with nothing new, the server answers with the
 * stored thread (`MESSAGES_SNAPSHOT`) and what still waits, so a reload shows the conversation.
 */
class ToolgateAgent extends HttpAgent {
  protected override connect(input: RunAgentInput) {
    this.abortController = new AbortController() // as `runAgent` does: after `abortRun()` the old one is aborted
    return this.run(input) // nothing new: the server answers with the stored thread
  }

  // The stop button stops the run on the server too, not only the reading (a dropped connection does not).
  override abortRun() {
    super.abortRun()
    void fetch(this.url, { method: 'POST', headers: { ...this.headers, 'content-type': 'application/json' }, body: JSON.stringify({ threadId: this.threadId, stop: true }) })
  }
}


/**
 * The same adapter on the `HttpAgent` CopilotKit itself bundles (`@ag-ui/client` 0.0.59): it sends no
 * `protocolVersion`, and the server answers it in the shapes it accepts (`?agui=bundled`).
 */
class BundledToolgateAgent extends BundledHttpAgent {
  protected override connect(input: Parameters<BundledHttpAgent['run']>[0]) {
    this.abortController = new AbortController()
    return this.run(input)
  }

  override abortRun() {
    super.abortRun()
    void fetch(this.url, { method: 'POST', headers: { ...this.headers, 'content-type': 'application/json' }, body: JSON.stringify({ threadId: this.threadId, stop: true }) })
  }
}

const threadId = threadIdOfPage()
const search = new URL(location.href).searchParams
const wiring = search.get('agui')
/** `?runtime=1`: through `@copilotkit/runtime` 1.75 (runtime.ts) in front of the endpoint, no agent in the page. */
const throughRuntime = search.get('runtime') === '1'
// CopilotKit's types are those of the AG-UI client it bundles (0.0.59); the 1.0 agent is what it runs.
const agent = wiring === 'bundled' ? new BundledToolgateAgent({ url: '/api/chat', threadId }) : (new ToolgateAgent({ url: '/api/chat', threadId }) as unknown as AbstractAgent)

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

  // A frontend tool (accepted by the server's `frontendTools`): the page runs it and CopilotKit sends
  // its result back as a `tool` message.
  useFrontendTool({
    name: 'set_background',
    description: "Change the page's background color",
    parameters: z.object({ color: z.string() }),
    handler: async ({ color }) => {
      document.body.dataset.background = color
      return { color }
    },
  })

  // A frontend tool that waits for the person: its result is their answer.
  useHumanInTheLoop({
    name: 'confirm_plan',
    description: 'Ask the user to confirm a plan before going ahead',
    parameters: z.object({ plan: z.string() }),
    render: ({ args, status, respond }) => (
      <div role="group" aria-label="Confirm the plan" data-testid="confirm" data-state={status}>
        <p>{args.plan}</p>
        <button disabled={!respond} onClick={() => void respond?.({ confirmed: true })}>
          Confirm
        </button>
        <button disabled={!respond} onClick={() => void respond?.({ confirmed: false })}>
          Reject
        </button>
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
    <CopilotKitProvider
      {...(throughRuntime ? { runtimeUrl: '/api/copilotkit', useSingleEndpoint: false } : { agents__unsafe_dev_only: { default: agent } })}
      enableInspector={false}
      onError={({ error }) => setError(error.message)}
    >
      <Tools />
      <Status error={error} />
      <main style={{ height: '100vh' }}>
        <CopilotChat threadId={threadId} />
      </main>
    </CopilotKitProvider>
  )
}

createRoot(document.getElementById('root')!).render(<Page />)
