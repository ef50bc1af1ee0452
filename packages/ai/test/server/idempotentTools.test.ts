import * as v from 'valibot'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ToolDefinitionError, toolDefinition } from '@toolgate/ai'
import { memoryStore, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { locationDef, transferDef } from './fixtures.ts'
import { closeAll, startServer } from './helpers/server.ts'

// A process that dies while server tools run leaves their calls recorded as running. The next
// request that takes the thread over runs a call of an `idempotent` tool again, under the same
// toolCallId; a call of any other tool is reported to the model as interrupted.

afterEach(async () => {
  vi.useRealTimers()
  await closeAll()
})

const LEASE_MS = 1000

const bookDef = toolDefinition({
  name: 'book_room',
  description: 'Books a room; the booking is keyed by the call id, so booking twice books once',
  inputSchema: v.object({ room: v.string() }),
  outputSchema: v.object({ booking: v.string() }),
  idempotent: true,
})

const model = scriptedModel([
  { when: /hello/i, reply: 'hi' },
  { when: /.*/, reply: 'ok' },
])

/** What a process killed while `calls` ran leaves: the step records them as running, the lease lapses. */
async function crashedWhileRunning(store: ThreadStore, options: { interrupts?: boolean; onlyTransfer?: boolean } = {}) {
  vi.useFakeTimers({ toFake: ['Date'] })
  const keys: string[] = []
  const ran: string[] = []
  const book = bookDef.server(async ({ room }, { toolCallId }) => (keys.push(toolCallId), { booking: `${room}@${toolCallId}` }))
  const transfer = transferDef.server(async ({ to }) => (ran.push(to), { receipt: `r-${to}` }))
  const server = await startServer({ model, tools: [book, transfer, locationDef], store, limits: { runLeaseMs: LEASE_MS, toolTimeoutMs: LEASE_MS / 2 } })
  const threadId = (await server.send('hello')).threadId
  const head = (await store.head(threadId))!
  const calls = [
    ...(options.onlyTransfer ? [] : [{ id: 'call_book', name: 'book_room', arguments: '{"room":"Blue"}' }]),
    { id: 'call_pay', name: 'transfer_money', arguments: '{"to":"Ann","amount":20}' },
    ...(options.interrupts ? [{ id: 'call_where', name: 'get_location', arguments: '{}' }] : []),
  ]
  const interrupts = options.interrupts
    ? [{ id: 'int_where', reason: 'client_tool' as const, toolCallId: 'call_where', toolName: 'get_location', input: {} }]
    : []
  const now = Date.now()
  const committed = await store.commit({
    head: {
      ...head,
      version: head.version + 1,
      messageCount: head.messageCount + 1,
      step: { message: { role: 'assistant', id: 'msg_step', content: '', toolCalls: calls }, results: [], interrupts, running: calls.filter((call) => call.id !== 'call_where').map((call) => call.id), steps: 1 },
      activeRun: { runId: 'run_dead', startedAt: now, renewedAt: now, fromMessage: head.messageCount + 1 },
    },
    append: [{ role: 'user', id: 'msg_user', content: 'book the blue room and pay Ann' }],
  })
  expect(committed).toBe(true)
  return { server, threadId, keys, ran, expireLease: () => vi.setSystemTime(Date.now() + LEASE_MS + 1) }
}

describe('toolDefinition({ idempotent })', () => {
  it('is carried by the definition and the built tools, and must be a boolean', () => {
    expect(bookDef.idempotent).toBe(true)
    expect(bookDef.server(async () => ({ booking: 'b' })).idempotent).toBe(true)
    expect(transferDef.idempotent).toBe(false)
    expect(() => toolDefinition({ name: 'x', description: 'x', idempotent: 'yes' as never })).toThrow(ToolDefinitionError)
    expect(() => toolDefinition({ name: 'x', description: 'x', idempotent: 'yes' as never })).toThrow(/`idempotent` of tool "x" must be a boolean/)
  })
})

describe('after a crash mid-call', () => {
  it('a new message runs the idempotent call again under the same toolCallId, reports the other as interrupted, then answers', async () => {
    const store = memoryStore()
    const { server, threadId, keys, ran, expireLease } = await crashedWhileRunning(store)
    expireLease()
    const turn = await server.send('and now?', threadId)
    expect(turn.status).toBe(200)
    expect(keys).toEqual(['call_book'])
    expect(ran).toEqual([])
    expect(turn.results.map((r) => [r.toolCallId, r.metadata.status]).sort()).toEqual([
      ['call_book', 'success'],
      ['call_pay', 'error'],
    ])
    expect(turn.results.find((r) => r.toolCallId === 'call_book')).toMatchObject({ metadata: { output: { booking: 'Blue@call_book' } } })
    expect(turn.results.find((r) => r.toolCallId === 'call_pay')!.content).toMatch(/may or may not have taken effect, and it was not run again/)
    expect(turn.text).toBe('ok')

    // The step closed with both results, then the new message, then the answer: nothing twice.
    const { messages, status } = await server.get(threadId)
    expect(status).toBe('idle')
    expect(messages.map((m) => (m.role === 'tool' ? `tool:${m.toolCallId}` : m.role))).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'tool:call_book',
      'tool:call_pay',
      'user',
      'assistant',
    ])
    expect(messages[6]).toMatchObject({ role: 'user', content: 'and now?' })
    const head = (await store.head(threadId))!
    expect(head.step).toBeUndefined()
    expect(head.activeRun).toBeUndefined()
  })

  it('a resume that completes the step runs the idempotent call again with the answered ones', async () => {
    const store = memoryStore()
    const { server, threadId, keys, ran, expireLease } = await crashedWhileRunning(store, { interrupts: true })
    expireLease()
    expect(await server.get(threadId)).toMatchObject({ status: 'interrupted', interrupts: [{ id: 'int_where' }] })
    const resumed = await server.resume(threadId, [{ interruptId: 'int_where', output: { city: 'Lima' } }])
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200)
    expect(keys).toEqual(['call_book'])
    expect(ran).toEqual([])
    expect(resumed.results.map((r) => [r.toolCallId, r.metadata.status]).sort()).toEqual([
      ['call_book', 'success'],
      ['call_pay', 'error'],
      ['call_where', 'success'],
    ])
    const { messages } = await server.get(threadId)
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(['call_book', 'call_pay', 'call_where'])
  })

  it('a new message while other calls of the step wait runs the idempotent call again and supersedes the waiting ones', async () => {
    const store = memoryStore()
    const { server, threadId, keys, ran, expireLease } = await crashedWhileRunning(store, { interrupts: true })
    expireLease()
    const turn = await server.send('never mind', threadId)
    expect(turn.status).toBe(200)
    expect(keys).toEqual(['call_book'])
    expect(ran).toEqual([])
    expect(turn.results.map((r) => [r.toolCallId, r.metadata.status]).sort()).toEqual([
      ['call_book', 'success'],
      ['call_pay', 'error'],
      ['call_where', 'cancelled'],
    ])
    expect(turn.finished?.outcome).toEqual({ type: 'success' })
    const { messages, status, interrupts } = await server.get(threadId)
    expect({ status, interrupts }).toEqual({ status: 'idle', interrupts: [] })
    expect(messages.slice(3).map((m) => (m.role === 'tool' ? `tool:${m.toolCallId}` : m.role))).toEqual([
      'assistant',
      'tool:call_book',
      'tool:call_pay',
      'tool:call_where',
      'user',
      'assistant',
    ])
    // The superseded interrupt cannot be answered any more.
    const late = await server.post({ threadId, resume: [{ interruptId: 'int_where', output: { city: 'Lima' } }] })
    expect(late.status).toBe(409)
  })

  it('a thread a takeover released to its waiting interrupts runs the idempotent call on the next message, never storing a call without its result', async () => {
    const store = memoryStore()
    const { server, threadId, keys, expireLease } = await crashedWhileRunning(store, { interrupts: true })
    expireLease()
    // What a reader's takeover writes when the step waits for people: the thread is free, the
    // idempotent call still recorded as running, the other one reported interrupted.
    const head = (await store.head(threadId))!
    const interrupted = { role: 'tool' as const, id: 'msg_pay', toolCallId: 'call_pay', toolName: 'transfer_money', content: 'interrupted', status: 'error' as const }
    const released = { ...head, version: head.version + 1, activeRun: undefined, step: { ...head.step!, running: ['call_book'], results: [interrupted] } }
    expect(await store.commit({ head: released, append: [] })).toBe(true)
    expect(await server.get(threadId)).toMatchObject({ status: 'interrupted' })

    const turn = await server.send('never mind', threadId)
    expect(turn.status).toBe(200)
    expect(keys).toEqual(['call_book'])
    const { messages } = await server.get(threadId)
    const calls = messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((call) => call.id) : []))
    const results = messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : []))
    expect(results.sort()).toEqual(calls.sort())
  })

  it('runs the call again once: a later message finds nothing left to run', async () => {
    const store = memoryStore()
    const { server, threadId, keys, expireLease } = await crashedWhileRunning(store)
    expireLease()
    await server.send('and now?', threadId)
    // A second message finds nothing left to run again.
    await server.send('hello', threadId)
    expect(keys).toEqual(['call_book'])
  })

  it('a call of a tool that is not idempotent gets its interrupted result, leaves the head, and never runs on any later turn', async () => {
    const store = memoryStore()
    const { server, threadId, ran, expireLease } = await crashedWhileRunning(store, { onlyTransfer: true })
    expireLease()
    const turn = await server.send('and now?', threadId)
    expect(turn.results.map((r) => [r.toolCallId, r.metadata.status])).toEqual([['call_pay', 'error']])
    expect((await store.head(threadId))!.step).toBeUndefined()
    await server.send('hello', threadId)
    expect(ran).toEqual([])
    const { messages } = await server.get(threadId)
    expect(messages.filter((m) => m.role === 'tool')).toHaveLength(1)
  })
})
