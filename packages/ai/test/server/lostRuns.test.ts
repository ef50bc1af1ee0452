import { afterEach, describe, expect, it, vi } from 'vitest'
import { memoryStore, type StoredAnswer, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
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
  const server = await startServer({ model, tools: [locationDef, transfer], store, limits: { runLeaseMs: LEASE_MS, toolTimeoutMs: LEASE_MS / 2 } })
  const turn = await server.send('three calls')
  const [location, ann, bob] = turn.interrupts
  const answers: StoredAnswer[] = [
    { kind: 'output', output: { city: 'Lima' } },
    { kind: 'approval', approved: true },
    { kind: 'approval', approved: false, reason: 'not Bob' },
  ]
  const head = (await store.head(turn.threadId))!
  const { step } = head
  const claimed = {
    ...head,
    version: head.version + 1,
    step: { ...step!, interrupts: step!.interrupts.map((interrupt, i) => ({ ...interrupt, answer: answers[i] })) },
    activeRun: { runId: 'run_lost', startedAt: Date.now(), renewedAt: Date.now(), fromMessage: head.messageCount, resumed: true as const },
  }
  expect(await store.commit({ head: claimed, append: [] })).toBe(true)
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
    expect(resumed.results.map((r) => r.metadata.status).sort()).toEqual(['denied', 'success', 'success']) // streamed as they settle
    expect(resumed.text).toBe('get_location: success {"city":"Lima"}, transfer_money: success {"receipt":"r-Ann"}, transfer_money: denied')
    expect(ran).toEqual(['Ann'])

    const after = await server.get(threadId)
    expect(after).toMatchObject({ status: 'idle', interrupts: [] })
    expect(after.messages.filter((m) => m.role === 'tool').map((m) => m.status)).toEqual(['success', 'success', 'denied'])
    const head = (await store.head(threadId))!
    expect(head.step).toBeUndefined()
    expect(head.activeRun).toBeUndefined()

    // Applied once: a further replay is told so.
    const again = await server.post({ threadId, resume: replay })
    expect(await errorOf(again)).toMatchObject({ status: 409, error: { code: 'INTERRUPT_ALREADY_ANSWERED' } })
    expect(ran).toEqual(['Ann'])
  })

  it('refuses answers to interrupts that are not in the lost batch, changing nothing', async () => {
    const store = memoryStore()
    const { server, threadId, expireLease } = await lostResume(store)
    expireLease()
    const before = (await store.head(threadId))!
    const response = await server.post({ threadId, resume: [{ interruptId: 'int_unknown', approved: true }] })
    expect(await errorOf(response)).toMatchObject({ status: 404, error: { code: 'INTERRUPT_NOT_FOUND' } })
    expect((await store.head(threadId))!.version).toBe(before.version)
  })

  it('is settled by a new message: browser results and explicit denials stand, approvals not yet run are superseded', async () => {
    const store = memoryStore()
    const { server, threadId, ran, expireLease } = await lostResume(store)
    expireLease()
    const turn = await server.send('hello', threadId)
    expect(turn.status).toBe(200)
    expect(turn.text).toBe('hi')
    expect(turn.results.map((r) => [r.metadata.status, r.content])).toEqual([
      ['success', '{"city":"Lima"}'],
      ['cancelled', 'The request was cancelled before anyone decided (the user sent a new message instead); the tool did not run.'],
      ['denied', 'denied by the user: not Bob'],
    ])
    expect(ran).toEqual([])
    expect(await server.get(threadId)).toMatchObject({ status: 'idle', interrupts: [] })
  })
})

describe('a run that died while a server tool ran', () => {
  /** Leaves in the store what a process killed mid-call leaves: the step records the call as running, the lease lapses. */
  async function crashedMidCall(store: ThreadStore) {
    vi.useFakeTimers({ toFake: ['Date'] })
    const ran: string[] = []
    const transfer = transferDef.server(async ({ to }) => (ran.push(to), { receipt: `r-${to}` }))
    const server = await startServer({ model, tools: [locationDef, transfer], store, limits: { runLeaseMs: LEASE_MS, toolTimeoutMs: LEASE_MS / 2 } })
    const turn = await server.send('three calls')
    const [, ann, bob] = turn.interrupts
    const head = (await store.head(turn.threadId))!
    const step = head.step!
    // A resume denied Bob's transfer, approved Ann's and began it (recorded as running); the
    // browser's result is still awaited.
    const denied = { role: 'tool' as const, id: 'msg_bob', toolCallId: bob!.toolCallId, toolName: 'transfer_money', content: 'denied by the user: not Bob', status: 'denied' as const, reason: 'not Bob' }
    const crashed = {
      ...head,
      version: head.version + 1,
      step: { ...step, interrupts: [step.interrupts[0]!], running: [ann!.toolCallId], results: [...step.results, denied] },
      activeRun: { runId: 'run_dead', startedAt: Date.now(), renewedAt: Date.now(), fromMessage: head.messageCount, resumed: true as const },
      resolvedInterruptIds: [...head.resolvedInterruptIds, ann!.id, bob!.id],
    }
    expect(await store.commit({ head: crashed, append: [] })).toBe(true)
    return { server, turn, ran, expireLease: () => vi.setSystemTime(Date.now() + LEASE_MS + 1) }
  }

  it('never runs the call again: a replayed approval is refused, and the call is reported as interrupted', async () => {
    const store = memoryStore()
    const { server, turn, ran, expireLease } = await crashedMidCall(store)
    expireLease()
    const [location, ann] = turn.interrupts
    const replay = await server.post({ threadId: turn.threadId, resume: [{ interruptId: ann!.id, approved: true }] })
    expect(await errorOf(replay)).toMatchObject({ status: 409, error: { code: 'INTERRUPT_ALREADY_ANSWERED' } })

    const resumed = await server.resume(turn.threadId, [{ interruptId: location!.id, output: { city: 'Lima' } }])
    expect(resumed.status).toBe(200)
    expect(resumed.results.map((r) => [r.toolCallId === ann!.toolCallId, r.metadata.status, r.content])).toContainEqual([
      true,
      'error',
      'The server stopped while this call ran; it may or may not have taken effect, and it was not run again',
    ])
    expect(ran).toEqual([])
    const after = await server.get(turn.threadId)
    expect(after.status).toBe('idle')
    const toolMessages = after.messages.filter((m) => m.role === 'tool')
    expect(toolMessages.map((m) => m.toolCallId).sort()).toEqual(turn.interrupts.map((i) => i.toolCallId).sort())
  })

  it('is settled by a new message with the interrupted result, and the thread goes on', async () => {
    const store = memoryStore()
    const { server, turn, ran, expireLease } = await crashedMidCall(store)
    expireLease()
    const next = await server.send('hello', turn.threadId)
    expect(next.text).toBe('hi')
    expect(next.results.map((r) => r.metadata.status).sort()).toEqual(['cancelled', 'error'])
    expect(ran).toEqual([])
    expect((await server.get(turn.threadId)).messages.filter((m) => m.role === 'tool')).toHaveLength(3)
  })

  it('closes a step whose only unsettled call was running, when a new message comes: the head keeps no step', async () => {
    const store = memoryStore()
    const { server, turn, ran, expireLease } = await crashedMidCall(store)
    // The browser's result arrived before the crash: only the running call is left.
    const head = (await store.head(turn.threadId))!
    const onlyRunning = { ...head, version: head.version + 1, step: { ...head.step!, interrupts: [], results: [...head.step!.results, { role: 'tool' as const, id: 'msg_loc', toolCallId: turn.interrupts[0]!.toolCallId, toolName: 'get_location', content: '{"city":"Lima"}', status: 'success' as const, output: { city: 'Lima' } }] } }
    expect(await store.commit({ head: onlyRunning, append: [] })).toBe(true)
    expireLease()
    const next = await server.send('hello', turn.threadId)
    expect(next.text).toBe('hi')
    expect(ran).toEqual([])
    const stored = (await store.head(turn.threadId))!
    expect(stored.step).toBeUndefined()
    const { messages } = await server.get(turn.threadId)
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'tool', 'user', 'assistant'])
  })
})
