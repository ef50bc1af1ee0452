import { describe, expect, it, vi } from 'vitest'
import { Client } from '@modelcontextprotocol/client'
import { InMemoryTransport, McpServer, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server'
import * as v from 'valibot'
import * as z from 'zod'
import { toolDefinition, type ToolContext } from '@toolgate/ai'
import { registerMcpTools, type McpApprovalRequest, type McpServeOptions, type McpServableTool } from '@toolgate/ai/interop/mcp'
import { toProviderTool } from '@toolgate/ai/providers'

vi.spyOn(console, 'warn').mockImplementation(() => {}) // dotted names are legal for MCP; toolDefinition warns once

const INFO = { name: 'toolgate-test', version: '1.0.0' }

/** A server with the tools registered, and a client connected to it in memory. */
async function serve<TContext>(
  tools: readonly McpServableTool[],
  options?: McpServeOptions<TContext>,
  server: McpServer | Server = new McpServer(INFO),
) {
  await registerMcpTools(server, tools, options)
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)])
  return client
}

function weatherTool() {
  const handler = vi.fn(async (input: { city: string; unit: 'C' | 'F' }, _ctx: ToolContext) => ({ temp: input.city.length, unit: input.unit }))
  const tool = toolDefinition({
    name: 'weather.get',
    title: 'Weather',
    description: 'Current weather in a city',
    inputSchema: v.object({ city: v.pipe(v.string(), v.minLength(2)), unit: v.optional(v.picklist(['C', 'F']), 'C') }),
    outputSchema: v.object({ temp: v.number(), unit: v.string() }),
    metadata: { annotations: { readOnlyHint: true, openWorldHint: true } },
  }).server(handler)
  return { tool, handler }
}

const echo = toolDefinition({
  name: 'echo',
  description: 'Says it back',
  inputSchema: z.object({ text: z.string() }),
}).server(({ text }) => text)

const failing = toolDefinition({ name: 'failing', description: 'Always fails' }).server(() => {
  throw new Error('database down')
})

function deleteTool() {
  const handler = vi.fn(async ({ path }: { path: string }) => ({ deleted: path }))
  const tool = toolDefinition({
    name: 'delete_file',
    description: 'Deletes a file',
    inputSchema: z.object({ path: z.string() }),
    needsApproval: true,
    metadata: { destructive: true },
  }).server(handler)
  return { tool, handler }
}

function transferTool() {
  const handler = vi.fn(async ({ amount }: { amount: number }) => `sent ${amount}`)
  const tool = toolDefinition({
    name: 'transfer',
    description: 'Sends money',
    inputSchema: z.object({ amount: z.number() }),
    needsApproval: ({ amount }) => (amount > 100 ? { reason: 'a large amount' } : false),
  }).server(handler)
  return { tool, handler }
}

const text = (result: unknown) => (result as { content: { type: string; text: string }[] }).content.map((block) => block.text).join('\n')

describe('registerMcpTools(): tools/list', () => {
  it('lists each tool in its exact MCP envelope', async () => {
    const { tool: weather } = weatherTool()
    const client = await serve([weather, echo, failing])
    const { tools } = await client.listTools()
    expect(tools).toEqual([toProviderTool(weather, 'mcp').tool, toProviderTool(echo, 'mcp').tool, toProviderTool(failing, 'mcp').tool])
    expect(tools[0]).toEqual({
      name: 'weather.get',
      title: 'Weather',
      description: 'Current weather in a city',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string', minLength: 2 }, unit: { type: 'string', enum: ['C', 'F'], default: 'C' } },
        required: ['city'],
      },
      outputSchema: { type: 'object', properties: { temp: { type: 'number' }, unit: { type: 'string' } }, required: ['temp', 'unit'] },
      annotations: { readOnlyHint: true, openWorldHint: true },
    })
    expect(tools[2]).toEqual({ name: 'failing', description: 'Always fails', inputSchema: { type: 'object', properties: {} } })
  })

  it('derives destructiveHint from metadata.destructive, under explicit annotations', async () => {
    const { tool } = deleteTool()
    const annotated = toolDefinition({
      name: 'wipe',
      description: 'Wipes',
      metadata: { destructive: true, annotations: { destructiveHint: false, idempotentHint: true } },
    }).server(() => 'ok')
    const client = await serve([tool, annotated], { approve: () => true })
    const { tools } = await client.listTools()
    expect(tools[0]).toEqual({
      ...toProviderTool(tool, 'mcp', { annotations: { destructiveHint: true } }).tool,
      _meta: { 'io.github.toolgate/needsApproval': 'always' },
    })
    expect(tools[0]!.annotations).toEqual({ destructiveHint: true })
    expect(tools[1]!.annotations).toEqual({ destructiveHint: false, idempotentHint: true })
  })

  it('tells a readOnly tool as readOnlyHint: true, over its annotations', async () => {
    const reader = toolDefinition({ name: 'read', description: 'Reads', readOnly: true }).server(() => 'ok')
    const contradicted = toolDefinition({ name: 'peek', description: 'Peeks', readOnly: true, metadata: { annotations: { readOnlyHint: false, openWorldHint: false } } }).server(() => 'ok')
    const plain = toolDefinition({ name: 'write', description: 'Writes' }).server(() => 'ok')
    const { tools } = await (await serve([reader, contradicted, plain])).listTools()
    expect(tools.map((t) => [t.name, t.annotations])).toEqual([
      ['read', { readOnlyHint: true }],
      ['peek', { readOnlyHint: true, openWorldHint: false }],
      ['write', undefined],
    ])
  })

  it('lists a name MCP refuses under its mapped name, and routes calls back', async () => {
    const spaced = toolDefinition({ name: 'look up', description: 'Looks up', inputSchema: z.object({ q: z.string() }) }).server(({ q }) => `found ${q}`)
    const client = await serve([spaced])
    const { tools } = await client.listTools()
    const mapped = toProviderTool(spaced, 'mcp').tool.name
    expect(mapped).toMatch(/^look_up_[0-9a-z]{7}$/)
    expect(tools.map((t) => t.name)).toEqual([mapped])
    expect(text(await client.callTool({ name: mapped, arguments: { q: 'x' } }))).toBe('found x')
  })

  it('works on a low-level Server too', async () => {
    const client = await serve([echo], {}, new Server(INFO))
    expect((await client.listTools()).tools).toEqual([toProviderTool(echo, 'mcp').tool])
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toEqual({ content: [{ type: 'text', text: 'hi' }] })
  })
})

describe('registerMcpTools(): tools/call', () => {
  it('runs the tool with validated input and returns structuredContent with its JSON text', async () => {
    const { tool, handler } = weatherTool()
    const client = await serve([tool])
    const result = await client.callTool({ name: 'weather.get', arguments: { city: 'Oslo' } })
    expect(result).toEqual({ content: [{ type: 'text', text: '{"temp":4,"unit":"C"}' }], structuredContent: { temp: 4, unit: 'C' } })
    expect(handler).toHaveBeenCalledOnce()
    const [input, ctx] = handler.mock.calls[0]!
    expect(input).toEqual({ city: 'Oslo', unit: 'C' }) // the default applied: the handler got the schema's output
    expect(ctx.signal).toBeInstanceOf(AbortSignal)
    expect(ctx.toolCallId).toMatch(/^\d+$/) // the JSON-RPC request id
  })

  it('returns JSON text only for a tool without an output schema, and a string as itself', async () => {
    const list = toolDefinition({ name: 'list', description: 'Lists' }).server(() => [1, 2])
    const client = await serve([echo, list])
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hello' } })).toEqual({ content: [{ type: 'text', text: 'hello' }] })
    expect(await client.callTool({ name: 'list', arguments: {} })).toEqual({ content: [{ type: 'text', text: '[1,2]' }] })
  })

  it('reports invalid input as an isError result with path: message lines, without running the tool', async () => {
    const { tool, handler } = weatherTool()
    const client = await serve([tool])
    const result = await client.callTool({ name: 'weather.get', arguments: { city: 'X', unit: 'K' } })
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/^Invalid input for tool "weather\.get":\n- city: .+\n- unit: .+$/)
    expect(handler).not.toHaveBeenCalled()
  })

  it('reports a thrown error, and invalid output, as isError results', async () => {
    const lying = toolDefinition({ name: 'lying', description: 'Lies', outputSchema: z.object({ n: z.number() }) }).server(() => ({ n: 'one' }) as never)
    const client = await serve([failing, lying])
    expect(await client.callTool({ name: 'failing', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Tool "failing" failed: database down' }],
      isError: true,
    })
    const result = await client.callTool({ name: 'lying', arguments: {} })
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/^Invalid output for tool "lying":\n- n: /)
  })

  it('answers an unknown tool with a JSON-RPC error', async () => {
    const client = await serve([echo])
    const error = await client.callTool({ name: 'nope', arguments: {} }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProtocolError)
    expect(error).toMatchObject({ code: ProtocolErrorCode.InvalidParams, message: expect.stringContaining('Tool nope not found') })
  })

  it('hands handlers the app context made from the request', async () => {
    const seen = vi.fn((_ctx: ToolContext) => 'ok')
    const tool = toolDefinition({ name: 'whoami', description: 'Who am I' }).server((_input, ctx) => seen(ctx))
    const client = await serve([tool], { context: (extra) => ({ session: extra.sessionId ?? 'none', requestId: extra.mcpReq.id }) })
    await client.callTool({ name: 'whoami', arguments: {} })
    expect(seen.mock.calls[0]![0].context).toEqual({ session: 'none', requestId: expect.any(Number) })
  })
})

describe('registerMcpTools(): approvals', () => {
  it('serves a tool that needs approval without approve, and refuses its calls when the client cannot ask the user', async () => {
    const { tool, handler } = deleteTool()
    const client = await serve([tool]) // this client declares no elicitation capability
    expect(await client.callTool({ name: 'delete_file', arguments: { path: '/tmp/a' } })).toEqual({
      content: [{ type: 'text', text: 'Tool "delete_file" needs approval and the client cannot ask the user (no MCP elicitation support), so it did not run.' }],
      isError: true,
    })
    expect(handler).not.toHaveBeenCalled()
  })

  it('runs the call once approve resolves true, and refuses it otherwise', async () => {
    const { tool, handler } = deleteTool()
    const approve = vi.fn(async (_request: McpApprovalRequest<{ user: string }>) => approve.mock.calls.length === 1)
    const client = await serve([tool], { approve, context: () => ({ user: 'ada' }) })

    expect(await client.callTool({ name: 'delete_file', arguments: { path: '/tmp/a' } })).toEqual({ content: [{ type: 'text', text: '{"deleted":"/tmp/a"}' }] })
    expect(handler).toHaveBeenCalledOnce()
    expect(approve.mock.calls[0]![0]).toMatchObject({ tool, input: { path: '/tmp/a' }, reason: undefined, context: { user: 'ada' }, toolCallId: expect.any(String) })

    const denied = await client.callTool({ name: 'delete_file', arguments: { path: '/tmp/b' } })
    expect(denied).toEqual({ content: [{ type: 'text', text: 'Tool "delete_file" was not approved, so it did not run' }], isError: true })
    expect(handler).toHaveBeenCalledOnce()
  })

  it('asks only for calls the policy flags, with its reason, and fails closed when approve throws', async () => {
    const { tool, handler } = transferTool()
    const approve = vi.fn(async (request: McpApprovalRequest) => {
      if ((request.input as { amount: number }).amount > 1000) throw new Error('approver offline')
      return true
    })
    const client = await serve([tool], { approve })

    expect(text(await client.callTool({ name: 'transfer', arguments: { amount: 5 } }))).toBe('sent 5')
    expect(approve).not.toHaveBeenCalled()
    expect(text(await client.callTool({ name: 'transfer', arguments: { amount: 500 } }))).toBe('sent 500')
    expect(approve.mock.calls[0]![0]).toMatchObject({ input: { amount: 500 }, reason: 'a large amount' })

    const failed = await client.callTool({ name: 'transfer', arguments: { amount: 5000 } })
    expect(failed).toMatchObject({ isError: true, content: [{ text: 'Tool "transfer" failed: approver offline' }] })
    expect(handler).toHaveBeenCalledTimes(2)
  })

  it('validates before asking: a human never sees invalid input', async () => {
    const { tool } = deleteTool()
    const approve = vi.fn(() => true)
    const client = await serve([tool], { approve })
    const result = await client.callTool({ name: 'delete_file', arguments: { path: 42 } })
    expect(result.isError).toBe(true)
    expect(text(result)).toContain('- path: ')
    expect(approve).not.toHaveBeenCalled()
  })
})

describe('registerMcpTools(): misuse', () => {
  it('takes .server() tools only, with distinct names', async () => {
    const definition = toolDefinition({ name: 'bare', description: 'No execute' })
    await expect(registerMcpTools(new McpServer(INFO), [definition as never])).rejects.toThrow(expect.objectContaining({ code: 'INVALID_OPTION', option: 'tools', message: expect.stringContaining('must be .server() tools') }))
    await expect(registerMcpTools(new McpServer(INFO), [echo, echo])).rejects.toThrow(/both be listed as "echo"/)
  })

  it('takes an approval TTL a timer can hold, and a secret of 32 bytes or more', async () => {
    for (const approvalTtlMs of [0, -5, 1.5, Number.NaN, 2 ** 31]) {
      await expect(registerMcpTools(new McpServer(INFO), [echo], { approvalTtlMs })).rejects.toThrow(
        expect.objectContaining({ code: 'INVALID_OPTION', option: 'approvalTtlMs', message: expect.stringContaining('must be a whole number of milliseconds') }),
      )
    }
    for (const secret of ['short', new Uint8Array(31)]) {
      await expect(registerMcpTools(new McpServer(INFO), [echo], { secret })).rejects.toThrow(expect.objectContaining({ code: 'INVALID_OPTION', option: 'secret' }))
    }
  })

  it('owns the server\'s tool handlers: once per server, not beside McpServer.registerTool', async () => {
    const server = new McpServer(INFO)
    await registerMcpTools(server, [echo])
    await expect(registerMcpTools(server, [failing])).rejects.toThrow(/once per server/)

    const mixed = new McpServer(INFO)
    mixed.registerTool('native', { description: 'Native' }, () => ({ content: [] }))
    await expect(registerMcpTools(mixed, [echo])).rejects.toThrow(/once per server/)
  })
})
