import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { type ChatHandlerOptions, createChatHandler, toNodeHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import type { DecisionRecord, Principal } from '@toolgate/ai/protocol'
import { transferDef, weatherTool } from './fixtures.ts'
import { closeAll, closeServer, errorOf, readTurn } from './helpers/server.ts'

afterEach(closeAll)

const model = scriptedModel(
  [{ when: /send (\d+) to (\w+)/i, call: (m) => ({ tool: 'transfer_money', input: { to: m[2], amount: Number(m[1]) } }), then: ([r]) => `${r.status}` }],
  { tools: [transferDef] },
)

/** The app's auth: a session header the test sets, read by `identify` (never the body). */
const PEOPLE: Record<string, Principal> = { alice: { id: 'alice', name: 'Alice' }, bob: { id: 'bob', name: 'Bob', roles: ['finance'] } }
const identify = (request: Request) => PEOPLE[request.headers.get('x-session') ?? '']

async function serve(options: Partial<ChatHandlerOptions<any>> = {}) {
  const ran: unknown[] = []
  const recorded: DecisionRecord[] = []
  const tool = transferDef.server(async (input) => (ran.push(input), { receipt: `r-${input.to}` }))
  const handler = createChatHandler({ model, tools: [tool, weatherTool], identify, onDecision: (record) => void recorded.push(record), ...options })
  const server = createServer(toNodeHandler(handler))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`
  const post = (body: unknown, as?: string) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(as ? { 'x-session': as } : {}) }, body: JSON.stringify(body) })
  const get = (query: string, as?: string) => fetch(`${url}?${query}`, { headers: as ? { 'x-session': as } : {} })
  return { handler, ran, recorded, post, get, close: () => closeServer(server) }
}

describe('decision records', () => {
  it('records who approved, with digests of the arguments shown and run, chained; readable over HTTP and from the handler', async () => {
    const app = await serve()
    const first = await readTurn(await app.post({ message: 'send 250 to Bob' }, 'alice'))
    const [interrupt] = first.interrupts
    const edited = await readTurn(await app.post({ threadId: first.threadId, resume: [{ interruptId: interrupt!.id, approved: true, editedArgs: { to: 'Bob', amount: 200 } }] }, 'alice'))
    expect(app.ran).toEqual([{ to: 'Bob', amount: 200 }])

    const result = edited.results[0]!
    expect(result.metadata.decision).toEqual({ decision: 'edited', by: { id: 'alice', name: 'Alice' }, at: expect.any(String), channel: 'chat', editedFields: ['amount'] })

    const response = await app.get(`threadId=${first.threadId}&decisions`, 'alice')
    expect(response.status).toBe(200)
    const { decisions } = (await response.json()) as { decisions: DecisionRecord[] }
    expect(decisions).toEqual([
      {
        seq: 0,
        threadId: first.threadId,
        interruptId: interrupt!.id,
        toolCallId: interrupt!.toolCallId,
        toolName: 'transfer_money',
        decision: 'edited',
        by: { id: 'alice', name: 'Alice' },
        at: result.metadata.decision!.at,
        channel: 'chat',
        shownArgs: { to: 'Bob', amount: 250 },
        shownDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        ranArgs: { to: 'Bob', amount: 200 },
        ranDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        editedFields: ['amount'],
        args: { to: 'Bob', amount: 200 },
        argsDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        previous: null,
        digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      },
    ])
    expect(decisions[0]!.shownDigest).not.toBe(decisions[0]!.ranDigest)
    expect(decisions[0]!.argsDigest).toBe(decisions[0]!.ranDigest)
    expect(await app.handler.decisions(first.threadId)).toEqual(decisions)
    expect(app.recorded).toEqual(decisions)

    // The next decision links to this one; a reload shows the decision on the result.
    const again = await readTurn(await app.post({ threadId: first.threadId, message: 'send 300 to Eve' }, 'alice'))
    await readTurn(await app.post({ threadId: first.threadId, resume: [{ interruptId: again.interrupts[0]!.id, approved: false, reason: 'not Eve' }] }, 'alice'))
    const chain = await app.handler.decisions(first.threadId)
    expect(chain.map((record) => [record.seq, record.decision, record.reason, record.previous])).toEqual([
      [0, 'edited', undefined, null],
      [1, 'denied', 'not Eve', decisions[0]!.digest],
    ])
    expect(chain[1]!.ranArgs).toBeUndefined()
    expect(chain[1]!.args).toEqual(chain[1]!.shownArgs)
    const snapshot = (await (await app.get(`threadId=${first.threadId}`, 'alice')).json()) as { messages: { role: string; decision?: { decision: string } }[] }
    expect(snapshot.messages.filter((m) => m.role === 'tool').map((m) => m.decision?.decision)).toEqual(['edited', 'denied'])
  })

  it('attributes a request without a recognised identity to the anonymous principal, and refuses an identify that returns garbage', async () => {
    const app = await serve()
    const first = await readTurn(await app.post({ message: 'send 150 to Bob' }))
    await readTurn(await app.post({ threadId: first.threadId, resume: [{ interruptId: first.interrupts[0]!.id, approved: true }] }))
    expect((await app.handler.decisions(first.threadId))[0]!.by).toEqual({ id: 'anonymous' })

    const broken = await serve({ identify: () => ({ id: 42 }) as never })
    const refused = await errorOf(await broken.post({ message: 'send 150 to Bob' }, 'alice'))
    expect(refused).toEqual({ status: 500, error: { code: 'INTERNAL', message: 'The chat handler failed; see the server log' } })
  })

  it('never takes the principal from the body', async () => {
    const app = await serve()
    const first = await readTurn(await app.post({ message: 'send 150 to Bob' }, 'alice'))
    const forged = await app.post({ threadId: first.threadId, resume: [{ interruptId: first.interrupts[0]!.id, approved: true }], principal: { id: 'bob' }, by: { id: 'bob' } }, 'alice')
    await readTurn(forged)
    expect((await app.handler.decisions(first.threadId)).map((record) => record.by)).toEqual([{ id: 'alice', name: 'Alice' }])
  })
})

describe('honest outcomes', () => {
  it('an approval no one answered in time is `expired` when due, not denied: the model reads the truth and the record says so', async () => {
    const requests: { readonly messages: unknown }[] = []
    const app = await serve({ limits: { interruptTtlMs: 50 }, middleware: [{ modelRequest: (call) => void requests.push(call) }] })
    const first = await readTurn(await app.post({ message: 'send 250 to Bob' }, 'alice'))
    // Nobody reads or writes: the instance that asked settles it when due (its timer), in the store.
    for (let i = 0; i < 200 && (await app.handler.decisions(first.threadId)).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    const late = await errorOf(await app.post({ threadId: first.threadId, resume: [{ interruptId: first.interrupts[0]!.id, approved: true }] }, 'alice'))
    expect(late.error.code).toBe('INTERRUPT_EXPIRED')
    const snapshot = (await (await app.get(`threadId=${first.threadId}`, 'alice')).json()) as { status: string; messages: { role: string; status?: string; decision?: { decision: string } }[] }
    expect(snapshot.status).toBe('idle')
    expect(snapshot.messages.filter((m) => m.role === 'tool').map((m) => [m.status, m.decision?.decision])).toEqual([['expired', 'expired']])
    await readTurn(await app.post({ threadId: first.threadId, message: 'hello' }, 'alice'))
    expect(JSON.stringify(requests.at(-1)!.messages)).toContain('The approval request expired before anyone answered; the tool did not run.')
    expect(app.ran).toEqual([])
    const [record] = await app.handler.decisions(first.threadId)
    expect(record).toMatchObject({ decision: 'expired', by: { id: 'system' }, interruptId: first.interrupts[0]!.id, shownArgs: { to: 'Bob', amount: 250 } })
    expect(record!.ranArgs).toBeUndefined()
  })

  it('a stop while an approval waits cancels it: `cancelled` on the wire, in the thread and in the record, by whoever stopped', async () => {
    const app = await serve()
    const first = await readTurn(await app.post({ message: 'send 250 to Bob' }, 'alice'))
    const stopped = await app.post({ threadId: first.threadId, stop: true }, 'alice')
    expect(await stopped.json()).toEqual({ threadId: first.threadId, stopped: false, cancelled: [first.interrupts[0]!.id] })
    const snapshot = (await (await app.get(`threadId=${first.threadId}`, 'alice')).json()) as { status: string; interrupts: unknown[]; messages: { role: string; status?: string; content: string }[] }
    expect(snapshot.status).toBe('idle')
    expect(snapshot.interrupts).toEqual([])
    expect(snapshot.messages.filter((m) => m.role === 'tool').map((m) => [m.status, m.content])).toEqual([['cancelled', 'The request was cancelled before anyone decided; the tool did not run.']])
    expect((await app.handler.decisions(first.threadId)).map((r) => [r.decision, r.by.id])).toEqual([['cancelled', 'alice']])
    // The answer comes too late, and changes nothing.
    expect((await errorOf(await app.post({ threadId: first.threadId, resume: [{ interruptId: first.interrupts[0]!.id, approved: true }] }, 'alice'))).error.code).toBe('INTERRUPT_ALREADY_ANSWERED')
    expect(app.ran).toEqual([])
    // A second stop finds nothing to cancel.
    expect(await (await app.post({ threadId: first.threadId, stop: true }, 'alice')).json()).toEqual({ threadId: first.threadId, stopped: false })
  })

  it('a new message over a waiting approval records it as cancelled by the sender, and the model, the wire and the record all say so', async () => {
    const app = await serve()
    const first = await readTurn(await app.post({ message: 'send 250 to Bob' }, 'alice'))
    const next = await readTurn(await app.post({ threadId: first.threadId, message: 'never mind' }, 'alice'))
    expect(next.results.map((result) => [result.metadata.status, result.content])).toEqual([['cancelled', 'The request was cancelled before anyone decided (the user sent a new message instead); the tool did not run.']])
    // The stored result carries its record: the UI part shows who moved on, and why.
    const snapshot = (await (await app.get(`threadId=${first.threadId}`, 'alice')).json()) as { messages: { role: string }[] }
    const stored = snapshot.messages.find((m) => m.role === 'tool')
    expect(stored).toMatchObject({ status: 'cancelled', reason: 'the user sent a new message instead', decision: { decision: 'cancelled', by: { id: 'alice' }, reason: 'the user sent a new message instead' } })
    expect((await app.handler.decisions(first.threadId)).map((r) => [r.decision, r.by.id, r.reason])).toEqual([['cancelled', 'alice', 'the user sent a new message instead']])
  })
})
