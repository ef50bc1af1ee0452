import * as v from 'valibot'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ToolDefinitionError, toolDefinition } from '@toolgate/ai'
import { agentTool, memoryStore, StoreError, type ThreadCommit, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { closeAll, deferred, startServer } from './helpers/server.ts'

// A read-only tool's call may start before the write that marks it running is stored (a crash
// repeats a read), and a crash mid-call runs it again under the same id. Any other tool's call
// starts only once its mark is stored, and never if that write fails.

afterEach(async () => {
  vi.useRealTimers()
  await closeAll()
})

const weatherDef = toolDefinition({
  name: 'get_weather',
  description: 'Reads the weather of a city',
  inputSchema: v.object({ city: v.string() }),
  outputSchema: v.object({ celsius: v.number() }),
  readOnly: true,
})

const payDef = toolDefinition({
  name: 'pay',
  description: 'Pays someone',
  inputSchema: v.object({ to: v.string() }),
  outputSchema: v.object({ receipt: v.string() }),
})

const model = scriptedModel([
  { when: /weather in (\w+) and pay (\w+)/i, call: (m) => [{ tool: 'get_weather', input: { city: m[1] } }, { tool: 'pay', input: { to: m[2] } }], then: () => 'done' },
  { when: /weather in (\w+)/i, call: (m) => ({ tool: 'get_weather', input: { city: m[1] } }), then: () => 'sunny' },
  { when: /pay (\w+)/i, call: (m) => ({ tool: 'pay', input: { to: m[1] } }), then: () => 'paid' },
  { when: /.*/, reply: 'ok' },
])

const marksRunning = (commit: ThreadCommit) => (commit.head.step?.running.length ?? 0) > 0

/**
 * A store whose commits that mark calls running are held (not yet sent to the store) until
 * `release` is called, or fail when `fail` is set; `held` resolves when one is held.
 */
function holdingStore(inner: ThreadStore) {
  let gate = deferred()
  let reached = deferred()
  const state = { fail: false, marks: 0 }
  const store: ThreadStore = {
    ...(inner.events ? { events: inner.events } : {}),
    head: (threadId) => inner.head(threadId),
    messages: (threadId, from, to) => inner.messages(threadId, from, to),
    decisions: (threadId) => inner.decisions(threadId),
    async commit(commit) {
      if (!marksRunning(commit)) return inner.commit(commit)
      state.marks += 1
      reached.resolve()
      await gate.promise
      if (state.fail) throw new StoreError('holdingStore', 'commit', new Error('injected: the mark was not stored'))
      return inner.commit(commit)
    },
  }
  return {
    store,
    state,
    held: () => reached.promise,
    release: () => gate.resolve(),
    rearm: () => {
      gate = deferred()
      reached = deferred()
    },
  }
}

describe('toolDefinition({ readOnly })', () => {
  it('is carried by the definition and the server tool, must be a boolean, and is refused on a browser tool', () => {
    expect(weatherDef.readOnly).toBe(true)
    expect(weatherDef.server(async () => ({ celsius: 1 })).readOnly).toBe(true)
    expect(payDef.readOnly).toBe(false)
    expect(() => toolDefinition({ name: 'x', description: 'x', readOnly: 'yes' as never })).toThrow(/`readOnly` of tool "x" must be a boolean/)
    expect(() => weatherDef.client(async () => ({ celsius: 1 }))).toThrow(ToolDefinitionError)
  })
})

describe('a read-only call and its running mark', () => {
  it('starts while the write that marks it running is not yet stored', async () => {
    const holding = holdingStore(memoryStore())
    const order: string[] = []
    const started = deferred()
    const weather = weatherDef.server(async () => {
      order.push('tool started')
      started.resolve()
      return { celsius: 21 }
    })
    // The mark is held until the tool started (or, without read-only calls starting early, for a
    // while: the test then fails on the order rather than hanging).
    void holding.held().then(async () => {
      const fallback = setTimeout(() => started.resolve(), 2000)
      await started.promise
      clearTimeout(fallback)
      order.push('mark released')
      holding.release()
    })
    const server = await startServer({ model, tools: [weather, payDef.server(async () => ({ receipt: 'r' }))], store: holding.store })
    const turn = await server.send('weather in Lima and pay Ann')
    expect(turn.status).toBe(200)
    expect(order).toEqual(['tool started', 'mark released'])
    expect(turn.results.map((r) => r.metadata.status)).toEqual(['success', 'success'])
    expect(turn.text).toContain('done')
  })

  it('a step of read-only calls alone writes no running mark', async () => {
    const holding = holdingStore(memoryStore())
    const weather = weatherDef.server(async () => ({ celsius: 21 }))
    const server = await startServer({ model, tools: [weather], store: holding.store })
    void holding.held().then(() => holding.release())
    const turn = await server.send('weather in Lima')
    expect(turn.results.map((r) => r.metadata.status)).toEqual(['success'])
    expect(turn.text).toBe('sunny')
    expect(holding.state.marks).toBe(0)
  })

  it('a call of another tool starts only once its mark is stored', async () => {
    const holding = holdingStore(memoryStore())
    const paid: string[] = []
    const pay = payDef.server(async ({ to }) => (paid.push(to), { receipt: `r-${to}` }))
    const server = await startServer({ model, tools: [weatherDef.server(async () => ({ celsius: 1 })), pay], store: holding.store })
    const turn = server.send('pay Ann')
    await holding.held()
    // The mark is on its way, not stored: the tool has not started.
    await new Promise((resolve) => setImmediate(resolve))
    expect(paid).toEqual([])
    holding.release()
    expect((await turn).results.map((r) => r.metadata.status)).toEqual(['success'])
    expect(paid).toEqual(['Ann'])
  })

  it('a failed mark fails the step: the other call never starts and is not stored as running, the read-only one under way stops', async () => {
    const holding = holdingStore(memoryStore())
    const paid: string[] = []
    const read: string[] = []
    const pay = payDef.server(async ({ to }) => (paid.push(to), { receipt: `r-${to}` }))
    // The read-only call waits until its signal aborts: the run's failed mark must stop it.
    const started = deferred<AbortSignal>()
    const weather = weatherDef.server(async ({ city }, { signal }) => {
      read.push(city)
      started.resolve(signal)
      await new Promise((resolve) => signal.addEventListener('abort', resolve))
      return { celsius: 21 }
    })
    const server = await startServer({ model, tools: [weather, pay], store: holding.store })
    holding.state.fail = true
    void holding.held().then(async () => {
      await started.promise
      holding.release()
    })
    const turn = await server.send('weather in Lima and pay Ann')
    expect(turn.types).toContain('RUN_ERROR')
    expect(read).toEqual(['Lima'])
    expect((await started.promise).aborted).toBe(true)
    expect(paid).toEqual([])
    const { messages, status } = await server.get(turn.threadId)
    expect(status).toBe('idle')
    // Not recorded as running (nor as "may or may not have taken effect"): nothing of the step was stored.
    expect(messages.map((m) => m.role)).toEqual(['user'])
    expect(JSON.stringify(messages)).not.toMatch(/may or may not/)
  })

  it('a failed mark in a step that also delegates to an agent fails the run, and leaves no rejection unobserved in the process', async () => {
    const holding = holdingStore(memoryStore())
    const helper = agentTool({ name: 'helper', description: 'Helps', model: scriptedModel([{ when: /.*/, reply: 'helped' }]), tools: [] })
    const delegating = scriptedModel([
      { when: /weather in (\w+) and help/i, call: (m) => [{ tool: 'get_weather', input: { city: m[1] } }, { tool: 'helper', input: { task: 'help' } }], then: () => 'done' },
    ])
    // The subagents wait for the mark, as the read-only call does not: both learn of its failure at
    // once, and the run, failing on the first, must still observe the other (Node ends a process on
    // a rejection nothing observes, by default).
    const unobserved: unknown[] = []
    const record = (reason: unknown) => void unobserved.push(reason)
    process.on('unhandledRejection', record)
    try {
      const server = await startServer({ model: delegating, tools: [weatherDef.server(async () => ({ celsius: 21 })), helper], store: holding.store })
      holding.state.fail = true
      void holding.held().then(() => holding.release())
      const turn = await server.send('weather in Lima and help')
      expect(turn.types).toContain('RUN_ERROR')
      // Node tells of an unobserved rejection once the task that left it ends.
      await new Promise((resolve) => setImmediate(resolve))
      await new Promise((resolve) => setImmediate(resolve))
      expect(unobserved).toEqual([])
    } finally {
      process.off('unhandledRejection', record)
    }
  })
})

describe('after a crash mid-call', () => {
  it('a read-only call left running runs again under the same toolCallId', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const LEASE_MS = 1000
    const store = memoryStore()
    const keys: string[] = []
    const weather = weatherDef.server(async ({ city }, { toolCallId }) => (keys.push(toolCallId), { celsius: city.length }))
    const server = await startServer({ model, tools: [weather], store, limits: { runLeaseMs: LEASE_MS, toolTimeoutMs: LEASE_MS / 2 } })
    const threadId = (await server.send('hello')).threadId
    const head = (await store.head(threadId))!
    const call = { id: 'call_read', name: 'get_weather', arguments: '{"city":"Lima"}' }
    const now = Date.now()
    expect(
      await store.commit({
        head: {
          ...head,
          version: head.version + 1,
          messageCount: head.messageCount + 1,
          step: { message: { role: 'assistant', id: 'msg_step', content: '', toolCalls: [call] }, results: [], interrupts: [], running: [call.id], steps: 1 },
          activeRun: { runId: 'run_dead', startedAt: now, renewedAt: now, fromMessage: head.messageCount + 1 },
        },
        append: [{ role: 'user', id: 'msg_user', content: 'weather in Lima' }],
      }),
    ).toBe(true)
    vi.setSystemTime(Date.now() + LEASE_MS + 1)
    const turn = await server.send('and now?', threadId)
    expect(turn.status).toBe(200)
    expect(keys).toEqual(['call_read'])
    expect(turn.results.map((r) => [r.toolCallId, r.metadata.status])).toEqual([['call_read', 'success']])
    expect(JSON.stringify((await server.get(threadId)).messages)).not.toMatch(/may or may not/)
  })
})
