import { afterEach, describe, expect, it, vi } from 'vitest'
import { memoryStore, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { transferDef } from './fixtures.ts'
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
    head: (id) => inner.head(id),
    messages: (id, from, to) => inner.messages(id, from, to),
    decisions: (id) => inner.decisions(id),
    async commit(commit) {
      if (waiting) {
        const gate = waiting
        if (++gate.count === 2) {
          waiting = undefined
          gate.both.resolve()
        }
        await gate.both.promise
      }
      const ok = await inner.commit(commit)
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

  it('is renewed by a heartbeat while a slow tool runs, so the run holds its thread however long the tool takes', async () => {
    // Only the clock is fake: it jumps five leases ahead while the tool runs, and only the
    // heartbeat (on real timers, every third of the lease) keeps the run's claim.
    vi.useFakeTimers({ toFake: ['Date'] })
    const started = deferred()
    const release = deferred()
    const ran: string[] = []
    const tool = transferDef.server(async ({ to }) => {
      ran.push(to)
      started.resolve()
      await release.promise
      return { receipt: 'slow' }
    })
    const server = await startServer({ model, tools: [tool], limits: { runLeaseMs: 6000, toolTimeoutMs: 5900 } })
    const turn = await server.send('send 500 to Bob')
    const response = await server.post({ threadId: turn.threadId, resume: [{ interruptId: turn.interrupts[0]!.id, approved: true }] })
    const events = readSse(response)
    await started.promise

    vi.setSystemTime(Date.now() + 30_000)
    // The lease lapsed by the clock; within a beat (every 2 s) the heartbeat renews it at the new time.
    await vi.waitFor(async () => expect((await server.get(turn.threadId)).status).toBe('running'), { timeout: 4000, interval: 50 })
    const replay = await server.post({ threadId: turn.threadId, resume: [{ interruptId: turn.interrupts[0]!.id, approved: true }] })
    expect(await errorOf(replay)).toMatchObject({ status: 409, error: { code: 'INTERRUPT_ALREADY_ANSWERED' } })
    const busy = await server.post({ threadId: turn.threadId, message: 'hello' })
    expect(await errorOf(busy)).toMatchObject({ status: 409, error: { code: 'THREAD_BUSY' } })

    release.resolve()
    const rest: unknown[] = []
    for await (const event of events) rest.push(event)
    expect(rest.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } })
    expect(ran).toEqual(['Bob'])
  })

  it('refuses a tool timeout as long as the lease: no tool may outlive its run', async () => {
    const { createChatHandler } = await import('@toolgate/ai/server')
    expect(() => createChatHandler({ model, limits: { runLeaseMs: 1000, toolTimeoutMs: 1000 } })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', option: 'limits.toolTimeoutMs' }),
    )
  })
})

describe('memoryStore', () => {
  it('creates at version 1, then compares and sets; messages are only appended', async () => {
    const store = memoryStore()
    const head = { id: 't', version: 1, messageCount: 1, bytes: 10, resolvedInterruptIds: [], createdAt: 1, updatedAt: 1 }
    const hello = { role: 'user' as const, id: 'm1', content: 'hello' }
    expect(await store.head('t')).toBeUndefined()
    expect(await store.commit({ head, append: [hello] })).toBe(true)
    expect(await store.commit({ head, append: [hello] })).toBe(false)
    expect(await store.commit({ head: { ...head, version: 2, updatedAt: 2 }, append: [] })).toBe(true)
    expect(await store.head('t')).toEqual({ ...head, version: 2, updatedAt: 2 })
    const messages = await store.messages('t', 0, 1)
    expect(messages).toEqual([hello])
    expect(() => ((messages[0] as { content: string }).content = 'mutated')).toThrow(TypeError)
  })
})
