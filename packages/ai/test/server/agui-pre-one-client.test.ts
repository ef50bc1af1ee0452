import { createRequire } from 'node:module'
import { afterEach, describe, expect, it } from 'vitest'
import type { HttpAgent as OneZeroAgent } from '@ag-ui/client'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { transferDef } from './fixtures.ts'
import { closeAll, startServer, type TestServer } from './helpers/server.ts'

afterEach(closeAll)

// The AG-UI client CopilotKit 1.74 ships (`@ag-ui/client` 0.0.59, bundled by `@copilotkit/react-core`
// and `@copilotkit/runtime`), stock: it sends no `protocolVersion` and refuses a `RUN_FINISHED`
// whose outcome has a key it does not know. The server answers it in the shapes it accepts, and it
// learns which frontend calls wait from the tool calls that have no `tool` message.

const bundled = createRequire(createRequire(import.meta.url).resolve('@copilotkit/react-core'))
const { HttpAgent } = bundled('@ag-ui/client') as { HttpAgent: typeof OneZeroAgent }
const version = (bundled('@ag-ui/client/package.json') as { version: string }).version

const confirm = { name: 'confirm_plan', description: 'Asks the user to confirm a plan', parameters: { type: 'object', properties: { plan: { type: 'string' } }, required: ['plan'] } }
const tools = [confirm]

const model = scriptedModel(
  [
    {
      when: 'both',
      call: () => [{ tool: 'transfer_money', input: { to: 'Bob', amount: 500 } }, { tool: 'confirm_plan', input: { plan: 'pay Bob' } }],
      then: (results) => results.map((r) => `${r.tool}: ${r.ok ? JSON.stringify(r.output) : r.content}`).join('; '),
    },
    { when: 'plan', call: () => ({ tool: 'confirm_plan', input: { plan: 'ship friday' } }), then: ([r]) => (r.ok ? `Confirmed: ${JSON.stringify(r.output)}` : `Not confirmed: ${r.content}`) },
  ],
  { fallback: 'Noted.' },
)

let transfers: unknown[] = []
function setUp(): Promise<TestServer> {
  transfers = []
  return startServer({ model, tools: [transferDef.server((input) => (transfers.push(input), { receipt: 'r' }))], frontendTools: ['confirm_plan'] })
}

const newThread = () => `t-${Math.random().toString(36).slice(2)}`

/** A run as CopilotKit makes it; the client's own error (a refused event) fails it. */
async function run(agent: OneZeroAgent, text?: string, resume?: unknown[]) {
  if (text !== undefined) agent.addMessage({ id: `u-${agent.messages.length}`, role: 'user', content: text })
  let outcome: unknown
  let failed: unknown
  await agent.runAgent({ tools, ...(resume ? { resume } : {}) } as never, {
    onRunFinishedEvent: ({ event }) => void (outcome = (event as { outcome?: unknown }).outcome),
    onRunFailed: ({ error }) => void (failed = error),
  })
  expect(failed).toBeUndefined()
  const text_ = agent.messages.flatMap((message) => (message.role === 'assistant' && typeof message.content === 'string' ? [message.content] : [])).at(-1)
  return { outcome, text: text_ }
}

/** What CopilotKit runs in the page: the calls of the thread that have no `tool` message. */
function waitingCalls(agent: OneZeroAgent): string[] {
  const answered = new Set(agent.messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])))
  return agent.messages.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id).filter((id) => !answered.has(id)) : []))
}

describe(`an AG-UI client before 1.0 (the stock @ag-ui/client ${version} CopilotKit bundles)`, () => {
  it('is the client CopilotKit 1.74 ships', () => expect(version).toBe('0.0.59'))

  it('a step with an approval and a frontend call: approved, the run ends success alone and the call still waits; answering it ends the turn', async () => {
    const server = await setUp()
    const agent = new HttpAgent({ url: server.url, threadId: newThread() })
    const paused = await run(agent, 'both at once')
    expect(paused.outcome).toMatchObject({ type: 'interrupt', interrupts: [{ reason: 'tool_approval' }] })
    const interruptId = (paused.outcome as { interrupts: { id: string }[] }).interrupts[0]!.id
    const approved = await run(agent, undefined, [{ interruptId, status: 'resolved', payload: { approved: true } }])
    expect(approved.outcome).toEqual({ type: 'success' })
    expect(agent.pendingInterrupts).toEqual([])
    const [call] = waitingCalls(agent).filter((id) => agent.messages.some((m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.id === id && c.function.name === 'confirm_plan')))
    expect(call).toBeDefined()
    agent.addMessage({ id: 'tm-1', role: 'tool', toolCallId: call!, content: '"confirmed"' })
    const done = await run(agent)
    expect(transfers).toEqual([{ to: 'Bob', amount: 500 }])
    expect(done.text).toBe('transfer_money: {"receipt":"r"}; confirm_plan: "confirmed"')
  })

  it('a reload while a frontend call waits: the thread and the call, told so it accepts them; answering it continues the turn', async () => {
    const server = await setUp()
    const threadId = newThread()
    await run(new HttpAgent({ url: server.url, threadId }), 'plan it')
    const reloaded = new HttpAgent({ url: server.url, threadId })
    const connected = await run(reloaded)
    expect(connected.outcome).toEqual({ type: 'success' })
    expect(reloaded.messages.map((message) => message.role)).toEqual(['user', 'assistant'])
    const waiting = waitingCalls(reloaded)
    expect(waiting).toHaveLength(1)
    reloaded.addMessage({ id: 'tm-1', role: 'tool', toolCallId: waiting[0]!, content: '"ok"' })
    expect((await run(reloaded)).text).toBe('Confirmed: "ok"')
  })

  it('an AG-UI 1.0 client on the same thread is still told the waiting calls by id', async () => {
    const server = await setUp()
    const threadId = newThread()
    await run(new HttpAgent({ url: server.url, threadId }), 'plan it')
    const response = await server.post({ threadId, runId: 'r-1', protocolVersion: '1.0.0', messages: [], tools, context: [], state: {}, forwardedProps: {} })
    const finished = (await response.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as { type: string; outcome?: unknown }).at(-1)
    expect(finished).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success', pendingToolCallIds: [expect.any(String)] } })
  })
})
