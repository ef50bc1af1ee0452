import { afterEach, describe, expect, it, vi } from 'vitest'
import { memoryStore, scriptedModel, type StoredAnswer, type ThreadStore } from '@toolgate/ai/server'
import { locationDef, transferDef } from './fixtures.ts'
import { closeAll, errorOf, startServer } from './helpers/server.ts'

// A run lost after a resume claimed its thread (the process died before the resumed run stored
// anything): the thread keeps a fully answered batch and an `activeRun` whose lease runs out.

afterEach(async () => {
  vi.useRealTimers()
  await closeAll()
})

const LEASE_MS = 1000

const model = scriptedModel([
  {
    when: /three/i,
    call: () => [
      { tool: 'get_location', input: {} },
      { tool: 'transfer_money', input: { to: 'Ann', amount: 200 } },
      { tool: 'transfer_money', input: { to: 'Bob', amount: 300 } },
    ],
    then: (results) => results.map((r) => `${r.tool}: ${r.status}${r.ok ? ` ${JSON.stringify(r.output)}` : ''}`).join(', '),
  },
  { when: /hello/i, reply: 'hi' },
])

/**
 * Pauses a turn on three interrupts (a client tool and two approvals), then writes into the store
 * what a resume that answered all of them and claimed the thread leaves when its process dies.
 */
async function lostResume(store: ThreadStore) {
  vi.useFakeTimers({ toFake: ['Date'] })
  const ran: string[] = []
  const transfer = transferDef.server(async ({ to }) => (ran.push(to), { receipt: `r-${to}` }))
  const server = await startServer({ model, tools: [locationDef, transfer], store, limits: { runLeaseMs: LEASE_MS } })
  const turn = await server.send('three calls')
  const [location, ann, bob] = turn.interrupts
  const answers: StoredAnswer[] = [
    { kind: 'output', output: { city: 'Lima' } },
    { kind: 'approval', approved: true },
    { kind: 'approval', approved: false, reason: 'not Bob' },
  ]
  const stored = (await store.get(turn.threadId))!
  const { pending } = stored.thread
  const claimed = {
    ...stored.thread,
    pending: { ...pending!, interrupts: pending!.interrupts.map((interrupt, i) => ({ ...interrupt, answer: answers[i] })) },
    activeRun: { runId: 'run_lost', startedAt: Date.now() },
  }
  expect(await store.put(claimed, stored.version)).toBe(true)
  const replay = [
    { interruptId: location!.id, output: { city: 'Lima' } },
    { interruptId: ann!.id, approved: true },
    { interruptId: bob!.id, approved: false, reason: 'not Bob' },
  ]
  return { server, threadId: turn.threadId, ran, replay, expireLease: () => vi.setSystemTime(Date.now() + LEASE_MS + 1) }
}

describe('a resumed run lost before it stored anything', () => {
  it('is re-driven by the next resume once its lease expired: the stored answers apply and the run continues', async () => {
    const store = memoryStore()
    const { server, threadId, ran, replay, expireLease } = await lostResume(store)

    // While the lease holds, the lost run still counts as running.
    expect(await server.get(threadId)).toMatchObject({ status: 'running', interrupts: [] })
    const early = await server.resume(threadId, [replay[1]!])
    expect(early.status).toBe(409)

    expireLease()
    // Nothing waits for an answer any more: the thread takes a message, or a replayed answer.
    expect(await server.get(threadId)).toMatchObject({ status: 'idle', interrupts: [] })
    const resumed = await server.resume(threadId, [replay[1]!])
    expect(resumed.status).toBe(200)
    expect(resumed.finished?.outcome).toEqual({ type: 'success' })
    expect(resumed.results.map((r) => r.status).sort()).toEqual(['denied', 'success', 'success']) // streamed as they settle
    expect(resumed.text).toBe('get_location: success {"city":"Lima"}, transfer_money: success {"receipt":"r-Ann"}, transfer_money: denied')
    expect(ran).toEqual(['Ann'])

    const after = await server.get(threadId)
    expect(after).toMatchObject({ status: 'idle', interrupts: [] })
    expect(after.messages.filter((m) => m.role === 'tool').map((m) => m.status)).toEqual(['success', 'success', 'denied'])
    const { thread } = (await store.get(threadId))!
    expect(thread.pending).toBeUndefined()
    expect(thread.activeRun).toBeUndefined()

    // Applied once: a further replay is told so.
    const again = await server.post({ threadId, resume: replay })
    expect(await errorOf(again)).toMatchObject({ status: 409, error: { code: 'INTERRUPT_ALREADY_ANSWERED' } })
    expect(ran).toEqual(['Ann'])
  })

  it('refuses answers to interrupts that are not in the lost batch, changing nothing', async () => {
    const store = memoryStore()
    const { server, threadId, expireLease } = await lostResume(store)
    expireLease()
    const before = (await store.get(threadId))!
    const response = await server.post({ threadId, resume: [{ interruptId: 'int_unknown', approved: true }] })
    expect(await errorOf(response)).toMatchObject({ status: 404, error: { code: 'INTERRUPT_NOT_FOUND' } })
    expect((await store.get(threadId))!.version).toBe(before.version)
  })

  it('is settled by a new message: browser results and explicit denials stand, approvals not yet run are superseded', async () => {
    const store = memoryStore()
    const { server, threadId, ran, expireLease } = await lostResume(store)
    expireLease()
    const turn = await server.send('hello', threadId)
    expect(turn.status).toBe(200)
    expect(turn.text).toBe('hi')
    expect(turn.results.map((r) => [r.status, r.content])).toEqual([
      ['success', '{"city":"Lima"}'],
      ['denied', 'denied by the user: the user sent a new message instead'],
      ['denied', 'denied by the user: not Bob'],
    ])
    expect(ran).toEqual([])
    expect(await server.get(threadId)).toMatchObject({ status: 'idle', interrupts: [] })
  })
})
