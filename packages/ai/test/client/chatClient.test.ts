import { describe, expect, it, vi } from 'vitest'
import { toolJsonSchema } from '@toolgate/ai'
import { createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { createChatClient } from '@toolgate/ai/client'
import {
  callStates,
  clientOn,
  gatedModel,
  inProcess,
  location,
  record,
  texts,
  toolCalls,
  transfer,
  transferServer,
  weather,
  weatherServer,
} from './helpers.ts'

const model = scriptedModel([
  { when: /hello/i, reply: 'Hi! Ask me about the weather.' },
  {
    when: /weather in (\w+)/i,
    say: 'Let me check.',
    call: (m) => ({ tool: 'get_weather', input: { city: m[1] } }),
    then: ([r]) => (r.tool === 'get_weather' && r.ok ? `It is ${r.output.tempC}°C in ${r.input.city}.` : `Failed: ${r.content}`),
  },
  { when: /bad weather/i, call: () => ({ tool: 'get_weather', input: { city: 'X' } }) },
  { when: /send (\d+)/i, call: (m) => ({ tool: 'transfer_money', input: { to: 'Bob', amount: Number(m[1]) } }) },
  { when: /where am i/i, call: () => ({ tool: 'get_location', input: {} }), then: ([r]) => `In ${r.tool === 'get_location' ? r.output?.city : undefined}` },
], { tools: [weather, transfer, location] })

const server = { model, tools: [weatherServer, transferServer, location] }
const tools = [weather, transfer] as const

describe('ChatClient', () => {
  it('streams a reply and learns the thread id', async () => {
    const client = clientOn(server, { tools })
    const states = record(client)
    expect(client.getSnapshot()).toEqual({ threadId: undefined, messages: [], status: 'idle', error: undefined, pendingApprovals: [] })

    await client.send('hello')
    const state = client.getSnapshot()
    expect(state.threadId).toMatch(/^thread_/)
    expect(texts(state)).toEqual(['user: hello', 'assistant: Hi! Ask me about the weather.'])
    expect(state.status).toBe('idle')
    expect(states[0]!.status).toBe('streaming')
    // Text arrived word by word: several states show it growing.
    const lengths = states.map((s) => texts(s).join('').length)
    expect(new Set(lengths).size).toBeGreaterThan(3)

    await client.send('hello again')
    expect(client.getSnapshot().threadId).toBe(state.threadId)
    expect(texts(client.getSnapshot())).toHaveLength(4)
  })

  it('ignores an empty message', async () => {
    const client = clientOn(server)
    await client.send('  ')
    expect(client.getSnapshot().messages).toEqual([])
  })

  it('shows a server tool call from streaming input to its output, with the tool metadata', async () => {
    const client = clientOn(server, { tools })
    const states = record(client)
    await client.send('weather in Paris')
    const state = client.getSnapshot()
    const [call] = toolCalls(state)
    expect(call).toEqual({
      type: 'tool-call',
      toolCallId: expect.stringMatching(/^call_/),
      toolName: 'get_weather',
      state: 'output-available',
      input: { city: 'Paris' },
      output: { city: 'Paris', tempC: 5 },
      metadata: { icon: 'cloud' },
    })
    expect(callStates(states, call!.toolCallId)).toEqual(['input-streaming', 'input-available', 'output-available'])
    // While streaming, the input was the partial object so far.
    const partials = states.flatMap((s) => toolCalls(s).filter((part) => part.state === 'input-streaming').map((part) => part.input))
    expect(partials).toContainEqual({})
    expect(partials.some((input) => typeof input === 'object' && input !== null && 'city' in input && input.city !== 'Paris')).toBe(true)
    expect(texts(state)).toEqual(['user: weather in Paris', 'assistant: Let me check.', 'assistant: It is 5°C in Paris.'])
  })

  it('shows a failed server call as output-error with the text the model read', async () => {
    const client = clientOn(server, { tools })
    await client.send('bad weather')
    expect(toolCalls(client.getSnapshot())[0]).toMatchObject({
      state: 'output-error',
      error: expect.stringMatching(/^Invalid input for tool "get_weather":\n- city: /),
    })
  })

  it('stop() ends the stream and the server run', async () => {
    const gated = gatedModel([{ type: 'text-delta', delta: 'Thinking' }])
    const client = clientOn({ model: gated })
    const done = client.send('hello')
    await vi.waitFor(() => expect(texts(client.getSnapshot())).toEqual(['user: hello', 'assistant: Thinking']))
    expect(client.getSnapshot().status).toBe('streaming')
    client.stop()
    await done
    await gated.aborted
    expect(client.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
  })

  it('reports a busy thread with the server message when a run still holds it', async () => {
    const gated = gatedModel([{ type: 'text-delta', delta: 'Slow' }])
    const handler = createChatHandler({ model: gated })
    const first = createChatClient({ endpoint: '/chat', fetch: inProcess(handler) })
    const running = first.send('one')
    await vi.waitFor(() => expect(first.getSnapshot().threadId).toBeDefined())
    const second = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), threadId: first.getSnapshot().threadId })
    await second.send('two')
    expect(second.getSnapshot()).toMatchObject({ status: 'error', error: { code: 'THREAD_BUSY', status: 409 } })
    gated.release()
    await running
  })

  it('reloads a thread: messages, calls and pending approvals, which can then be answered', async () => {
    const handler = createChatHandler(server)
    const before = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), tools })
    await before.send('weather in Oslo')
    await before.send('send 500')
    const threadId = before.getSnapshot().threadId!

    const after = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), tools, threadId })
    expect(after.getSnapshot().threadId).toBe(threadId)
    await after.load()
    const state = after.getSnapshot()
    expect(texts(state)).toEqual(['user: weather in Oslo', 'assistant: Let me check.', 'assistant: It is 4°C in Oslo.', 'user: send 500'])
    expect(toolCalls(state).map((part) => part.state)).toEqual(['output-available', 'approval-requested'])
    expect(toolCalls(state)[0]).toMatchObject({ output: { city: 'Oslo', tempC: 4 }, metadata: { icon: 'cloud' } })
    expect(state.status).toBe('awaiting-approval')
    expect(state.pendingApprovals).toEqual([
      expect.objectContaining({ toolName: 'transfer_money', input: { to: 'Bob', amount: 500 }, approval: { reason: 'Sends 500 EUR to Bob', inputSchema: toolJsonSchema(transfer), grantable: true } }),
    ])

    await after.approve(state.pendingApprovals[0]!.toolCallId)
    expect(toolCalls(after.getSnapshot())[1]).toMatchObject({ state: 'output-available', output: { receipt: '500-Bob' } })
    expect(after.getSnapshot().status).toBe('idle')
  })

  it('reloads denied and failed calls as such', async () => {
    const handler = createChatHandler(server)
    const before = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), tools })
    await before.send('send 500')
    await before.deny(before.getSnapshot().pendingApprovals[0]!.toolCallId, 'no')
    await before.send('bad weather')
    const after = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), tools })
    await after.load(before.getSnapshot().threadId)
    expect(toolCalls(after.getSnapshot()).map((part) => [part.state, part.approval?.denyReason ?? part.error?.slice(0, 13)])).toEqual([
      ['denied', 'no'],
      ['output-error', 'Invalid input'],
    ])
  })

  it('runs the client tools a reloaded thread waits for', async () => {
    const handler = createChatHandler(server)
    const before = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), tools: [location.client(() => new Promise<never>(() => {}))] })
    void before.send('where am i')
    await vi.waitFor(() => expect(before.getSnapshot().status).toBe('running-tools'))
    before.stop() // the page went away before the tool answered

    const after = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), tools: [location.client(() => ({ city: 'Rome' }))] })
    await after.load(before.getSnapshot().threadId)
    expect(texts(after.getSnapshot()).at(-1)).toBe('assistant: In Rome')
  })

  it('puts load errors in `error` with the server code', async () => {
    const onError = vi.fn()
    const client = clientOn(server, { onError })
    await client.load('thread_missing')
    const state = client.getSnapshot()
    expect(state).toMatchObject({ status: 'error', threadId: 'thread_missing', error: { code: 'THREAD_NOT_FOUND', status: 404 } })
    expect(state.error).toBeInstanceOf(Error)
    expect(onError).toHaveBeenCalledWith(state.error)
    await client.load(undefined)
    expect(client.getSnapshot().status).toBe('error') // nothing to load: nothing changes
  })

  it('keeps unchanged messages and parts identical across states', async () => {
    const client = clientOn(server, { tools })
    await client.send('weather in Rome')
    const first = client.getSnapshot()
    expect(client.getSnapshot()).toBe(first) // stable between changes
    await client.send('hello')
    const second = client.getSnapshot()
    expect(second.messages.slice(0, first.messages.length)).toEqual(first.messages)
    second.messages.slice(0, first.messages.length).forEach((message, i) => expect(message).toBe(first.messages[i]))
    expect(Object.isFrozen(second) && Object.isFrozen(second.messages) && Object.isFrozen(second.messages[0])).toBe(true)
  })

  it('batches notifications: one per scheduled flush, however many events', async () => {
    const flushes: (() => void)[] = []
    const handler = createChatHandler(server)
    const client = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), scheduleNotify: (flush) => flushes.push(flush) })
    const listener = vi.fn()
    client.subscribe(listener)
    const done = client.send('weather in Lima')
    await vi.waitFor(() => expect(flushes.length).toBeGreaterThan(0))
    expect(listener).not.toHaveBeenCalled() // nothing published until the scheduler flushes
    flushes.shift()!()
    expect(listener).toHaveBeenCalledTimes(1)
    await done // the end of an operation publishes at once
    expect(listener).toHaveBeenCalledTimes(2)
    expect(texts(client.getSnapshot()).at(-1)).toBe('assistant: It is 4°C in Lima.')
    for (const flush of flushes) flush() // late flushes find nothing new
    expect(listener).toHaveBeenCalledTimes(2)
  })

  it('stops notifying a listener once it unsubscribes', async () => {
    const client = clientOn(server)
    const listener = vi.fn()
    const unsubscribe = client.subscribe(listener)
    unsubscribe()
    await client.send('hello')
    expect(listener).not.toHaveBeenCalled()
  })

  it('needs an endpoint', () => {
    expect(() => createChatClient({} as never)).toThrow(/endpoint/)
  })
})
