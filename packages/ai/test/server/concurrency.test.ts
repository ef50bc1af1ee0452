import { afterEach, describe, expect, it, vi } from 'vitest'
import { memoryStore, scriptedModel, type ThreadStore } from '@toolgate/ai/server'
import { transferDef, weatherDef } from './fixtures.ts'
import { readSse } from './helpers/sse.ts'
import { closeAll, deferred, errorOf, readTurn, startServer } from './helpers/server.ts'

afterEach(closeAll)

const model = scriptedModel([
  { when: /send (\d+) to (\w+)/i, call: (m) => ({ tool: 'transfer_money', input: { to: m[2], amount: Number(m[1]) } }), then: ([r]) => r.content },
  { when: 'hello', reply: 'hi' },
])

/** A store whose next two writes wait for each other, so both requests read the same version first. */
function racingStore() {
  const inner = memoryStore()
  let waiting: { count: number; both: ReturnType<typeof deferred<void>> } | undefined
  let conflicts = 0
  const store: ThreadStore = {
    get: (id) => inner.get(id),
    async put(thread, expectedVersion) {
      if (waiting) {
        const gate = waiting
        if (++gate.count === 2) {
          waiting = undefined
          gate.both.resolve()
        }
        await gate.both.promise
      }
      const ok = await inner.put(thread, expectedVersion)
      if (!ok) conflicts++
      return ok
    },
  }
  return { store, arm: () => (waiting = { count: 0, both: deferred() }), conflicts: () => conflicts }
}

describe('concurrent requests', () => {
  it('applies two identical concurrent resumes once: one streams, the other gets 409', async () => {
    const ran: unknown[] = []
    const tool = transferDef.server(async (input) => (ran.push(input), { receipt: 'ok' }))
    const server = await startServer({ model, tools: [tool] })
    const turn = await server.send('send 500 to Bob')
    const body = { threadId: turn.threadId, resume: [{ interruptId: turn.interrupts[0]!.id, approved: true }] }

    const responses = await Promise.all([server.post(body), server.post(body)])
    const statuses = responses.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 409])
    const loser = responses.find((r) => r.status === 409)!
    expect((await errorOf(loser)).error.code).toMatch(/^(INTERRUPT_ALREADY_ANSWERED|THREAD_BUSY)$/)
    await readTurn(responses.find((r) => r.status === 200)!)
    expect(ran).toHaveLength(1)
  })

  it('resolves a real version conflict to one winner (optimistic versioning)', async () => {
    const racing = racingStore()
    const ran: unknown[] = []
    const tool = transferDef.server(async (input) => (ran.push(input), { receipt: 'ok' }))
    const server = await startServer({ model, tools: [tool], store: racing.store })
    const turn = await server.send('send 500 to Bob')
    const body = { threadId: turn.threadId, resume: [{ interruptId: turn.interrupts[0]!.id, approved: true }] }

    racing.arm()
    const responses = await Promise.all([server.post(body), server.post(body)])
    expect(racing.conflicts()).toBe(1)
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409])
    expect((await errorOf(responses.find((r) => r.status === 409)!)).error.code).toBe('INTERRUPT_ALREADY_ANSWERED')
    await readTurn(responses.find((r) => r.status === 200)!)
    expect(ran).toHaveLength(1)
  })

  it('stores two concurrent partial answers of one batch; exactly one request resumes', async () => {
    const racing = racingStore()
    const tool = transferDef.server(async () => ({ receipt: 'ok' }))
    const twoCalls = scriptedModel([
      {
        when: 'two',
        call: () => [
          { tool: 'transfer_money', input: { to: 'A', amount: 200 } },
          { tool: 'transfer_money', input: { to: 'B', amount: 300 } },
        ],
        then: () => 'done',
      },
    ])
    const server = await startServer({ model: twoCalls, tools: [tool], store: racing.store })
    const turn = await server.send('two')
    racing.arm()
    const responses = await Promise.all(
      turn.interrupts.map((interrupt) => server.post({ threadId: turn.threadId, resume: [{ interruptId: interrupt.id, approved: true }] })),
    )
    expect(responses.map((r) => r.status).sort()).toEqual([200, 202])
    expect((await readTurn(responses.find((r) => r.status === 200)!)).text).toBe('done')
  })

  it('refuses a message while a run streams on the thread (409), then takes it', async () => {
    const started = deferred()
    const release = deferred()
    const tool = transferDef.server(async () => {
      started.resolve()
      await release.promise
      return { receipt: 'ok' }
    })
    const server = await startServer({ model, tools: [tool] })
    const response = await server.post({ message: 'send 5 to Bob' })
    const events = readSse(response)
    const first = (await events.next()).value as { type: string; threadId: string }
    expect(first.type).toBe('RUN_STARTED')
    await started.promise

    const busy = await server.post({ threadId: first.threadId, message: 'hello' })
    expect(await errorOf(busy)).toMatchObject({ status: 409, error: { code: 'THREAD_BUSY' } })
    expect((await server.get(first.threadId)).status).toBe('running')

    release.resolve()
    for await (const _ of events) {
      // drain
    }
    expect((await server.send('hello', first.threadId)).text).toBe('hi')
  })
})

describe('run lease', () => {
  afterEach(() => vi.useRealTimers())

  it('counts from the run’s last write, so a run longer than runLeaseMs still holds its thread', async () => {
    // Only the clock is fake: each tool call moves it 600 ms on, under the 1000 ms lease each time
    // but past it in total.
    vi.useFakeTimers({ toFake: ['Date'] })
    const started = deferred()
    const release = deferred()
    const tool = weatherDef.server(async ({ city }) => {
      vi.setSystemTime(Date.now() + 600)
      if (city === 'Oslo') {
        started.resolve()
        await release.promise
      }
      return { city, tempC: 1 }
    })
    const twoRounds = scriptedModel([
      { when: 'weather', call: () => ({ tool: 'get_weather', input: { city: 'Paris' } }), then: (_, { round }) => (round === 1 ? { call: { tool: 'get_weather', input: { city: 'Oslo' } } } : 'done') },
      { when: 'hello', reply: 'hi' },
    ])
    const server = await startServer({ model: twoRounds, tools: [tool], limits: { runLeaseMs: 1000 } })
    const response = await server.post({ message: 'weather' })
    const events = readSse(response)
    const { threadId } = (await events.next()).value as { threadId: string }
    await started.promise

    const busy = await server.post({ threadId, message: 'hello' })
    expect(await errorOf(busy)).toMatchObject({ status: 409, error: { code: 'THREAD_BUSY' } })
    expect((await server.get(threadId)).status).toBe('running')

    release.resolve()
    const rest: unknown[] = []
    for await (const event of events) rest.push(event)
    expect(rest.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } })
    expect((await server.send('hello', threadId)).text).toBe('hi')
  })
})

describe('memoryStore', () => {
  it('creates at version 0, then compares and sets', async () => {
    const store = memoryStore()
    const thread = { id: 't', messages: [], resolvedInterruptIds: [], createdAt: 1, updatedAt: 1 }
    expect(await store.get('t')).toBeUndefined()
    expect(await store.put(thread, 0)).toBe(true)
    expect(await store.put(thread, 0)).toBe(false)
    expect(await store.put({ ...thread, updatedAt: 2 }, 1)).toBe(true)
    const stored = await store.get('t')
    expect(stored).toEqual({ thread: { ...thread, updatedAt: 2 }, version: 2 })
    ;(stored!.thread.messages as unknown[]).push('mutated')
    expect((await store.get('t'))!.thread.messages).toEqual([])
  })
})
