import { afterEach, describe, expect, it, vi } from 'vitest'
import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import type { UIMessage } from '@tanstack/ai'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { transferDef, weatherDef, weatherTool } from '../server/fixtures.ts'
import { closeAll, deferred, startServer, type TestServer } from '../server/helpers/server.ts'

afterEach(closeAll)

// TanStack AI's own ChatClient (what its `useChat` runs on) with its stock SSE connection, against a
// real server, pointed at the endpoint with `?client=tanstack` as the docs say.

const story = Array.from({ length: 40 }, (_, i) => `part ${i}. `).join('')
let transfers: { to: string; amount: number }[] = []

async function setUp(delayMs = 0): Promise<TestServer> {
  transfers = []
  const model = scriptedModel(
    [
      { when: 'weather', call: () => ({ tool: 'get_weather', input: { city: 'Oslo' } }), then: ([r]) => `It is ${JSON.stringify(r.output)}.` },
      {
        when: 'pay both',
        call: () => [
          { tool: 'transfer_money', input: { to: 'Ann', amount: 300 } },
          { tool: 'transfer_money', input: { to: 'Bob', amount: 400 } },
        ],
        then: (results) => results.map((r) => `${(r.input as { to: string }).to}: ${r.status}`).join(', '),
      },
      { when: 'pay', call: () => ({ tool: 'transfer_money', input: { to: 'Bob', amount: 500 } }), then: ([r]) => (r.ok ? `Paid: ${JSON.stringify(r.output)}` : `Not paid: ${r.content}`) },
      { when: 'story', reply: story },
    ],
    { delayMs },
  )
  return startServer({ model, tools: [weatherTool, transferDef.server((input) => (transfers.push(input), { receipt: `r-${input.amount}` }))] })
}

const newThread = () => `t-${Math.random().toString(36).slice(2)}`
const connection = (server: TestServer) => fetchServerSentEvents(`${server.url}?client=tanstack`)

function textOf(messages: readonly UIMessage[]): string {
  return messages.flatMap((m) => m.role !== 'assistant' ? [] : m.parts.flatMap((p) => (p.type === 'text' ? [p.content] : []))).join('')
}

function toolCallPart(messages: readonly UIMessage[], name: string) {
  for (const message of messages) for (const part of message.parts) if (part.type === 'tool-call' && part.name === name) return part
  return undefined
}

describe("TanStack AI's ChatClient at the chat endpoint (?client=tanstack)", () => {
  it('runs a turn with a server tool', async () => {
    const server = await setUp()
    const client = new ChatClient({ connection: connection(server), threadId: newThread() })
    await client.sendMessage('weather please')
    expect(textOf(client.getMessages())).toBe('It is {"city":"Oslo","tempC":4}.')
    expect(toolCallPart(client.getMessages(), 'get_weather')).toMatchObject({ state: 'complete' })
  })

  it.each([
    [true, 'Paid: {"receipt":"r-500"}'],
    [false, 'Not paid:'],
  ])('answers an approval through addToolApprovalResponse (approved: %s)', async (approved, reply) => {
    const server = await setUp()
    const client = new ChatClient({ connection: connection(server), threadId: newThread() })
    await client.sendMessage('pay Bob')
    const part = toolCallPart(client.getMessages(), 'transfer_money')
    expect(part).toMatchObject({ state: 'approval-requested', approval: { needsApproval: true } })
    // Bound, not `unbound`: TanStack can resolve it through its normal API.
    expect(client.getInterrupts()).toEqual([expect.objectContaining({ canResolve: true })])
    expect(transfers).toEqual([])
    await client.addToolApprovalResponse({ id: part!.approval!.id, approved })
    await vi.waitFor(() => expect(textOf(client.getMessages())).toContain(reply))
    expect(transfers).toEqual(approved ? [{ to: 'Bob', amount: 500 }] : [])
  })

  it('cancelInterrupts() denies the open approval', async () => {
    const server = await setUp()
    const client = new ChatClient({ connection: connection(server), threadId: newThread() })
    await client.sendMessage('pay Bob')
    expect(toolCallPart(client.getMessages(), 'transfer_money')).toMatchObject({ state: 'approval-requested' })
    client.cancelInterrupts()
    await vi.waitFor(() => expect(textOf(client.getMessages())).toContain('Not paid:'))
    expect(transfers).toEqual([])
  })

  it('hydrates a thread with a pending approval, which stays answerable', async () => {
    const server = await setUp()
    const threadId = newThread()
    await new ChatClient({ connection: connection(server), threadId }).sendMessage('pay Bob')
    // A reload: a fresh client that reads the thread from the server.
    const reloaded = new ChatClient({ connection: connection(server), threadId, persistence: true })
    reloaded.attach()
    await vi.waitFor(() => expect(toolCallPart(reloaded.getMessages(), 'transfer_money')).toMatchObject({ state: 'approval-requested' }))
    expect(reloaded.getMessages().map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(reloaded.getMessages()[0]!.parts).toEqual([{ type: 'text', content: 'pay Bob' }])
    await vi.waitFor(() => expect(reloaded.getInterrupts()).toEqual([expect.objectContaining({ canResolve: true })]))
    await reloaded.addToolApprovalResponse({ id: toolCallPart(reloaded.getMessages(), 'transfer_money')!.approval!.id, approved: true })
    await vi.waitFor(() => expect(textOf(reloaded.getMessages())).toContain('Paid: {"receipt":"r-500"}'))
    expect(transfers).toEqual([{ to: 'Bob', amount: 500 }])
  })

  it('hydrates a half-answered batch: the answered call as approval-responded, the other still answerable', async () => {
    const server = await setUp()
    const threadId = newThread()
    await new ChatClient({ connection: connection(server), threadId }).sendMessage('pay both')
    const [ann, bob] = (await server.get(threadId)).interrupts
    // Another page (Toolgate's own client) answered one of the two.
    expect((await server.resume(threadId, [{ interruptId: ann!.id, approved: false, reason: 'not Ann' }])).status).toBe(202)

    const reloaded = new ChatClient({ connection: connection(server), threadId, persistence: true })
    reloaded.attach()
    await vi.waitFor(() => expect(reloaded.getInterrupts()).toEqual([expect.objectContaining({ canResolve: true })]))
    const calls = reloaded.getMessages().flatMap((m) => m.parts.filter((p) => p.type === 'tool-call'))
    expect(calls.map((part) => [part.state, part.approval])).toEqual([
      ['approval-responded', { id: ann!.id, needsApproval: true, approved: false }],
      ['approval-requested', { id: bob!.id, needsApproval: true }],
    ])
    await reloaded.addToolApprovalResponse({ id: bob!.id, approved: true })
    await vi.waitFor(() => expect(textOf(reloaded.getMessages())).toContain('Ann: denied, Bob: success'))
    expect(transfers).toEqual([{ to: 'Bob', amount: 400 }])
  })

  it('hydrates a thread not stored yet as an empty one, then chats on it', async () => {
    const server = await setUp()
    const onError = vi.fn()
    const client = new ChatClient({ connection: connection(server), threadId: newThread(), persistence: true, onError })
    client.attach()
    const hydrated = await fetch(`${server.url}?client=tanstack&threadId=t-new`)
    expect(await hydrated.json()).toEqual({ messages: [], activeRun: null, interrupts: null, page: { truncated: false } })
    await client.sendMessage('weather please')
    expect(textOf(client.getMessages())).toBe('It is {"city":"Oslo","tempC":4}.')
    expect(onError).not.toHaveBeenCalled()
  })

  it('hydrates a finished thread with tool results as parts, one assistant message per turn as the live client built it', async () => {
    const server = await setUp()
    const threadId = newThread()
    const live = new ChatClient({ connection: connection(server), threadId })
    await live.sendMessage('weather please')
    const reloaded = new ChatClient({ connection: connection(server), threadId, persistence: true })
    reloaded.attach()
    await vi.waitFor(() => expect(textOf(reloaded.getMessages())).toBe('It is {"city":"Oslo","tempC":4}.'))
    expect(toolCallPart(reloaded.getMessages(), 'get_weather')).toMatchObject({ state: 'complete', output: { city: 'Oslo', tempC: 4 } })
    const shape = (messages: readonly UIMessage[]) => messages.map((m) => [m.role, m.parts.map((p) => p.type)])
    expect(shape(reloaded.getMessages())).toEqual(shape(live.getMessages()))
    // The hydrated history agrees with the stored thread: the next turn is accepted.
    await reloaded.sendMessage('weather again')
    expect(reloaded.getError()).toBeUndefined()
    expect(reloaded.getMessages().map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(textOf(reloaded.getMessages().slice(2))).toBe('It is {"city":"Oslo","tempC":4}.')
  })

  it('hydrates a turn the user stopped with metadata.toolgate.stopped on its message; the reloaded client chats on', async () => {
    const started = deferred()
    const slowWeather = weatherDef.server((_, { signal }) => new Promise<never>((_resolve, reject) => (started.resolve(), signal.addEventListener('abort', () => reject(signal.reason)))))
    const model = scriptedModel([
      { when: 'weather', call: () => ({ tool: 'get_weather', input: { city: 'Oslo' } }), then: () => 'never' },
      { when: 'hello', reply: 'Hello there.' },
    ])
    const server = await startServer({ model, tools: [slowWeather] })
    const threadId = newThread()
    const live = new ChatClient({ connection: connection(server), threadId })
    const sending = live.sendMessage('weather please')
    await started.promise
    expect(await (await server.post({ threadId, stop: true })).json()).toEqual({ threadId, stopped: true })
    await sending
    await vi.waitFor(async () => expect((await server.get(threadId)).status).toBe('idle'))
    await live.sendMessage('hello')

    const reloaded = new ChatClient({ connection: connection(server), threadId, persistence: true })
    reloaded.attach()
    await vi.waitFor(() => expect(reloaded.getMessages()).toHaveLength(4))
    expect(reloaded.getMessages().map((m) => m.metadata?.toolgate)).toEqual([undefined, { stopped: true }, undefined, undefined])
    await reloaded.sendMessage('hello')
    expect(reloaded.getError()).toBeUndefined()
    expect(textOf(reloaded.getMessages().slice(4))).toBe('Hello there.')
  })

  it('takes the next turn after a turn with a tool call: its history holds the turn as one message', async () => {
    const server = await setUp()
    const client = new ChatClient({ connection: connection(server), threadId: newThread() })
    await client.sendMessage('weather please')
    await client.sendMessage('weather again')
    expect(client.getError()).toBeUndefined()
    expect(textOf(client.getMessages().slice(2))).toBe('It is {"city":"Oslo","tempC":4}.')
  })

  it('rejoins a run still streaming after a reload, from its start', async () => {
    const server = await setUp(15)
    const threadId = newThread()
    const first = new ChatClient({ connection: connection(server), threadId })
    const sent = first.sendMessage('story please')
    await vi.waitFor(() => expect(textOf(first.getMessages())).toContain('part 1.'))
    const reloaded = new ChatClient({ connection: connection(server), threadId, persistence: true })
    reloaded.attach()
    await vi.waitFor(() => expect(textOf(reloaded.getMessages())).toBe(story), { timeout: 10_000 })
    await sent
    expect(textOf(first.getMessages())).toBe(story)
  }, 20_000)

  it("refuses a rejoin of another user's run: the run's thread is authorized like any read", async () => {
    const model = scriptedModel([{ when: 'story', reply: story }], { delayMs: 15 })
    const server = await startServer({ model, authorize: (request) => request.headers.get('x-user') === 'ada' })
    const threadId = newThread()
    const ada = new ChatClient({ connection: fetchServerSentEvents(`${server.url}?client=tanstack`, { headers: { 'x-user': 'ada' } }), threadId })
    const sent = ada.sendMessage('story please')
    let runId: string | undefined
    await vi.waitFor(async () => {
      const hydrated = (await (await fetch(`${server.url}?client=tanstack&threadId=${threadId}`, { headers: { 'x-user': 'ada' } })).json()) as { activeRun: { runId: string } | null }
      runId = hydrated.activeRun?.runId
      expect(runId).toBeDefined()
    })
    const stranger = await fetch(`${server.url}?client=tanstack&offset=-1&runId=${runId}`, { headers: { 'x-user': 'eve' } })
    expect(stranger.status).toBe(403)
    await sent
  }, 20_000)

  it('answers every other GET as the endpoint does (decisions, watch, devtools), and refuses another dialect’s format with 400 (issue 36)', async () => {
    const server = await startServer({ model: scriptedModel([{ when: 'pay', call: () => ({ tool: 'transfer_money', input: { to: 'Bob', amount: 500 } }), then: () => 'paid' }]), tools: [transferDef.server(() => ({ receipt: 'r' }))], devtools: true })
    const turn = await server.send('pay Bob')
    await server.resume(turn.threadId, [{ interruptId: turn.interrupts[0]!.id, approved: true }])
    const get = async (query: string) => {
      const response = await fetch(`${server.url}?client=tanstack&threadId=${turn.threadId}&${query}`)
      return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: { code: string; path?: string } } }
    }
    const decisions = await get('decisions')
    expect([decisions.status, (decisions.body.decisions as { decision: string }[]).map((record) => record.decision)]).toEqual([200, ['approved']])
    expect(await get('watch=0')).toEqual({ status: 200, body: { threadId: turn.threadId, version: expect.any(Number) } })
    const devtools = await get('devtools')
    expect([devtools.status, devtools.body.threadId]).toEqual([200, turn.threadId])
    const aiSdk = await get('format=ai-sdk')
    expect([aiSdk.status, aiSdk.body.error?.code, aiSdk.body.error?.path]).toEqual([400, 'INVALID_REQUEST', 'format'])
  })

  it('refuses a rejoin of a run whose events are not kept, with the path', async () => {
    const server = await setUp()
    const response = await fetch(`${server.url}?client=tanstack&offset=-1&runId=run_unknown`)
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ error: { code: 'RUN_NOT_FOUND', path: 'runId' } })
  })
})
