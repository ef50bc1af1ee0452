import { describe, expect, it, vi } from 'vitest'
import { Client, type ClientCapabilities, type ElicitRequest, type ElicitResult, type RequestId } from '@modelcontextprotocol/client'
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server'
import * as z from 'zod'
import { toolDefinition } from '@toolgate/ai'
import { MCP_NEEDS_APPROVAL_META, registerMcpTools, type McpServeOptions, type McpServableTool } from '@toolgate/ai/interop/mcp'
import { toProviderTool } from '@toolgate/ai/providers'

// Approval by MCP elicitation, the 2025 protocol: the official SDK's client and server connected in
// memory (`initialize`, then calls), the client answering `elicitation/create` the way a host's
// form would. The server answers the call `input_required`; on a 2025 connection the SDK asks the
// form by elicitation and hands the answer back (the 2026-07-28 rounds: mcpServeHttp.test.ts).

const INFO = { name: 'toolgate-test', version: '1.0.0' }

type Answer = (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>

interface Connect {
  /** What the client declares; default `{ elicitation: { form: {} } }`. */
  readonly capabilities?: ClientCapabilities
  /** How the "user" answers; omitted, the client registers no elicitation handler. */
  readonly answer?: Answer
}

/** A server with the tools registered, and a client connected to it in memory. */
async function serve(tools: readonly McpServableTool[], connect: Connect = {}, options?: McpServeOptions<unknown>) {
  const server = new McpServer(INFO)
  await registerMcpTools(server, tools, options)
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: connect.capabilities ?? { elicitation: { form: {} } } })
  const asked: ElicitRequest['params'][] = []
  const formIds: RequestId[] = []
  const { answer } = connect
  if (answer) {
    client.setRequestHandler('elicitation/create', (request, extra) => {
      asked.push(request.params)
      formIds.push(extra.mcpReq.id)
      return answer(request)
    })
  }
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)])
  // The requests the server withdrew, as they reach the client (read off the wire: the SDK does
  // not abort a handler for request id 0, the first the server sends).
  const withdrawn: RequestId[] = []
  const receive = clientTransport.onmessage!
  clientTransport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'notifications/cancelled') withdrawn.push((message.params as { requestId: RequestId }).requestId)
    receive(message, extra)
  }
  return { client, asked, formIds, withdrawn }
}

/** Accepts the form as shown: every field with the value it was filled with, as a host's form submits it. */
const acceptAsShown: Answer = (request) => {
  const { properties } = (request.params as { requestedSchema: { properties: Record<string, { default?: unknown }> } }).requestedSchema
  const content = Object.fromEntries(Object.entries(properties).flatMap(([name, field]) => (field.default === undefined ? [] : [[name, field.default]])))
  return { action: 'accept', content: content as ElicitResult['content'] }
}

function bookingTool() {
  const handler = vi.fn(async (input: Record<string, unknown>) => ({ booked: input.room as string, attendees: input.attendees as number }))
  const tool = toolDefinition({
    name: 'book_room',
    title: 'Book a room',
    description: 'Books a meeting room',
    inputSchema: z.object({
      room: z.enum(['Ada', 'Turing']).describe('Which room'),
      date: z.iso.date(),
      organizer: z.email().meta({ title: 'Organizer' }),
      attendees: z.number().int().min(1).max(20),
      note: z.string().max(200).optional(),
      projector: z.boolean().default(false),
      guests: z.array(z.string()),
      owner: z.string().nullable(),
    }),
    outputSchema: z.object({ booked: z.string(), attendees: z.number() }),
    needsApproval: true,
    rejectMessage: 'Do not book it again; ask the user which room they want.',
  }).server(handler)
  return { tool, handler }
}

const BOOKING = { room: 'Ada', date: '2026-12-01', organizer: 'ada@acme.test', attendees: 4, guests: ['Grace'], owner: null }

function transferTool() {
  const handler = vi.fn(async ({ amount }: { amount: number }) => `sent ${amount}`)
  const tool = toolDefinition({
    name: 'transfer',
    description: 'Sends money',
    inputSchema: z.object({ amount: z.number().max(10_000), to: z.string() }),
    needsApproval: ({ amount }) => (amount > 100 ? { reason: `Sends ${amount} EUR` } : false),
  }).server(handler)
  return { tool, handler }
}

const text = (result: unknown) => (result as { content: { type: string; text: string }[] }).content.map((block) => block.text).join('\n')

describe('registerMcpTools(): approval by elicitation', () => {
  it('asks with a form of the arguments and runs the call as asked when the user accepts it as shown', async () => {
    const { tool, handler } = bookingTool()
    const { client, asked } = await serve([tool], { answer: acceptAsShown })

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(result).toEqual({ content: [{ type: 'text', text: '{"booked":"Ada","attendees":4}' }], structuredContent: { booked: 'Ada', attendees: 4 } })
    expect(handler).toHaveBeenCalledOnce()
    expect(handler.mock.calls[0]![0]).toEqual({ ...BOOKING, projector: false })
    expect(asked).toHaveLength(1)
    const { message, requestedSchema } = asked[0] as Extract<ElicitRequest['params'], { requestedSchema: unknown }>
    expect(message).toBe(
      [
        'Allow the tool "Book a room" (book_room) to run?',
        `Arguments: ${JSON.stringify(BOOKING, null, 2)}`,
        'Accept to run it with the values below (you may change them first); decline to refuse it.',
      ].join('\n'),
    )
    // Flat primitive fields only, as MCP forms are: the array and the nullable string stay in the message.
    expect(requestedSchema).toEqual({
      type: 'object',
      properties: {
        room: { type: 'string', title: 'room', description: 'Which room', enum: ['Ada', 'Turing'], default: 'Ada' },
        date: { type: 'string', title: 'date', format: 'date', default: '2026-12-01' },
        organizer: { type: 'string', title: 'Organizer', format: 'email', default: 'ada@acme.test' },
        attendees: { type: 'integer', title: 'attendees', minimum: 1, maximum: 20, default: 4 },
        note: { type: 'string', title: 'note', maxLength: 200 },
        projector: { type: 'boolean', title: 'projector', default: false },
      },
      required: ['room', 'date', 'organizer', 'attendees'],
    })
  })

  it('runs the call with the fields the user edited, validated, and tells the model it was edited', async () => {
    const { tool, handler } = bookingTool()
    const { client } = await serve([tool], { answer: () => ({ action: 'accept', content: { room: 'Turing', attendees: 6, projector: true } }) })

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    const edited = { ...BOOKING, room: 'Turing', attendees: 6, projector: true }
    expect(handler).toHaveBeenCalledOnce()
    expect(handler.mock.calls[0]![0]).toEqual(edited)
    expect(result).toEqual({
      content: [
        { type: 'text', text: `The user edited the arguments before approving; the call ran with ${JSON.stringify(edited)}.` },
        { type: 'text', text: '{"booked":"Turing","attendees":6}' },
      ],
      structuredContent: { booked: 'Turing', attendees: 6 },
    })
  })

  it('keeps the model\'s values for fields the answer leaves out', async () => {
    const { tool, handler } = bookingTool()
    const { client } = await serve([tool], { answer: () => ({ action: 'accept' }) })
    expect(await client.callTool({ name: 'book_room', arguments: BOOKING })).toMatchObject({ structuredContent: { booked: 'Ada', attendees: 4 } })
    expect(handler.mock.calls[0]![0]).toEqual({ ...BOOKING, projector: false })
  })

  it('refuses an edit that fails the tool\'s schema, naming the path, without running the tool', async () => {
    const { tool, handler } = bookingTool()
    // The client's form checks its own bounds; a client that does not is caught by the tool's schema.
    const { client } = await serve([tool], { answer: () => ({ action: 'accept', content: { attendees: 50, organizer: 'nobody' } }) })

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/^The arguments as the user edited them are invalid, so tool "book_room" did not run:\n- organizer: .+\n- attendees: .+$/)
    expect(handler).not.toHaveBeenCalled()
  })

  it('refuses an answer that sets a field the form did not offer', async () => {
    const { tool, handler } = bookingTool()
    const { client } = await serve([tool], { answer: () => ({ action: 'accept', content: { guests: 'everyone', room: 'Turing' } }) })

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(result).toEqual({
      content: [{ type: 'text', text: 'The approval answer set "guests", which the form did not offer to change, so tool "book_room" did not run.' }],
      isError: true,
    })
    expect(handler).not.toHaveBeenCalled()
  })

  it('tells declined from dismissed: neither runs the tool, a decline carries the tool\'s rejectMessage', async () => {
    const { tool, handler } = bookingTool()
    const answers: ElicitResult[] = [{ action: 'decline' }, { action: 'cancel' }]
    const { client } = await serve([tool], { answer: () => answers.shift()! })

    expect(await client.callTool({ name: 'book_room', arguments: BOOKING })).toEqual({
      content: [{ type: 'text', text: 'The user declined, so tool "book_room" did not run.\nDo not book it again; ask the user which room they want.' }],
      isError: true,
    })
    expect(await client.callTool({ name: 'book_room', arguments: BOOKING })).toEqual({
      content: [{ type: 'text', text: 'The user dismissed the approval request without deciding, so tool "book_room" did not run.' }],
      isError: true,
    })
    expect(handler).not.toHaveBeenCalled()
  })

  it('asks only for calls the policy flags, with its reason in the message', async () => {
    const { tool, handler } = transferTool()
    const { client, asked } = await serve([tool], { answer: acceptAsShown })

    expect(text(await client.callTool({ name: 'transfer', arguments: { amount: 5, to: 'bob' } }))).toBe('sent 5')
    expect(asked).toHaveLength(0)
    expect(text(await client.callTool({ name: 'transfer', arguments: { amount: 500, to: 'bob' } }))).toBe('sent 500')
    expect(asked).toHaveLength(1)
    expect(asked[0]!.message).toContain('\nWhy it asks: Sends 500 EUR\n')
    expect(handler).toHaveBeenCalledTimes(2)
  })

  it('fails closed when the client declares no elicitation', async () => {
    const { tool, handler } = bookingTool()
    const { client } = await serve([tool], { capabilities: {} })

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(result).toEqual({
      content: [{ type: 'text', text: 'Tool "book_room" needs approval and the client cannot ask the user (no MCP elicitation support), so it did not run.' }],
      isError: true,
    })
    expect(handler).not.toHaveBeenCalled()
  })

  it('fails closed when the client can elicit only by URL', async () => {
    const { tool, handler } = bookingTool()
    const { client } = await serve([tool], { capabilities: { elicitation: { url: {} } } })
    expect(text(await client.callTool({ name: 'book_room', arguments: BOOKING }))).toBe(
      'Tool "book_room" needs approval and the client cannot ask the user (no MCP elicitation support), so it did not run.',
    )
    expect(handler).not.toHaveBeenCalled()
  })

  it('fails closed with the reason, not a raw -32601, when the client declares elicitation but does not handle it', async () => {
    const { tool, handler } = bookingTool()
    const { client } = await serve([tool], { capabilities: { elicitation: {} } })

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(result).toEqual({
      content: [{ type: 'text', text: 'Tool "book_room" needs approval and the client cannot ask the user (it does not handle elicitation/create), so it did not run.' }],
      isError: true,
    })
    expect(handler).not.toHaveBeenCalled()
  })

  it('refuses the call, and withdraws the form, when the user does not answer in time', async () => {
    const { tool, handler } = bookingTool()
    const { client, formIds, withdrawn } = await serve([tool], { answer: () => new Promise<ElicitResult>(() => {}) }, { approvalTtlMs: 20 })

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(result).toEqual({
      content: [{ type: 'text', text: 'The user did not answer the approval request within 20 ms, so tool "book_room" did not run.' }],
      isError: true,
    })
    expect(handler).not.toHaveBeenCalled()
    expect(withdrawn).toEqual(formIds)
  })

  it('withdraws the form when the client cancels the call', async () => {
    const { tool, handler } = bookingTool()
    const { client, formIds, withdrawn } = await serve([tool], { answer: () => new Promise<ElicitResult>(() => {}) })
    const call = new AbortController()

    const pending = client.callTool({ name: 'book_room', arguments: BOOKING }, { signal: call.signal })
    await vi.waitFor(() => expect(formIds).toHaveLength(1))
    call.abort('changed my mind')

    await expect(pending).rejects.toThrow('changed my mind')
    await vi.waitFor(() => expect(withdrawn).toEqual(formIds))
    expect(handler).not.toHaveBeenCalled()
  })

  it('leaves the decision to approve when the app gives one: no form is sent', async () => {
    const { tool, handler } = bookingTool()
    const approve = vi.fn(() => true)
    const { client, asked } = await serve([tool], { answer: acceptAsShown }, { approve })

    expect(await client.callTool({ name: 'book_room', arguments: BOOKING })).toMatchObject({ structuredContent: { booked: 'Ada' } })
    expect(approve).toHaveBeenCalledOnce()
    expect(asked).toHaveLength(0)
    expect(handler).toHaveBeenCalledOnce()
  })
})

describe('registerMcpTools(): tools/list marks approvals', () => {
  it('marks a tool that may ask in _meta, and keeps the annotations its metadata declares', async () => {
    const { tool: booking } = bookingTool()
    const { tool: transfer } = transferTool()
    const erase = toolDefinition({
      name: 'erase',
      description: 'Erases a disk',
      needsApproval: true,
      metadata: { destructive: true },
    }).server(() => 'erased')
    const lookup = toolDefinition({
      name: 'lookup',
      description: 'Looks up',
      needsApproval: false,
      metadata: { annotations: { readOnlyHint: true } },
    }).server(() => 'found')
    const { client } = await serve([booking, transfer, erase, lookup])

    const { tools } = await client.listTools()

    expect(MCP_NEEDS_APPROVAL_META).toBe('io.github.toolgate/needsApproval')
    expect(tools).toEqual([
      { ...toProviderTool(booking, 'mcp').tool, _meta: { 'io.github.toolgate/needsApproval': 'always' } },
      { ...toProviderTool(transfer, 'mcp').tool, _meta: { 'io.github.toolgate/needsApproval': 'policy' } },
      { ...toProviderTool(erase, 'mcp').tool, annotations: { destructiveHint: true }, _meta: { 'io.github.toolgate/needsApproval': 'always' } },
      { ...toProviderTool(lookup, 'mcp').tool, annotations: { readOnlyHint: true } },
    ])
    expect(tools[3]).not.toHaveProperty('_meta')
  })
})
