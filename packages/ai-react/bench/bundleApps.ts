/**
 * The apps `bundle.bench.ts` builds (the same minimal chat app wired to each library), the build
 * and the measure of a page's startup JavaScript, shared with the budget test
 * (`test/bundleBudget.test.ts`), which holds `useChat` to its budget.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import react from '@vitejs/plugin-react'
import { build, defaultClientConditions } from 'vite'

export const BUDGET_KB = 10
export const TOOL_UI_BUDGET_KB = 3
const BUILD_TIMEOUT_MS = 60_000
export const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..')

const schema = `
const LocationInput = v.object({ precise: v.optional(v.boolean()) })
const LocationOutput = v.object({ city: v.string() })`

// The same markup in every app; only the chat wiring differs.
const view = (messages: string, extra = '') => `
  const [draft, setDraft] = useState('')
  return (
    <main>
      <ul>{${messages}}</ul>
      ${extra}
      <form onSubmit={(event) => { event.preventDefault(); send(draft); setDraft('') }}>
        <input value={draft} onChange={(event) => setDraft(event.target.value)} />
        <button disabled={busy}>Send</button>
        <button type="button" onClick={stop}>Stop</button>
      </form>
    </main>
  )`

const mount = `
createRoot(document.getElementById('root')!).render(<App />)`

export interface AppSource {
  readonly name: string
  readonly code: string
}


export const apps: AppSource[] = [
  {
    name: 'React alone',
    code: `
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
function App() {
  const [messages, setMessages] = useState<string[]>([])
  const busy = false
  const send = (text: string) => setMessages((list) => [...list, text])
  const stop = () => setMessages([])
  ${view('messages.map((text, i) => <li key={i}>{text}</li>)')}
}
${mount}`,
  },
  {
    name: 'React + Valibot schema',
    code: `
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import * as v from 'valibot'
${schema}
function App() {
  const [messages, setMessages] = useState<string[]>([])
  const busy = false
  const send = (text: string) => setMessages((list) => [...list, JSON.stringify(v.parse(LocationOutput, { city: text })), String(v.is(LocationInput, {}))])
  const stop = () => setMessages([])
  ${view('messages.map((text, i) => <li key={i}>{text}</li>)')}
}
${mount}`,
  },
  {
    name: 'React + toolDefinition, no chat',
    code: `
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { toolDefinition } from '@toolgate/ai'
import * as v from 'valibot'
${schema}
const getLocation = toolDefinition({ name: 'get_location', description: 'Where the user is', inputSchema: LocationInput, outputSchema: LocationOutput })
  .client(async () => ({ city: 'Lima' }))
function App() {
  const [messages, setMessages] = useState<string[]>([])
  const busy = false
  const send = (text: string) => void getLocation.execute({ precise: text === '' }).then((output) => setMessages((list) => [...list, output.city]))
  const stop = () => setMessages([])
  ${view('messages.map((text, i) => <li key={i}>{text}</li>)')}
}
${mount}`,
  },
  {
    name: '@toolgate/ai-react',
    code: ourApp(),
  },
  {
    name: '@toolgate/ai-react + a plain JSON Schema tool',
    // A browser tool whose schema is plain JSON Schema (jsonSchema()): the validator (@cfworker/json-schema) comes along.
    code: ourApp().replace(
      "import { useChat } from '@toolgate/ai-react'",
      "import { useChat } from '@toolgate/ai-react'\nimport { jsonSchema, toolDefinition as define } from '@toolgate/ai'\n;(globalThis as any).keep = define({ name: 'pick', description: 'Picks', inputSchema: jsonSchema({ type: 'object', properties: { n: { type: 'integer' } } }) })",
    ),
  },
  {
    name: '@toolgate/ai-react + tool UI hooks (no markup)',
    // The hooks' own cost: the same app as ours, keeping the tool UI hooks in the bundle without any markup of their own.
    code: ourApp().replace("import { useChat } from '@toolgate/ai-react'", "import { useChat, useApprovalForm, useApprovalQueue, renderToolCall } from '@toolgate/ai-react'\n;(globalThis as any).keep = [useApprovalForm, useApprovalQueue, renderToolCall]"),
  },
  {
    name: '@toolgate/ai-react + McpApp',
    // A tool call's MCP App in place of its state: McpApp's own part at startup, ext-apps' bridge on demand.
    code: ourApp()
      .replace("import { useChat } from '@toolgate/ai-react'", "import { useChat } from '@toolgate/ai-react'\nimport { McpApp } from '@toolgate/ai-react/mcp-app'")
      .replace('const { messages, send,', 'const { client, messages, send,')
      .replace('<span key={i}>{part.toolName}: {part.state}</span>', "<McpApp key={i} client={client} endpoint='/api/chat' sandbox='https://sandbox.example/' call={part} />"),
  },
  {
    name: '@toolgate/ai-react + approval dialog, queue, renderers',
    code: toolUiApp(),
  },
  {
    name: '@tanstack/ai-react',
    code: `
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { useChat, fetchServerSentEvents, clientTools } from '@tanstack/ai-react'
import { toolDefinition } from '@tanstack/ai/client'
import * as v from 'valibot'
${schema}
const getLocation = toolDefinition({ name: 'get_location', description: 'Where the user is', inputSchema: LocationInput, outputSchema: LocationOutput })
  .client(async () => ({ city: 'Lima' }))
function App() {
  const { messages, sendMessage: send, isLoading: busy, stop, error, addToolApprovalResponse } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools: clientTools(getLocation),
  })
  ${view(
    `messages.map((message) => <li key={message.id}>{message.parts.map((part, i) => part.type === 'text' ? <span key={i}>{part.content}</span> : part.type === 'tool-call' ? <button key={i} onClick={() => part.approval && addToolApprovalResponse({ id: part.approval.id, approved: true })}>{part.name}: {part.state}</button> : null)}</li>)`,
    '{error && <p>{error.message}</p>}',
  )}
}
${mount}`,
  },
  {
    name: '@ai-sdk/react',
    code: `
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { useChat } from '@ai-sdk/react'
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithToolCalls } from 'ai'
import * as v from 'valibot'
${schema}
function App() {
  const { messages, sendMessage, status, stop, error, addToolResult, addToolApprovalResponse } = useChat({
    transport: new DefaultChatTransport({ api: '/api/chat' }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    async onToolCall({ toolCall }) {
      if (toolCall.toolName !== 'get_location') return
      v.parse(LocationInput, toolCall.input)
      addToolResult({ tool: 'get_location', toolCallId: toolCall.toolCallId, output: v.parse(LocationOutput, { city: 'Lima' }) })
    },
  })
  const busy = status === 'streaming' || status === 'submitted'
  const send = (text: string) => sendMessage({ text })
  ${view(
    `messages.map((message) => <li key={message.id}>{message.parts.map((part, i) => part.type === 'text' ? <span key={i}>{part.text}</span> : 'toolCallId' in part ? <button key={i} onClick={() => part.state === 'approval-requested' && addToolApprovalResponse({ id: part.approval.id, approved: true })}>{part.type}: {part.state}</button> : null)}</li>)`,
    '{error && <p>{error.message}</p>}',
  )}
}
${mount}`,
  },
]

function ourApp(): string {
  return `
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { useChat } from '@toolgate/ai-react'
import { toolDefinition } from '@toolgate/ai'
import * as v from 'valibot'
${schema}
const getLocation = toolDefinition({ name: 'get_location', description: 'Where the user is', inputSchema: LocationInput, outputSchema: LocationOutput })
  .client(async () => ({ city: 'Lima' }))
function App() {
  const { messages, send, status, stop, error, approve, pendingApprovals } = useChat({ endpoint: '/api/chat', tools: [getLocation] })
  const busy = status === 'streaming'
  ${view(
    `messages.map((message) => <li key={message.id}>{message.parts.map((part, i) => part.type === 'text' ? <span key={i}>{part.text}</span> : <span key={i}>{part.toolName}: {part.state}</span>)}</li>)`,
    `{error && <p>{error.message}</p>}
      {pendingApprovals.map((call) => <button key={call.toolCallId} onClick={() => approve(call.toolCallId)}>Approve {call.toolName}</button>)}`,
  )}
}
${mount}`
}

/** Our app again, with a complete approval dialog and a per-tool renderer from the headless tool UI hooks. */
function toolUiApp(): string {
  return `
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { renderToolCall, useApprovalForm, useApprovalQueue, useChat } from '@toolgate/ai-react'
import { toolDefinition } from '@toolgate/ai'
import * as v from 'valibot'
${schema}
const getLocation = toolDefinition({ name: 'get_location', description: 'Where the user is', inputSchema: LocationInput, outputSchema: LocationOutput })
  .client(async () => ({ city: 'Lima' }))
const renderers = { get_location: ({ part }: any) => <b>{part.state === 'output-available' ? part.output.city : part.state}</b> }
function Dialog({ chat, approval }: any) {
  const form = useApprovalForm(chat, approval)
  return (
    <div {...form.dialogProps}>
      <h2 {...form.titleProps}>{form.toolName}</h2>
      <p {...form.reasonProps}>{form.reason}</p>
      <form {...form.formProps}>
        {form.fields.map((field) => (
          <div key={field.name}>
            <label {...form.labelProps(field)}>{field.label}</label>
            <input {...form.inputProps(field)} />
            {form.error(field) && <p {...form.errorProps(field)}>{form.error(field)}</p>}
          </div>
        ))}
        <input {...form.denyReasonProps} />
        <button type="button" onClick={() => form.deny()}>Deny</button>
        <button>Approve</button>
      </form>
    </div>
  )
}
function App() {
  const chat = useChat({ endpoint: '/api/chat', tools: [getLocation] })
  const { messages, send, status, stop, error } = chat
  const queue = useApprovalQueue(chat)
  const busy = status === 'streaming'
  ${view(
    `messages.map((message) => <li key={message.id}>{message.parts.map((part, i) => part.type === 'text' ? <span key={i}>{part.text}</span> : renderToolCall(part, renderers))}</li>)`,
    `{error && <p>{error.message}</p>}
      {queue.current && <Dialog key={queue.current.toolCallId} chat={chat} approval={queue.current} />}
      {queue.pending.length > 1 && <button onClick={() => queue.approveAll()}>Approve all</button>}`,
  )}
}
${mount}`
}

export async function buildApp(workDir: string, app: AppSource, index: number): Promise<{ bytes: number; gzip: number; lazyGzip: number; ms: number }> {
  const dir = join(workDir, `app${index}`)
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'main.tsx'), app.code)
  const started = performance.now()
  const building = build({
    root: dir,
    configFile: false,
    logLevel: 'silent',
    mode: 'production',
    plugins: [react()],
    resolve: {
      // Workspace packages as their TypeScript sources, like the rest of the repository.
      conditions: ['@toolgate/source', ...defaultClientConditions],
    },
    build: {
      write: false,
      minify: true,
      reportCompressedSize: false,
      modulePreload: { polyfill: false },
      rollupOptions: { input: join(dir, 'main.tsx') },
    },
  })
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`building "${app.name}" took over ${BUILD_TIMEOUT_MS / 1000} s`)), BUILD_TIMEOUT_MS)
  })
  let output: Awaited<typeof building>
  try {
    output = await Promise.race([building, timeout])
  } finally {
    clearTimeout(timer)
  }
  const ms = performance.now() - started
  return { ...measureStartupJs(output), ms }
}

type BuildOutput = Awaited<ReturnType<typeof build>>
interface Chunk {
  readonly type: 'chunk'
  readonly fileName: string
  readonly code: string
  readonly isEntry: boolean
  readonly imports: readonly string[]
}

/**
 * The JavaScript a page loads before it can run: the entry and everything it imports statically.
 * Chunks behind a dynamic import (the JSON Schema validator, loaded only by tools written in plain
 * JSON Schema) are counted apart, as `lazy`.
 */
function measureStartupJs(output: BuildOutput): { bytes: number; gzip: number; lazyGzip: number } {
  const outputs = (Array.isArray(output) ? output : [output]) as { output: (Chunk | { type: 'asset' })[] }[]
  const chunks = new Map<string, Chunk>()
  for (const result of outputs) for (const item of result.output) if (item.type === 'chunk') chunks.set(item.fileName, item)
  const startup = new Set<string>()
  const visit = (fileName: string) => {
    if (startup.has(fileName)) return
    startup.add(fileName)
    for (const imported of chunks.get(fileName)?.imports ?? []) visit(imported)
  }
  for (const chunk of chunks.values()) if (chunk.isEntry) visit(chunk.fileName)
  let bytes = 0
  let gzip = 0
  let lazyGzip = 0
  for (const chunk of chunks.values()) {
    const size = gzipSync(chunk.code).length
    if (startup.has(chunk.fileName)) {
      bytes += Buffer.byteLength(chunk.code)
      gzip += size
    } else {
      lazyGzip += size
    }
  }
  return { bytes, gzip, lazyGzip }
}

