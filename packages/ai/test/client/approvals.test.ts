import { describe, expect, it } from 'vitest'
import { toolJsonSchema, validateJsonSchema } from '@toolgate/ai'
import { createChatClient } from '@toolgate/ai/client'
import { createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { callStates, clientOn, inProcess, record, texts, toolCalls, transfer, transferServer, weather, weatherServer } from './helpers.ts'

const model = scriptedModel([
  {
    when: /send (\d+) to (\w+)/i,
    call: (m) => ({ tool: 'transfer_money', input: { to: m[2], amount: Number(m[1]) } }),
    then: ([r]) => (r.ok ? `Sent: ${r.output.receipt}` : `Not sent: ${r.content}`),
  },
  {
    when: /two transfers/i,
    call: () => [
      { tool: 'transfer_money', input: { to: 'Ann', amount: 200 } },
      { tool: 'transfer_money', input: { to: 'Bob', amount: 300 } },
    ],
    then: (results) => results.map((r) => `${(r.input as { to: string }).to}: ${r.status}`).join(', '),
  },
  { when: /hello/i, reply: 'Hi there.' },
], { tools: [transfer] })

const server = { model, tools: [transferServer, weatherServer] }
const tools = [transfer, weather] as const

describe('approvals', () => {
  it('asks with the policy reason, then runs the call once approved', async () => {
    const client = clientOn(server, { tools })
    const states = record(client)
    await client.send('send 500 to Bob')

    const asked = client.getSnapshot()
    expect(asked.status).toBe('awaiting-approval')
    expect(asked.pendingApprovals).toEqual([
      expect.objectContaining({
        toolName: 'transfer_money',
        state: 'approval-requested',
        input: { to: 'Bob', amount: 500 },
        approval: { reason: 'Sends 500 EUR to Bob', inputSchema: toolJsonSchema(transfer), grantable: true },
      }),
    ])
    const [call] = toolCalls(asked)
    expect(asked.pendingApprovals[0]).toBe(call) // the same object as in messages

    await client.approve(call!.toolCallId)
    const done = client.getSnapshot()
    expect(done.status).toBe('idle')
    expect(done.pendingApprovals).toEqual([])
    expect(toolCalls(done)[0]).toMatchObject({ state: 'output-available', output: { receipt: '500-Bob' }, approval: { approved: true } })
    expect(texts(done).at(-1)).toBe('assistant: Sent: 500-Bob')
    expect(callStates(states, call!.toolCallId)).toEqual([
      'input-streaming',
      'input-available',
      'approval-requested',
      'executing',
      'output-available',
    ])
    expect(states.map((state) => state.status)).toContain('streaming')
  })

  it("hands the UI the tool's input schema, so edits can be checked before they are sent", async () => {
    const client = clientOn(server, { tools })
    await client.send('send 500 to Bob')
    const { inputSchema } = client.getSnapshot().pendingApprovals[0]!.approval!
    expect(inputSchema).toEqual(toolJsonSchema(transfer))
    expect(validateJsonSchema(inputSchema!, { to: 'Ann', amount: 10 })).toEqual([])
    expect(validateJsonSchema(inputSchema!, { to: 'Ann', amount: 'ten' })).not.toEqual([])
  })

  it('sends one answer per call: a double click, or approve then deny, before the first answer is back', async () => {
    const handler = createChatHandler(server)
    const resumes: unknown[] = []
    const fetch = inProcess(handler)
    const client = createChatClient({
      endpoint: '/api/chat',
      fetch: (input, init) => {
        const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { resume?: unknown }) : {}
        if (body.resume) resumes.push(body.resume)
        return fetch(input, init)
      },
      scheduleNotify: (flush) => flush(),
      tools,
    })
    await client.send('send 500 to Bob')
    const { toolCallId } = client.getSnapshot().pendingApprovals[0]!
    await Promise.all([client.approve(toolCallId), client.approve(toolCallId), client.deny(toolCallId, 'changed my mind')])
    expect(resumes).toEqual([[{ interruptId: expect.any(String), approved: true }]])
    const done = client.getSnapshot()
    expect(done.error).toBeUndefined()
    expect(toolCalls(done)[0]).toMatchObject({ state: 'output-available', output: { receipt: '500-Bob' } })
  })

  it('denies with a reason the model reads', async () => {
    const client = clientOn(server, { tools })
    await client.send('send 500 to Bob')
    const id = client.getSnapshot().pendingApprovals[0]!.toolCallId
    await client.deny(id, 'too much')
    const state = client.getSnapshot()
    expect(toolCalls(state)[0]).toMatchObject({ state: 'denied', approval: { approved: false, denyReason: 'too much', reason: 'Sends 500 EUR to Bob' } })
    expect(texts(state).at(-1)).toBe('assistant: Not sent: denied by the user: too much')
    expect(state.status).toBe('idle')
  })

  it('runs the call with the arguments the user edited', async () => {
    const client = clientOn(server, { tools })
    await client.send('send 500 to Bob')
    const id = client.getSnapshot().pendingApprovals[0]!.toolCallId
    await client.approve(id, { editedArgs: { to: 'Bob', amount: 50 } })
    const state = client.getSnapshot()
    // The result text is not the bare output; the client reads the stored thread to tell it is one.
    expect(toolCalls(state)[0]).toMatchObject({ state: 'output-available', input: { to: 'Bob', amount: 50 }, output: { receipt: '50-Bob' } })
    expect(texts(state).at(-1)).toBe('assistant: Sent: 50-Bob')
  })

  it('lets the user answer again when the server refuses edited arguments', async () => {
    const errors: unknown[] = []
    const client = clientOn(server, { tools, onError: (error) => errors.push(error) })
    await client.send('send 500 to Bob')
    const id = client.getSnapshot().pendingApprovals[0]!.toolCallId

    await client.approve(id, { editedArgs: { to: 'Bob', amount: 0 } })
    const refused = client.getSnapshot()
    expect(refused.status).toBe('error')
    expect(refused.error).toMatchObject({ code: 'INVALID_EDITED_ARGS', status: 422, path: 'resume[0].editedArgs.amount' })
    expect(refused.error?.message).toMatch(/amount/)
    expect(errors).toEqual([refused.error])
    expect(refused.pendingApprovals).toEqual([expect.objectContaining({ toolCallId: id, input: { to: 'Bob', amount: 500 } })])

    await client.approve(id)
    expect(client.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
    expect(toolCalls(client.getSnapshot())[0]).toMatchObject({ state: 'output-available' })
  })

  it('resumes once, when the last of several approvals is answered', async () => {
    const client = clientOn(server, { tools })
    await client.send('two transfers please')
    const [ann, bob] = client.getSnapshot().pendingApprovals
    expect(client.getSnapshot().pendingApprovals).toHaveLength(2)

    await client.approve(ann!.toolCallId)
    const halfway = client.getSnapshot()
    expect(halfway.status).toBe('awaiting-approval')
    expect(halfway.pendingApprovals.map((part) => part.toolCallId)).toEqual([bob!.toolCallId])
    expect(toolCalls(halfway)[0]).toMatchObject({ state: 'executing', approval: { approved: true } })

    await client.deny(bob!.toolCallId)
    const state = client.getSnapshot()
    expect(texts(state).at(-1)).toBe('assistant: Ann: success, Bob: denied')
    expect(toolCalls(state).map((part) => part.state)).toEqual(['output-available', 'denied'])
  })

  it('a reloaded client shows the answers the server holds for a half-answered batch, and asks only the rest', async () => {
    const handler = createChatHandler(server)
    const open = () => createChatClient({ endpoint: '/api/chat', fetch: inProcess(handler), scheduleNotify: (flush) => flush(), tools })
    const first = open()
    await first.send('two transfers please')
    const [ann, bob] = first.getSnapshot().pendingApprovals
    await first.deny(ann!.toolCallId, 'not Ann')

    const reloaded = open()
    await reloaded.load(first.getSnapshot().threadId)
    const shown = reloaded.getSnapshot()
    expect(shown.status).toBe('awaiting-approval')
    expect(toolCalls(shown)[0]).toMatchObject({
      toolCallId: ann!.toolCallId,
      state: 'denied',
      approval: { approved: false, denyReason: 'not Ann' },
      decision: { decision: 'denied', reason: 'not Ann', channel: 'chat' },
    })
    expect(shown.pendingApprovals.map((part) => part.toolCallId)).toEqual([bob!.toolCallId])

    await reloaded.approve(bob!.toolCallId)
    expect(texts(reloaded.getSnapshot()).at(-1)).toBe('assistant: Ann: denied, Bob: success')
    expect(toolCalls(reloaded.getSnapshot()).map((part) => part.state)).toEqual(['denied', 'output-available'])
  })

  it('a reloaded client shows an approval the server holds as approved, with the edited arguments', async () => {
    const handler = createChatHandler(server)
    const open = () => createChatClient({ endpoint: '/api/chat', fetch: inProcess(handler), scheduleNotify: (flush) => flush(), tools })
    const first = open()
    await first.send('two transfers please')
    const [ann] = first.getSnapshot().pendingApprovals
    await first.approve(ann!.toolCallId, { editedArgs: { to: 'Ann', amount: 20 } })

    const reloaded = open()
    await reloaded.load(first.getSnapshot().threadId)
    expect(toolCalls(reloaded.getSnapshot())[0]).toMatchObject({ state: 'executing', input: { to: 'Ann', amount: 20 }, approval: { approved: true } })
    expect(reloaded.getSnapshot().pendingApprovals).toHaveLength(1)
  })

  it('ignores answers for calls that are not waiting', async () => {
    const client = clientOn(server, { tools })
    await client.send('send 500 to Bob')
    const id = client.getSnapshot().pendingApprovals[0]!.toolCallId
    await client.approve('no-such-call')
    await client.deny(id)
    const before = client.getSnapshot()
    await client.approve(id)
    await client.deny(id)
    expect(client.getSnapshot()).toBe(before)
  })

  it('lets the user send a message instead; the server cancels what was pending', async () => {
    const client = clientOn(server, { tools })
    await client.send('two transfers please')
    const [ann] = client.getSnapshot().pendingApprovals
    await client.approve(ann!.toolCallId) // stored on the server, but the batch is incomplete

    await client.send('hello')
    const state = client.getSnapshot()
    expect(state.status).toBe('idle')
    expect(state.pendingApprovals).toEqual([])
    expect(toolCalls(state).map((part) => part.state)).toEqual(['cancelled', 'cancelled'])
    expect(texts(state).at(-1)).toBe('assistant: Hi there.')
  })
})
