import { afterEach, describe, expect, it, vi } from 'vitest'
import { toolJsonSchema } from '@toolgate/ai'
import { scriptedModel, type ScriptedResult } from '@toolgate/ai/server/testing'
import { type ThreadSnapshot } from '@toolgate/ai/protocol'
import { transferDef, weatherTool } from './fixtures.ts'
import { closeAll, errorOf, startServer } from './helpers/server.ts'

afterEach(closeAll)

function describeTransfer(r: ScriptedResult<[typeof transferDef]>): string {
  if (r.status === 'denied') return `I did not send it: you said "${r.reason ?? 'no reason'}".`
  if (r.status === 'error') return `It failed: ${r.content}`
  if (r.status === 'expired' || r.status === 'cancelled') return `I did not send it: ${r.content}`
  return `Sent ${r.input.amount} EUR to ${r.input.to}${r.edited ? ' (as you edited it)' : ''}, receipt ${r.output.receipt}.`
}

const model = scriptedModel([
  {
    when: /send (\d+) to (\w+)/i,
    call: (m) => ({ tool: 'transfer_money', input: { to: m[2], amount: Number(m[1]) } }),
    then: ([r]) => describeTransfer(r),
  },
  {
    when: /two transfers/i,
    call: () => [
      { tool: 'transfer_money', input: { to: 'Bob', amount: 200 } },
      { tool: 'transfer_money', input: { to: 'Eve', amount: 300 } },
    ],
    then: (results) => results.map(describeTransfer).join(' '),
  },
], { tools: [transferDef] })

function setup(limits?: { maxReasonLength?: number }) {
  const ran: unknown[] = []
  const tool = transferDef.server(async (input) => {
    ran.push(input)
    return { receipt: `r-${input.to}-${input.amount}` }
  })
  return { ran, start: () => startServer({ model, tools: [tool, weatherTool], ...(limits ? { limits } : {}) }) }
}

describe('approvals', () => {
  it('pauses with a tool_approval interrupt and runs the call once approved', async () => {
    const { ran, start } = setup()
    const server = await start()
    const first = await server.send('send 250 to Bob')

    expect(first.finished?.outcome.type).toBe('interrupt')
    const [interrupt] = first.interrupts
    expect(interrupt).toEqual({
      id: expect.stringMatching(/^int_[\w-]{22}$/),
      reason: 'tool_approval',
      toolCallId: expect.any(String),
      toolName: 'transfer_money',
      input: { to: 'Bob', amount: 250 },
      message: 'Sends 250 EUR to Bob',
      metadata: { kind: 'tool_call', toolName: 'transfer_money', input: { to: 'Bob', amount: 250 }, reason: 'Sends 250 EUR to Bob', grantable: true },
      responseSchema: {
        type: 'object',
        properties: { approved: { type: 'boolean' }, editedArgs: { $ref: '#/$defs/input' }, reason: { type: 'string' } },
        required: ['approved'],
        additionalProperties: false,
        $defs: { input: { ...toolJsonSchema(transferDef), $id: 'urn:toolgate:tool-input' } },
      },
    })
    expect(ran).toEqual([])
    const waiting = await server.get(first.threadId)
    expect(waiting).toMatchObject({ status: 'interrupted', interrupts: [interrupt] })

    const second = await server.resume(first.threadId, [{ interruptId: interrupt!.id, approved: true }])
    expect(second.status).toBe(200)
    expect(second.threadId).toBe(first.threadId)
    expect(second.types.slice(0, 2)).toEqual(['RUN_STARTED', 'TOOL_CALL_RESULT'])
    expect(second.results[0]).toMatchObject({ toolCallId: interrupt!.toolCallId, content: '{"receipt":"r-Bob-250"}' })
    expect(second.text).toBe('Sent 250 EUR to Bob, receipt r-Bob-250.')
    expect(ran).toEqual([{ to: 'Bob', amount: 250 }])
    expect(await server.get(first.threadId)).toMatchObject({ status: 'idle', interrupts: [] })
  })

  it('runs a call that needs no approval at once', async () => {
    const { ran, start } = setup()
    const server = await start()
    const turn = await server.send('send 20 to Bob')
    expect(turn.finished?.outcome).toEqual({ type: 'success' })
    expect(ran).toEqual([{ to: 'Bob', amount: 20 }])
  })

  it('runs edited arguments, puts them in history and tells the model', async () => {
    const { ran, start } = setup()
    const server = await start()
    const first = await server.send('send 250 to Bob')
    const edited = { to: 'Alice', amount: 120 }
    const second = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: true, editedArgs: edited }])

    expect(ran).toEqual([edited])
    expect(second.text).toBe('Sent 120 EUR to Alice (as you edited it), receipt r-Alice-120.')
    expect(second.results[0]!.content).toBe(
      'The user edited the arguments before approving; the call ran with {"to":"Alice","amount":120}.\nResult: {"receipt":"r-Alice-120"}',
    )
    const { messages } = await server.get(first.threadId)
    const call = messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []))[0]
    expect(JSON.parse(call!.arguments)).toEqual(edited)
    expect(messages.find((m) => m.role === 'tool')).toMatchObject({ status: 'success', edited: true })
  })

  it('refuses edited arguments that fail the input schema, changing nothing', async () => {
    const { ran, start } = setup()
    const server = await start()
    const first = await server.send('send 250 to Bob')
    const interruptId = first.interrupts[0]!.id
    const before = await server.get(first.threadId)

    const refused = await server.post({ threadId: first.threadId, resume: [{ interruptId, approved: true, editedArgs: { to: 'Bob', amount: 0 } }] })
    expect(await errorOf(refused)).toEqual({
      status: 422,
      error: { code: 'INVALID_EDITED_ARGS', message: expect.stringMatching(/- amount: /), path: 'resume[0].editedArgs.amount' },
    })
    expect(await server.get(first.threadId)).toEqual(before)

    const approved = await server.resume(first.threadId, [{ interruptId, approved: true }])
    expect(approved.finished?.outcome).toEqual({ type: 'success' })
    expect(ran).toHaveLength(1)
  })

  it('returns a denial with its reason to the model and does not run the call', async () => {
    const { ran, start } = setup()
    const server = await start()
    const first = await server.send('send 250 to Bob')
    const second = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: false, reason: 'Bob already got paid' }])

    expect(ran).toEqual([])
    expect(second.results[0]!.content).toBe('denied by the user: Bob already got paid')
    expect(second.text).toBe('I did not send it: you said "Bob already got paid".')
    expect((await server.get(first.threadId)).messages.find((m) => m.role === 'tool')).toMatchObject({ status: 'denied', reason: 'Bob already got paid' })
  })

  it('caps the length of a deny reason', async () => {
    const { start } = setup({ maxReasonLength: 10 })
    const server = await start()
    const first = await server.send('send 250 to Bob')
    const second = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: false, reason: 'x'.repeat(5000) }])
    expect(second.results[0]!.content).toBe(`denied by the user: ${'x'.repeat(10)}…`)
  })

  it('stores partial answers and resumes when the batch is complete', async () => {
    const { ran, start } = setup()
    const server = await start()
    const first = await server.send('two transfers please')
    expect(first.interrupts).toHaveLength(2)
    const [bob, eve] = first.interrupts

    const partial = await server.resume(first.threadId, [{ interruptId: bob!.id, approved: true }])
    expect(partial.status).toBe(202)
    expect(partial.body).toEqual({ threadId: first.threadId, interrupts: [eve] })
    expect(ran).toEqual([])
    expect((await server.get(first.threadId)).interrupts).toEqual([eve])

    const last = await server.resume(first.threadId, [{ interruptId: eve!.id, approved: false, reason: 'not Eve' }])
    expect(last.status).toBe(200)
    expect(ran).toEqual([{ to: 'Bob', amount: 200 }])
    expect(last.text).toBe('Sent 200 EUR to Bob, receipt r-Bob-200. I did not send it: you said "not Eve".')
  })

  it('shows the answers it holds for a half-answered batch in the thread, with who decided, until the batch settles', async () => {
    const { ran, start } = setup()
    const server = await start()
    const first = await server.send('two transfers please')
    const [bob, eve] = first.interrupts

    await server.resume(first.threadId, [{ interruptId: bob!.id, approved: false, reason: 'not Bob' }])
    const thread = await server.get(first.threadId)
    expect(thread.status).toBe('interrupted')
    expect(thread.interrupts).toEqual([eve])
    expect(thread.answers).toEqual([
      {
        interruptId: bob!.id,
        toolCallId: bob!.toolCallId,
        approved: false,
        reason: 'not Bob',
        decision: { decision: 'denied', by: { id: 'anonymous' }, at: expect.any(String), channel: 'chat', reason: 'not Bob' },
      },
    ])
    // The call has no result yet: it joins the history with its batch.
    expect(thread.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    // A page that ends with the open step shows them too; one before it does not.
    const page = async (query: string) => ((await (await fetch(`${server.url}?threadId=${first.threadId}&${query}`)).json()) as ThreadSnapshot).answers
    expect(await page('limit=1')).toEqual(thread.answers)
    expect(await page('before=0')).toBeUndefined()

    await server.resume(first.threadId, [{ interruptId: eve!.id, approved: true, editedArgs: { to: 'Eve', amount: 30 } }])
    expect(ran).toEqual([{ to: 'Eve', amount: 30 }])
    const settled = await server.get(first.threadId)
    expect(settled.answers).toBeUndefined()
    expect(settled.messages.filter((m) => m.role === 'tool').map((m) => m.status)).toEqual(['denied', 'success'])
  })

  it('shows an approval with edited arguments it holds as given, and who edited', async () => {
    const { start } = setup()
    const server = await start()
    const first = await server.send('two transfers please')
    const [bob] = first.interrupts
    await server.resume(first.threadId, [{ interruptId: bob!.id, approved: true, editedArgs: { to: 'Bob', amount: 150 } }])
    expect((await server.get(first.threadId)).answers).toEqual([
      {
        interruptId: bob!.id,
        toolCallId: bob!.toolCallId,
        approved: true,
        editedArgs: { to: 'Bob', amount: 150 },
        decision: expect.objectContaining({ decision: 'edited', editedFields: ['amount'], channel: 'chat' }),
      },
    ])
  })

  it('cancels pending approvals when the user sends a new message instead (no one said no)', async () => {
    const { ran, start } = setup()
    const server = await start()
    const first = await server.send('send 250 to Bob')
    const interrupt = first.interrupts[0]!

    const next = await server.send('send 30 to Carol', first.threadId)
    expect(next.status).toBe(200)
    expect(next.types.slice(0, 2)).toEqual(['RUN_STARTED', 'TOOL_CALL_RESULT'])
    expect(next.results[0]).toMatchObject({ toolCallId: interrupt.toolCallId, content: 'The request was cancelled before anyone decided (the user sent a new message instead); the tool did not run.', metadata: { status: 'cancelled' } })
    expect(next.text).toBe('Sent 30 EUR to Carol, receipt r-Carol-30.')
    expect(ran).toEqual([{ to: 'Carol', amount: 30 }])

    const { messages, status } = await server.get(first.threadId)
    expect(status).toBe('idle')
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant', 'tool', 'assistant'])

    const late = await server.post({ threadId: first.threadId, resume: [{ interruptId: interrupt.id, approved: true }] })
    expect((await errorOf(late)).error.code).toBe('INTERRUPT_ALREADY_ANSWERED')
    expect(ran).toHaveLength(1)
  })
})

describe('interrupts that expire (limits.interruptTtlMs)', () => {
  afterEach(() => vi.useRealTimers())

  it('carry expiresAt, refuse a late answer with 410 and apply nothing; the first reader past expiresAt sees them expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date('2026-11-23T10:00:00.000Z'))
    const sent: unknown[] = []
    const server = await startServer({ model, tools: [transferDef.server((input) => (sent.push(input), { receipt: 'r1' }))], limits: { interruptTtlMs: 60_000 } })
    const paused = await server.send('send 500 to Bob')
    const [interrupt] = paused.interrupts
    expect(interrupt!.expiresAt).toBe('2026-11-23T10:01:00.000Z')
    expect((await server.get(paused.threadId)).interrupts[0]!.expiresAt).toBe('2026-11-23T10:01:00.000Z')

    vi.setSystemTime(new Date('2026-11-23T10:01:00.001Z'))
    const late = await server.post({ threadId: paused.threadId, resume: [{ interruptId: interrupt!.id, approved: true }] })
    expect(await errorOf(late)).toMatchObject({ status: 410, error: { code: 'INTERRUPT_EXPIRED', path: 'resume[0].interruptId' } })
    expect(sent).toEqual([])
    // Only the clock moved (this instance's timer waits the real minute): reading the thread settles it.
    const read = await server.get(paused.threadId)
    expect(read).toMatchObject({ status: 'idle', interrupts: [] })
    expect(read.messages.filter((m) => m.role === 'tool')).toEqual([
      expect.objectContaining({ toolCallId: interrupt!.toolCallId, status: 'expired', content: 'The approval request expired before anyone answered; the tool did not run.' }),
    ])
    const again = await server.post({ threadId: paused.threadId, resume: [{ interruptId: interrupt!.id, approved: true }] })
    expect(await errorOf(again)).toMatchObject({ status: 410, error: { code: 'INTERRUPT_EXPIRED', path: 'resume[0].interruptId' } })

    const next = await server.send('send 5 to Eve', paused.threadId)
    expect(next.finished?.outcome).toEqual({ type: 'success' })
    expect(sent).toEqual([{ to: 'Eve', amount: 5 }]) // the expired transfer to Bob never ran
  })

  it('do not expire by default', async () => {
    const server = await startServer({ model, tools: [transferDef.server(() => ({ receipt: 'r' }))] })
    const paused = await server.send('send 200 to Bob')
    expect(paused.interrupts[0]).not.toHaveProperty('expiresAt')
  })
})
