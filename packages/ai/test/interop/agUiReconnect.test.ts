import { afterEach, describe, expect, it } from 'vitest'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { TEMPS, transferDef, weatherDef } from '../server/fixtures.ts'
import { reload, shape, ToolgateAgent } from './helpers/agUiPages.ts'
import { closeAll, deferred, startServer, type TestServer } from '../server/helpers/server.ts'

afterEach(closeAll)

// A page that reloads is a new stock AG-UI agent on the same thread id: CopilotKit v2 calls its
// `connect` on mount, which the docs' `ToolgateAgent` makes a run with nothing new. These check what
// that agent ends up holding when the page reloads mid-run and while an approval waits.

const story = Array.from({ length: 40 }, (_, i) => `part ${i}. `).join('')
let transfers: { to: string; amount: number }[] = []
/** The weather tool starts (`started`) and waits for `gate`: the run is live until the test opens it. */
let weather = { started: deferred(), gate: deferred() }
let gateTransfers = false

/** Ada writes; the viewer may only read; no one else may do anything. */
function authorize(request: Request, _threadId: string, { action }: { action: string }): boolean {
  const user = request.headers.get('x-user')
  return user === 'ada' || (user === 'viewer' && action === 'read')
}

async function setUp(delayMs = 0, withRights = false): Promise<TestServer> {
  transfers = []
  weather = { started: deferred(), gate: deferred() }
  gateTransfers = false
  const weatherTool = weatherDef.server(async ({ city }) => {
    weather.started.resolve()
    await weather.gate.promise
    return { city, tempC: TEMPS[city] ?? 10 }
  })
  const model = scriptedModel(
    [
      { when: 'weather', call: () => ({ tool: 'get_weather', input: { city: 'Oslo' } }), then: ([r]) => `It is ${JSON.stringify(r.output)}. ${story}` },
      { when: 'pay', call: () => ({ tool: 'transfer_money', input: { to: 'Bob', amount: 500 } }), then: ([r]) => (r.ok ? `Paid: ${JSON.stringify(r.output)}` : `Not paid: ${r.content}`) },
      { when: 'story', reply: story },
    ],
    { delayMs },
  )
  // A transfer waits for `gate` too when the test set `gateTransfers`: the resumed run is live until it opens.
  const transferTool = transferDef.server(async (input) => {
    if (gateTransfers) {
      weather.started.resolve()
      await weather.gate.promise
    }
    transfers.push(input)
    return { receipt: `r-${input.amount}` }
  })
  return startServer({ model, tools: [weatherTool, transferTool], ...(withRights ? { authorize } : {}) })
}

const newThread = () => `t-${Math.random().toString(36).slice(2)}`



async function stored(server: TestServer, threadId: string) {
  return (await server.get(threadId)).messages
}

describe('a stock AG-UI agent that reconnects (a reloaded CopilotKit page)', () => {
  it('mid-run: it follows the run to its end and holds the thread as stored, no message twice', async () => {
    const server = await setUp(1)
    const threadId = newThread()
    const first = new ToolgateAgent({ url: server.url, threadId })
    first.addMessage({ id: 'u-1', role: 'user', content: 'weather please' })
    let liveRunId: string | undefined
    const live = first.runAgent({}, { onRunStartedEvent: ({ event }) => void (liveRunId = event.runId) })
    await weather.started.promise
    // The page reloads while the run's tool still works (the first agent's request stays open, as
    // if the browser had not dropped it yet); the run goes on once the reloaded page is connected.
    const again = await reload(server, threadId, () => weather.gate.resolve())
    await live
    const thread = await stored(server, threadId)
    expect(thread.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    // It got the live run itself (not an idle thread), to its end.
    expect(again.events.filter((event) => event.type === 'RUN_STARTED').map((event) => (event as { runId?: string }).runId)).toContain(liveRunId)
    expect(again.types.at(-1)).toBe('RUN_FINISHED')
    expect(shape(again.agent.messages)).toEqual(shape(first.messages))
    expect(again.agent.messages.map((message) => message.id)).toEqual(thread.map((message) => message.id))
    expect((again.agent.messages.at(-1)?.content as string).endsWith(story)).toBe(true)
    // The page can go on: its next message is taken (the thread is no longer busy).
    again.agent.addMessage({ id: 'u-2', role: 'user', content: 'story please' })
    await again.agent.runAgent({})
    expect(again.agent.messages.at(-1)?.content).toBe(story)
    expect((await stored(server, threadId)).map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant'])
  })

  it('while an approval waits: the approval is pending again, and answering it runs the tool once', async () => {
    const server = await setUp()
    const threadId = newThread()
    const first = new ToolgateAgent({ url: server.url, threadId })
    first.addMessage({ id: 'u-1', role: 'user', content: 'pay Bob' })
    await first.runAgent({})
    expect(first.pendingInterrupts).toHaveLength(1)

    const again = await reload(server, threadId)
    expect(shape(again.agent.messages)).toEqual(shape(first.messages))
    expect(again.agent.pendingInterrupts.map((interrupt) => interrupt.id)).toEqual(first.pendingInterrupts.map((interrupt) => interrupt.id))
    const [interrupt] = again.agent.pendingInterrupts
    await again.agent.runAgent({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: true } }] })
    expect(transfers).toEqual([{ to: 'Bob', amount: 500 }])
    expect(again.agent.pendingInterrupts).toEqual([])
    expect(again.agent.messages.at(-1)?.content).toBe('Paid: {"receipt":"r-500"}')
    expect(shape(again.agent.messages).map((message) => message.id)).toEqual((await stored(server, threadId)).map((message) => message.id))
  })

  it('mid-run, the rejoin is a read of the thread: a reader the app lets read follows the run, anyone else is refused', async () => {
    const server = await setUp(0, true)
    const threadId = newThread()
    const first = new ToolgateAgent({ url: server.url, threadId, headers: { 'x-user': 'ada' } })
    first.addMessage({ id: 'u-1', role: 'user', content: 'weather please' })
    const live = first.runAgent({})
    await weather.started.promise
    const input = { threadId, runId: 'r-eve', messages: [], tools: [], context: [], state: {}, forwardedProps: {} }
    const refused = await server.post(input, { 'x-user': 'eve', accept: 'text/event-stream' })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ error: { code: 'FORBIDDEN' } })
    const viewer = await reload(server, threadId, () => weather.gate.resolve(), { 'x-user': 'viewer' })
    await live
    expect(viewer.agent.messages.map((message) => message.id)).toEqual((await server.get(threadId, { 'x-user': 'ada' })).messages.map((message) => message.id))
    expect((viewer.agent.messages.at(-1)?.content as string).endsWith(story)).toBe(true)
  })

  it('mid-run after an approval: it follows the resumed run, and holds the approved step and its result once', async () => {
    const server = await setUp()
    const threadId = newThread()
    const first = new ToolgateAgent({ url: server.url, threadId })
    first.addMessage({ id: 'u-1', role: 'user', content: 'pay Bob' })
    await first.runAgent({})
    const [interrupt] = first.pendingInterrupts
    gateTransfers = true
    const live = first.runAgent({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: true } }] })
    await weather.started.promise
    const again = await reload(server, threadId, () => weather.gate.resolve())
    await live
    const thread = await stored(server, threadId)
    expect(thread.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(again.agent.messages.map((message) => message.id)).toEqual(thread.map((message) => message.id))
    expect(shape(again.agent.messages)).toEqual(shape(first.messages))
    expect(again.agent.messages.at(-1)?.content).toBe('Paid: {"receipt":"r-500"}')
    expect(again.agent.pendingInterrupts).toEqual([])
    expect(transfers).toEqual([{ to: 'Bob', amount: 500 }])
  })
})
