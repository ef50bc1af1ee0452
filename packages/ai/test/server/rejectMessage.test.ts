import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, ToolDefinitionError } from '@toolgate/ai'
import { type ChatModel, type ModelRequest } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { closeAll, startServer } from './helpers/server.ts'

afterEach(closeAll)

const refund = toolDefinition({
  name: 'refund_order',
  description: 'Refunds an order',
  inputSchema: v.object({ orderId: v.string() }),
  needsApproval: true,
  rejectMessage: ({ input }) => `The user declined to refund order ${input.orderId}. Do not try again; ask what they want instead.`,
})

const cancel = toolDefinition({
  name: 'cancel_order',
  description: 'Cancels an order',
  inputSchema: v.object({ orderId: v.string() }),
  needsApproval: true,
  rejectMessage: 'The user keeps the order.',
})

/** The scripted model, recording what it is sent each step, so the test sees what the model reads. */
function recording(): { model: ChatModel; requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  const inner = scriptedModel([
    { when: /refund (\w+)/, call: (m) => ({ tool: 'refund_order', input: { orderId: m[1]! } }), then: () => 'OK.' },
    { when: /cancel (\w+)/, call: (m) => ({ tool: 'cancel_order', input: { orderId: m[1]! } }), then: () => 'OK.' },
  ])
  return { requests, model: { stream: (request) => (requests.push(request), inner.stream(request)) } }
}

function lastToolContent(request: ModelRequest | undefined): string | undefined {
  const tool = request?.messages.findLast((message) => message.role === 'tool')
  return tool?.role === 'tool' ? tool.content : undefined
}

describe('rejectMessage', () => {
  it('is what the model reads when a human denies without a reason', async () => {
    const { model, requests } = recording()
    const server = await startServer({ model, tools: [refund.server(() => 'refunded')] })
    const first = await server.send('refund A17')
    const second = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: false }])

    const expected = 'The user declined to refund order A17. Do not try again; ask what they want instead.'
    expect(second.results[0]!.content).toBe(expected)
    expect(lastToolContent(requests.at(-1))).toBe(expected)
    const stored = (await server.get(first.threadId)).messages.find((m) => m.role === 'tool')
    expect(stored).toMatchObject({ status: 'denied', content: expected })
  })

  it("adds the human's reason after it", async () => {
    const { model, requests } = recording()
    const server = await startServer({ model, tools: [cancel.server(() => 'cancelled')] })
    const first = await server.send('cancel B2')
    await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: false, reason: 'I still want it' }])
    expect(lastToolContent(requests.at(-1))).toBe("The user keeps the order.\nThe user's reason: I still want it")
  })

  it('does not apply when a new message supersedes the pending call: no one said no', async () => {
    const { model, requests } = recording()
    const server = await startServer({ model, tools: [cancel.server(() => 'cancelled')] })
    const first = await server.send('cancel B2')
    await server.send('never mind', first.threadId)
    const tool = requests.at(-1)!.messages.find((message) => message.role === 'tool')
    expect(tool).toMatchObject({ content: 'The request was cancelled before anyone decided (the user sent a new message instead); the tool did not run.' })
  })

  it('falls back to the default text when the function throws', async () => {
    const broken = toolDefinition({
      name: 'refund_order',
      description: 'Refunds an order',
      inputSchema: v.object({ orderId: v.string() }),
      needsApproval: true,
      rejectMessage: () => {
        throw new Error('oops')
      },
    })
    const { model } = recording()
    const server = await startServer({ model, tools: [broken.server(() => 'refunded')] })
    const first = await server.send('refund A17')
    const errors: unknown[] = []
    const original = console.error
    console.error = (...args: unknown[]) => void errors.push(args)
    try {
      const second = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: false, reason: 'no' }])
      expect(second.results[0]!.content).toBe('denied by the user: no')
    } finally {
      console.error = original
    }
    expect(errors).toHaveLength(1)
  })

  it('must be a string or a function', () => {
    expect(() => toolDefinition({ name: 'x', description: 'x', rejectMessage: 42 as never })).toThrow(ToolDefinitionError)
    expect(() => toolDefinition({ name: 'x', description: 'x', rejectMessage: 42 as never })).toThrow('`rejectMessage` of tool "x" must be a string or a function')
  })
})
