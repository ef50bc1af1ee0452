import { afterEach, describe, expect, it, vi } from 'vitest'
import { Client, StreamableHTTPClientTransport, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/client'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as z from 'zod'
import { toolDefinition } from '@toolgate/ai'
import type { DecisionRecord } from '@toolgate/ai/protocol'
import { createMcpToolHandler, registerMcpTools, type McpServableTool, type McpServeOptions } from '@toolgate/ai/interop/mcp'
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server'
import { toNodeHandler, verifyDecisionRecords } from '@toolgate/ai/server'
import { createClient } from 'redis'
import { startRedis } from '../services/redis.ts'
import { recordTelemetry } from '../server/helpers/telemetry.ts'

// Toolgate's tools served over real HTTP to the stock MCP clients: `@modelcontextprotocol/client`
// 2.4 at protocol 2026-07-28 (approval by input_required, the client retrying with the answer)
// and `@modelcontextprotocol/sdk` 1.32 at the 2025 protocol (approval by elicitation/create),
// from one endpoint.

const SECRET = 'a secret of at least thirty-two bytes, for tests'
const MODERN = '2026-07-28'
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  vi.useRealTimers()
  for (const close of closers.splice(0)) await close()
})

type ServeOptions = McpServeOptions<undefined> & { readonly serverInfo?: { name: string; version: string } }

async function serve(tools: readonly McpServableTool[], options: ServeOptions = {}): Promise<URL> {
  const handler = await createMcpToolHandler(tools, { secret: SECRET, ...options })
  // The app's own auth, as a test stands it in: the caller's client id from a header.
  const authOf = (request: Request) => {
    const clientId = request.headers.get('x-test-client')
    return clientId ? { authInfo: { token: clientId, clientId, scopes: [] } } : {}
  }
  const http = createServer(toNodeHandler((request) => handler.fetch(request, authOf(request))))
  await new Promise<void>((listening) => http.listen(0, '127.0.0.1', listening))
  closers.push(async () => {
    await handler.close()
    http.closeAllConnections()
    await new Promise((closed) => http.close(closed))
  })
  return new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`)
}

type Answer = (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>

/** A 2.4 client pinned to 2026-07-28; with `answer`, it fills input_required forms (the SDK retries the call itself). */
async function modernClient(url: URL, answer?: Answer, capabilities: Record<string, unknown> = { elicitation: { form: {} } }, as?: string) {
  const client = new Client({ name: 'modern', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: { pin: MODERN } } })
  const asked: ElicitRequest['params'][] = []
  if (answer) {
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params)
      return answer(request)
    })
  }
  await client.connect(new StreamableHTTPClientTransport(url, as ? { requestInit: { headers: { 'x-test-client': as } } } : {}))
  closers.push(() => client.close())
  return { client, asked }
}

/** A 1.32 client: `initialize`, a session, and `elicitation/create` when it declares it. */
async function legacyClient(url: URL, answer?: Answer) {
  const client = new LegacyClient({ name: 'legacy', version: '1.0.0' }, { capabilities: answer ? { elicitation: { form: {} } } : {} })
  const asked: unknown[] = []
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params)
      return answer(request as ElicitRequest) as never
    })
  }
  await client.connect(new LegacyTransport(url))
  closers.push(() => client.close())
  return { client, asked }
}

const acceptAsShown: Answer = () => ({ action: 'accept' })

function bookingTool() {
  const handler = vi.fn(async (input: { room: string; attendees: number }) => ({ booked: input.room, attendees: input.attendees }))
  const tool = toolDefinition({
    name: 'book_room',
    description: 'Books a meeting room',
    inputSchema: z.object({ room: z.enum(['Ada', 'Turing']), attendees: z.number().int().min(1).max(20), guests: z.array(z.string()).optional() }),
    outputSchema: z.object({ booked: z.string(), attendees: z.number() }),
    needsApproval: true,
    rejectMessage: 'Do not book it again; ask the user which room they want.',
  }).server(handler)
  return { tool, handler }
}

const BOOKING = { room: 'Ada', attendees: 4 }

function transferTool() {
  const handler = vi.fn(async ({ amount }: { amount: number; to: string }) => `sent ${amount}`)
  const tool = toolDefinition({
    name: 'transfer',
    description: 'Sends money',
    inputSchema: z.object({ amount: z.number(), to: z.string() }),
    needsApproval: ({ amount }) =>
      amount > 1000 ? { reason: `Sends ${amount} EUR`, reviewers: { roles: ['finance'] } } : amount > 100 ? { reason: `Sends ${amount} EUR` } : false,
  }).server(handler)
  return { tool, handler }
}

const text = (result: unknown) => (result as { content: { type: string; text: string }[] }).content.map((block) => block.text).join('\n')

/** The first round by hand: the call answered input_required, as the wire carries it. */
async function firstRound(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args }, { allowInputRequired: true })) as unknown as {
    resultType: string
    inputRequests: Record<string, { method: string; params: { message: string; requestedSchema: unknown } }>
    requestState: string
  }
  return result
}

/** The retry by hand: the same call with an answer and a state. */
function retry(client: Client, name: string, args: Record<string, unknown>, requestState: string, answer: ElicitResult) {
  return client.callTool({ name, arguments: args, inputResponses: { approval: answer }, requestState } as never, { allowInputRequired: true })
}

describe('createMcpToolHandler(): a 2026-07-28 client', () => {
  it('lists and calls the tools statelessly', async () => {
    const echo = toolDefinition({ name: 'echo', description: 'Says it back', inputSchema: z.object({ text: z.string() }) }).server(({ text }) => text)
    const { client } = await modernClient(await serve([echo]))

    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN)
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo'])
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject({ content: [{ type: 'text', text: 'hi' }] })
  })

  it('answers a gated call input_required with the approval form, and runs it once when the user accepts', async () => {
    const { tool, handler } = bookingTool()
    const url = await serve([tool])
    const { client: manual } = await modernClient(url)
    const round = await firstRound(manual, 'book_room', BOOKING)
    expect(round.resultType).toBe('input_required')
    expect(typeof round.requestState).toBe('string')
    expect(round.inputRequests.approval!.method).toBe('elicitation/create')
    expect(round.inputRequests.approval!.params.requestedSchema).toEqual({
      type: 'object',
      properties: {
        room: { type: 'string', title: 'room', enum: ['Ada', 'Turing'], default: 'Ada' },
        attendees: { type: 'integer', title: 'attendees', minimum: 1, maximum: 20, default: 4 },
      },
      required: ['room', 'attendees'],
    })
    expect(handler).not.toHaveBeenCalled()

    const { client, asked } = await modernClient(url, acceptAsShown)
    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(result).toMatchObject({ structuredContent: { booked: 'Ada', attendees: 4 } })
    expect(asked).toHaveLength(1)
    expect(asked[0]!.message).toContain('Allow the tool "book_room" to run?')
    expect(handler).toHaveBeenCalledOnce()
  })

  it('traces the two requests of an approved call: the input_required round ran nothing, the retry ran the tool', async () => {
    const { tool } = bookingTool()
    const otel = recordTelemetry()
    const { client } = await modernClient(await serve([tool], { telemetry: otel.telemetry() }), acceptAsShown)

    await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(otel.spans().filter((span) => span.name === 'execute_tool book_room').map((span) => span.attributes['toolgate.tool.outcome'])).toEqual(['input_required', 'success'])
  })

  it('tells a decline (denied, with the rejectMessage, recorded) from a cancel (no decision)', async () => {
    const { tool, handler } = bookingTool()
    const records: DecisionRecord[] = []
    const answers: ElicitResult[] = [{ action: 'decline' }, { action: 'cancel' }]
    const { client } = await modernClient(await serve([tool], { onDecision: (record) => void records.push(record) }), () => answers.shift()!)

    const declined = await client.callTool({ name: 'book_room', arguments: BOOKING })
    const cancelled = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(declined).toMatchObject({ isError: true })
    expect(text(declined)).toBe('The user declined, so tool "book_room" did not run.\nDo not book it again; ask the user which room they want.')
    expect(cancelled).toMatchObject({ isError: true })
    expect(text(cancelled)).toBe('The user dismissed the approval request without deciding, so tool "book_room" did not run.')
    expect(handler).not.toHaveBeenCalled()
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({ decision: 'denied', channel: 'mcp', toolName: 'book_room', by: { id: 'anonymous' }, shownArgs: BOOKING })
  })

  it('runs an edit within the schema with the edited arguments, and says so', async () => {
    const { tool, handler } = bookingTool()
    const records: DecisionRecord[] = []
    const { client } = await modernClient(await serve([tool], { onDecision: (record) => void records.push(record) }), () => ({ action: 'accept', content: { room: 'Turing', attendees: 6 } }))

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(handler).toHaveBeenCalledOnce()
    expect(handler.mock.calls[0]![0]).toEqual({ room: 'Turing', attendees: 6 })
    expect(text(result)).toContain('The user edited the arguments before approving; the call ran with {"room":"Turing","attendees":6}.')
    expect(records[0]).toMatchObject({ decision: 'edited', channel: 'mcp', editedFields: ['attendees', 'room'], ranArgs: { room: 'Turing', attendees: 6 } })
    // Signed under the secret as the chat's records are: an auditor checks it with the secret alone, and an altered copy fails.
    expect(records[0]!.digest).toMatch(/^hmac-sha256:/)
    await expect(verifyDecisionRecords(records, { secret: SECRET })).resolves.toEqual({ count: 1, last: records[0]!.digest })
    await expect(verifyDecisionRecords([{ ...records[0]!, ranArgs: { room: 'Turing', attendees: 20 } }], { secret: SECRET })).rejects.toMatchObject({ code: 'DECISION_RECORD_ALTERED' })
  })

  it('refuses an edit outside the schema, naming the path, without running the tool', async () => {
    const { tool, handler } = bookingTool()
    const { client } = await modernClient(await serve([tool]), () => ({ action: 'accept', content: { attendees: 50 } }))

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/^The arguments as the user edited them are invalid, so tool "book_room" did not run:\n- attendees: .+$/)
    expect(handler).not.toHaveBeenCalled()
  })

  it('asks the policy again on an edit: one it then sends to a reviewer does not run', async () => {
    const { tool, handler } = transferTool()
    const { client, asked } = await modernClient(await serve([tool]), () => ({ action: 'accept', content: { amount: 5000 } }))

    const result = await client.callTool({ name: 'transfer', arguments: { amount: 200, to: 'bob' } })

    expect(asked).toHaveLength(1)
    expect(result.isError).toBe(true)
    expect(text(result)).toBe('The edited call waits for a reviewer (finance), who cannot decide it over MCP, so tool "transfer" did not run.')
    expect(handler).not.toHaveBeenCalled()
  })

  it('refuses a call whose policy names reviewers without asking the caller', async () => {
    const { tool, handler } = transferTool()
    const { client, asked } = await modernClient(await serve([tool]), acceptAsShown)

    const result = await client.callTool({ name: 'transfer', arguments: { amount: 5000, to: 'bob' } })

    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/^Tool "transfer" waits for a reviewer \(finance\)/)
    expect(asked).toHaveLength(0)
    expect(handler).not.toHaveBeenCalled()
  })

  it('takes an answer once: the replayed retry is refused with a typed error and nothing runs again', async () => {
    const { tool, handler } = bookingTool()
    const { client } = await modernClient(await serve([tool]))
    const { requestState } = await firstRound(client, 'book_room', BOOKING)

    expect(await retry(client, 'book_room', BOOKING, requestState, { action: 'accept' })).toMatchObject({ structuredContent: { booked: 'Ada' } })
    await expect(retry(client, 'book_room', BOOKING, requestState, { action: 'accept' })).rejects.toMatchObject({ code: -32602, data: { reason: 'approval_used' } })
    expect(handler).toHaveBeenCalledOnce()
  })

  it('refuses a tampered state, a state for other arguments and one signed with another secret; accepts one another instance signed', async () => {
    const { tool, handler } = bookingTool()
    const url = await serve([tool])
    const { client } = await modernClient(url)
    const { requestState } = await firstRound(client, 'book_room', BOOKING)
    const [version, body, mac] = requestState.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString())
    const forged = [version, Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 3600 })).toString('base64url'), mac].join('.')

    await expect(retry(client, 'book_room', BOOKING, forged, { action: 'accept' })).rejects.toMatchObject({ code: -32602, data: { reason: 'invalid_request_state' } })
    await expect(retry(client, 'book_room', { room: 'Turing', attendees: 20 }, requestState, { action: 'accept' })).rejects.toMatchObject({
      code: -32602,
      data: { reason: 'approval_mismatch' },
    })
    const { client: stranger } = await modernClient(await serve([tool], { secret: 'another secret of thirty-two bytes or more' }))
    await expect(retry(stranger, 'book_room', BOOKING, requestState, { action: 'accept' })).rejects.toMatchObject({ code: -32602, data: { reason: 'invalid_request_state' } })
    expect(handler).not.toHaveBeenCalled()

    // A second instance with the same secret (behind the same endpoint) takes the answer: the state is signed, not stored.
    const { client: sibling } = await modernClient(await serve([tool]))
    expect(await retry(sibling, 'book_room', BOOKING, requestState, { action: 'accept' })).toMatchObject({ structuredContent: { booked: 'Ada' } })
    expect(handler).toHaveBeenCalledOnce()
  })

  it('refuses an answer without its state, and one from another caller than the one asked', async () => {
    const { tool, handler } = bookingTool()
    const records: DecisionRecord[] = []
    const url = await serve([tool], { onDecision: (record) => void records.push(record) })
    const { client: alice } = await modernClient(url, undefined, undefined, 'alice')
    const { client: mallory } = await modernClient(url, undefined, undefined, 'mallory')
    const { requestState } = await firstRound(alice, 'book_room', BOOKING)

    const stateless = alice.callTool({ name: 'book_room', arguments: BOOKING, inputResponses: { approval: { action: 'accept' } } } as never, { allowInputRequired: true })
    await expect(stateless).rejects.toMatchObject({ code: -32602, data: { reason: 'invalid_request_state' } })
    await expect(retry(mallory, 'book_room', BOOKING, requestState, { action: 'accept' })).rejects.toMatchObject({ code: -32602, data: { reason: 'invalid_request_state' } })
    expect(handler).not.toHaveBeenCalled()

    expect(await retry(alice, 'book_room', BOOKING, requestState, { action: 'accept' })).toMatchObject({ structuredContent: { booked: 'Ada' } })
    expect(handler).toHaveBeenCalledOnce()
    expect(records).toEqual([expect.objectContaining({ decision: 'approved', channel: 'mcp', by: { id: 'alice' }, ranArgs: BOOKING, toolCallId: expect.any(String) })])
  })

  it('of 20 identical retries sent at once, exactly one runs the call', async () => {
    const { tool, handler } = bookingTool()
    const { client } = await modernClient(await serve([tool]))
    const { requestState } = await firstRound(client, 'book_room', BOOKING)

    const settled = await Promise.allSettled(Array.from({ length: 20 }, () => retry(client, 'book_room', BOOKING, requestState, { action: 'accept' })))

    expect(settled.filter((each) => each.status === 'fulfilled')).toHaveLength(1)
    expect(settled.filter((each) => each.status === 'rejected').map((each) => (each as PromiseRejectedResult).reason.data)).toEqual(Array(19).fill({ reason: 'approval_used' }))
    expect(handler).toHaveBeenCalledOnce()
  })

  it('runs nothing when the record of answered approvals fails', async () => {
    const { tool, handler } = bookingTool()
    const usedApprovals = {
      use: async () => {
        throw new Error('redis: connection refused')
      },
    }
    const { client } = await modernClient(await serve([tool], { usedApprovals }))
    const { requestState } = await firstRound(client, 'book_room', BOOKING)

    const result = await retry(client, 'book_room', BOOKING, requestState, { action: 'accept' })

    expect(result).toMatchObject({ isError: true })
    expect(text(result)).toBe('Tool "book_room" failed: the record of answered approvals (`usedApprovals`) could not be read, so the call did not run; call the tool again')
    expect(handler).not.toHaveBeenCalled()
  })

  it('with usedApprovals shared by the instances, an answer taken by one is refused by the other', async () => {
    const { tool, handler } = bookingTool()
    const answered = new Set<string>()
    const usedApprovals = { use: (id: string) => !answered.has(id) && answered.add(id).has(id) }
    const { client: one } = await modernClient(await serve([tool], { usedApprovals }))
    const { client: other } = await modernClient(await serve([tool], { usedApprovals }))
    const { requestState } = await firstRound(one, 'book_room', BOOKING)

    expect(await retry(one, 'book_room', BOOKING, requestState, { action: 'accept' })).toMatchObject({ structuredContent: { booked: 'Ada' } })
    await expect(retry(other, 'book_room', BOOKING, requestState, { action: 'accept' })).rejects.toMatchObject({ code: -32602, data: { reason: 'approval_used' } })
    expect(handler).toHaveBeenCalledOnce()
  })

  it('on Redis (as the guide shows it), instances take each answer once between them, however the retries race', async () => {
    const server = await startRedis()
    const redis = await createClient({ url: server.url }).connect()
    closers.push(async () => {
      redis.destroy()
      await server.stop()
    })
    const usedApprovals = {
      use: async (id: string, expiresAt: number) =>
        (await redis.set(`mcp-approval:${id}`, '1', { condition: 'NX', expiration: { type: 'PXAT', value: expiresAt } })) === 'OK',
    }
    const { tool, handler } = bookingTool()
    const { client: one } = await modernClient(await serve([tool], { usedApprovals }))
    const { client: other } = await modernClient(await serve([tool], { usedApprovals }))
    const { requestState } = await firstRound(one, 'book_room', BOOKING)

    const settled = await Promise.allSettled(Array.from({ length: 10 }, (_, index) => retry(index % 2 ? one : other, 'book_room', BOOKING, requestState, { action: 'accept' })))

    expect(settled.filter((each) => each.status === 'fulfilled')).toHaveLength(1)
    expect(settled.filter((each) => each.status === 'rejected').map((each) => (each as PromiseRejectedResult).reason.data)).toEqual(Array(9).fill({ reason: 'approval_used' }))
    expect(handler).toHaveBeenCalledOnce()
  })

  it('refuses an answer past the approval TTL', async () => {
    const { tool, handler } = bookingTool()
    const { client } = await modernClient(await serve([tool], { approvalTtlMs: 60_000 }))
    const { requestState } = await firstRound(client, 'book_room', BOOKING)

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_001 })
    await expect(retry(client, 'book_room', BOOKING, requestState, { action: 'accept' })).rejects.toMatchObject({ code: -32602, data: { reason: 'approval_expired' } })
    expect(handler).not.toHaveBeenCalled()
  })

  it('refuses, never runs, a gated call from a client that cannot show a form', async () => {
    const { tool, handler } = bookingTool()
    const { client } = await modernClient(await serve([tool]), undefined, {})

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(result).toMatchObject({ isError: true })
    expect(text(result)).toBe('Tool "book_room" needs approval and the client cannot ask the user (no MCP elicitation support), so it did not run.')
    expect(handler).not.toHaveBeenCalled()
  })
})

describe('createMcpToolHandler(): a 2025 client on the same endpoint', () => {
  it('is asked by elicitation/create and the call runs once on accept', async () => {
    const { tool, handler } = bookingTool()
    const { client, asked } = await legacyClient(await serve([tool]), () => ({ action: 'accept', content: { attendees: 5 } }))

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(client.getServerVersion()).toMatchObject({ name: 'toolgate' })
    expect(asked).toHaveLength(1)
    expect(result).toMatchObject({ structuredContent: { booked: 'Ada', attendees: 5 } })
    expect(handler).toHaveBeenCalledOnce()
  })

  it('refuses, never runs, a gated call from a client without elicitation', async () => {
    const { tool, handler } = bookingTool()
    const { client } = await legacyClient(await serve([tool]))

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(result).toMatchObject({ isError: true })
    expect(text(result)).toBe('Tool "book_room" needs approval and the client cannot ask the user (no MCP elicitation support), so it did not run.')
    expect(handler).not.toHaveBeenCalled()
  })
})

describe('registerMcpTools() behind the SDK\'s own stateless endpoint', () => {
  it('refuses, never runs, a 2025 client\'s gated call: no session, so nothing says the client can show a form', async () => {
    const { tool, handler } = bookingTool()
    const endpoint = createMcpHandler(async () => {
      const server = new McpServer({ name: 'own', version: '1.0.0' })
      await registerMcpTools(server, [tool])
      return server
    })
    const http = createServer(toNodeHandler((request) => endpoint.fetch(request)))
    await new Promise<void>((listening) => http.listen(0, '127.0.0.1', listening))
    closers.push(async () => {
      await endpoint.close()
      http.closeAllConnections()
      await new Promise((closed) => http.close(closed))
    })
    const { client, asked } = await legacyClient(new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`), acceptAsShown)

    const result = await client.callTool({ name: 'book_room', arguments: BOOKING })

    expect(result).toMatchObject({ isError: true })
    expect(text(result)).toBe('Tool "book_room" needs approval and the client cannot ask the user (no MCP elicitation support), so it did not run.')
    expect(asked).toHaveLength(0)
    expect(handler).not.toHaveBeenCalled()
  })
})

describe('createMcpToolHandler(): tools with an MCP App', () => {
  const chart = toolDefinition({
    name: 'chart',
    description: 'Charts temperatures',
    inputSchema: z.object({ city: z.string() }),
    app: {
      uri: 'ui://toolgate/chart.html',
      html: () => '<!doctype html><p>chart</p>',
      csp: { connectDomains: ['https://api.example.test'] },
      permissions: { clipboardWrite: {} },
      prefersBorder: true,
    },
  }).server(({ city }) => ({ city }))
  const refresh = toolDefinition({
    name: 'refresh_chart',
    description: 'Reloads the chart data',
    inputSchema: z.object({ city: z.string() }),
    app: { uri: 'ui://toolgate/refresh.html', html: '<p>refresh</p>', visibility: ['app'] },
  }).server(({ city }) => ({ city }))

  const resource = {
    contents: [
      {
        uri: 'ui://toolgate/chart.html',
        mimeType: 'text/html;profile=mcp-app',
        text: '<!doctype html><p>chart</p>',
        _meta: { ui: { csp: { connectDomains: ['https://api.example.test'] }, permissions: { clipboardWrite: {} }, prefersBorder: true } },
      },
    ],
  }

  it.each(['modern', 'legacy'] as const)('lists the app on the tool and serves its view (%s client)', async (era) => {
    const url = await serve([chart, refresh])
    const { client } = era === 'modern' ? await modernClient(url) : await legacyClient(url)

    const { tools } = await client.listTools()
    expect(tools.find((tool) => tool.name === 'chart')!._meta).toEqual({ ui: { resourceUri: 'ui://toolgate/chart.html' }, 'ui/resourceUri': 'ui://toolgate/chart.html' })
    expect(tools.find((tool) => tool.name === 'refresh_chart')!._meta).toEqual({
      ui: { resourceUri: 'ui://toolgate/refresh.html', visibility: ['app'] },
      'ui/resourceUri': 'ui://toolgate/refresh.html',
    })
    const { resources } = await client.listResources()
    expect(resources.map(({ uri, mimeType }) => ({ uri, mimeType }))).toEqual([
      { uri: 'ui://toolgate/chart.html', mimeType: 'text/html;profile=mcp-app' },
      { uri: 'ui://toolgate/refresh.html', mimeType: 'text/html;profile=mcp-app' },
    ])
    expect(await client.readResource({ uri: 'ui://toolgate/chart.html' })).toMatchObject(resource)
    await expect(client.readResource({ uri: 'ui://toolgate/missing.html' })).rejects.toMatchObject({ code: -32602 })
  })
})
