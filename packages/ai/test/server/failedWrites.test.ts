import * as v from 'valibot'
import { afterEach, describe, expect, it } from 'vitest'
import { toolDefinition } from '@toolgate/ai'
import { memoryStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { faultyStore } from './faultyStore.ts'
import { stored } from './helpers/store.ts'
import { closeAll, startServer } from './helpers/server.ts'

// A store write that fails after a tool ran must not make the tool run again: the call is
// recorded as ran (the run's failure path stores what it has), and a call whose outcome is
// unknown is reported as interrupted, never re-run unless the tool is `idempotent`.

afterEach(closeAll)

const payDef = toolDefinition({
  name: 'pay',
  description: 'Pays someone; not idempotent',
  inputSchema: v.object({ to: v.string() }),
  outputSchema: v.object({ receipt: v.string() }),
  needsApproval: true,
})

const model = scriptedModel([
  { when: /pay (\w+)/i, call: (m) => ({ tool: 'pay', input: { to: m[1] } }), then: () => 'paid' },
  { when: /.*/, reply: 'ok' },
])

describe('a failed write after a tool ran', () => {
  it('records the call as ran: a new message does not run it again, and the history holds it once', async () => {
    const store = faultyStore(memoryStore())
    const paid: string[] = []
    const pay = payDef.server(async ({ to }) => (paid.push(to), { receipt: `r-${to}` }))
    const server = await startServer({ model, tools: [pay], store })
    const first = await server.send('pay Ann')
    expect(first.interrupts).toHaveLength(1)
    // The commit that stores the executed call's result (the step joins the history) fails once.
    store.failNext(1, (commit) => commit.append.some((message) => message.role === 'tool'))
    const approved = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: true }])
    expect(approved.types).toContain('RUN_ERROR')
    expect(paid).toEqual(['Ann'])

    const next = await server.send('hello', first.threadId)
    expect(next.finished).toBeDefined()
    expect(paid).toEqual(['Ann'])
    const thread = (await stored(store, first.threadId))!
    expect(thread.head.step).toBeUndefined()
    const calls = thread.messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls.map((call) => call.id) : []))
    const results = thread.messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : []))
    expect(calls).toHaveLength(1)
    expect(results).toEqual(calls)
  })

  it('reports a call whose outcome is unknown as interrupted when even the release fails', async () => {
    const store = faultyStore(memoryStore())
    const paid: string[] = []
    const pay = payDef.server(async ({ to }) => (paid.push(to), { receipt: `r-${to}` }))
    const server = await startServer({ model, tools: [pay], store, limits: { runLeaseMs: 300, toolTimeoutMs: 200 } })
    const first = await server.send('pay Bob')
    // Every write after the call started fails (storing its result, letting the thread go): the
    // step stays open with the call running until the lease lapses.
    store.failNext(1000, (commit) => commit.head.activeRun === undefined || commit.append.some((message) => message.role === 'tool'))
    const approved = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: true }])
    expect(approved.types).toContain('RUN_ERROR')
    store.failNext(0)
    expect(paid).toEqual(['Bob'])
    await new Promise((resolve) => setTimeout(resolve, 400)) // the dead run's lease lapses
    const next = await server.send('hello', first.threadId)
    expect(paid).toEqual(['Bob'])
    expect(next.results.map((result) => result.content)).toEqual([expect.stringMatching(/may or may not have taken effect/)])
    const thread = (await stored(store, first.threadId))!
    const calls = thread.messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls.map((call) => call.id) : []))
    expect(calls).toHaveLength(1)
  })
})
