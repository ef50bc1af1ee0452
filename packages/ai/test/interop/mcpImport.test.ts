import { describe, expect, it, vi } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer as ToolgateMcpServer } from '@modelcontextprotocol/server'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import * as v from 'valibot'
import * as z from 'zod'
import { toolDefinition, toolJsonSchema, ToolValidationError, type ToolContext } from '@toolgate/ai'
import { mcpToolDefinitions, registerMcpTools, type McpImportOptions } from '@toolgate/ai/interop/mcp'
import { toProviderTool } from '@toolgate/ai/providers'

const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})

const INFO = { name: 'remote', version: '1.0.0' }

async function connect(server: McpServer | ToolgateMcpServer) {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  const client = new Client({ name: 'toolgate', version: '1.0.0' })
  // A 2.x server (registerMcpTools) takes the 1.x in-memory transport: the Transport contract is the same.
  await Promise.all([server.connect(serverTransport as never), client.connect(clientTransport)])
  return client
}

/** A server written with the SDK's own API (Zod schemas), as a third party would. */
function remoteServer() {
  const server = new McpServer(INFO)
  const listTools = vi.fn(async ({ prefix }: { prefix?: string | undefined }) => {
    const tools = ['search', 'fetch'].filter((name) => name.startsWith(prefix ?? ''))
    return { content: [{ type: 'text' as const, text: tools.join(',') }], structuredContent: { tools } }
  })
  server.registerTool(
    'admin.tools.list',
    {
      title: 'List tools',
      description: 'Lists the tools of the admin API',
      inputSchema: { prefix: z.string().min(1).optional() },
      outputSchema: { tools: z.array(z.string()) },
      annotations: { readOnlyHint: true },
    },
    listTools,
  )
  server.registerTool('greet', { inputSchema: { name: z.string() } }, async ({ name }) => ({
    content: [{ type: 'text', text: `Hello, ${name}` }],
  }))
  server.registerTool('broken', { description: 'Always fails', annotations: { destructiveHint: true } }, async () => ({
    content: [{ type: 'text', text: 'quota exceeded' }],
    isError: true,
  }))
  server.registerTool('slow', { description: 'Waits until cancelled' }, (extra) => {
    return new Promise((_, reject) => extra.signal.addEventListener('abort', () => reject(new Error('cancelled'))))
  })
  return { server, listTools }
}

const ctx = (signal = new AbortController().signal): ToolContext => ({ toolCallId: 'call_1', signal, context: undefined })

async function imported(options?: McpImportOptions) {
  const remote = remoteServer()
  const client = await connect(remote.server)
  const tools = await mcpToolDefinitions(client, options)
  const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]))
  return { ...remote, client, tools, byName }
}

describe('mcpToolDefinitions()', () => {
  it('keeps names, titles, descriptions, JSON Schemas and annotations', async () => {
    const { client, tools, byName } = await imported()
    const { tools: listed } = await client.listTools()
    expect(tools.map((tool) => [tool.kind, tool.name])).toEqual([
      ['server', 'admin.tools.list'],
      ['server', 'greet'],
      ['server', 'broken'],
      ['server', 'slow'],
    ])

    const list = byName['admin.tools.list']!
    expect(list).toMatchObject({ title: 'List tools', description: 'Lists the tools of the admin API', needsApproval: false })
    expect(list.metadata).toEqual({ annotations: { readOnlyHint: true } })
    expect(warn).not.toHaveBeenCalled()
    expect(toolJsonSchema(list)).toEqual(listed[0]!.inputSchema)
    // A name some provider would refuse is pointed out when the tool is first described to a model.
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('"admin.tools.list" is not portable'))
    expect(toolJsonSchema(list, { io: 'output' })).toEqual(listed[0]!.outputSchema)
    // Served again, the tool is listed as the remote server listed it.
    expect(toProviderTool(list, 'mcp').tool).toMatchObject({ name: 'admin.tools.list', title: 'List tools', annotations: { readOnlyHint: true } })
    expect(byName.greet!.description).toBe('greet') // MCP leaves it optional; the model needs one
  })

  it('runs through the client: structuredContent when sent, else the text', async () => {
    const { byName, listTools } = await imported()
    expect(await byName['admin.tools.list']!.execute({ prefix: 's' }, ctx())).toEqual({ tools: ['search'] })
    expect(listTools).toHaveBeenCalledWith({ prefix: 's' }, expect.anything())
    expect(await byName.greet!.execute({ name: 'Ada' }, ctx())).toBe('Hello, Ada')
  })

  it('validates input with the listed JSON Schema before calling the server', async () => {
    const { byName, listTools } = await imported()
    const error = await byName['admin.tools.list']!.execute({ prefix: '' }, ctx()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ToolValidationError)
    expect((error as Error).message).toMatch(/^Invalid input for tool "admin\.tools\.list":\n- prefix: /)
    await expect(byName.greet!.execute({} as never, ctx())).rejects.toThrow(/- name: /)
    expect(listTools).not.toHaveBeenCalled()
  })

  it('throws on an isError result, with the server\'s text', async () => {
    const { byName } = await imported()
    await expect(byName.broken!.execute({}, ctx())).rejects.toThrow(/^quota exceeded$/)
    await expect(byName.broken!.formatted().execute({}, ctx())).resolves.toEqual({ error: 'quota exceeded' })
  })

  it('passes the call\'s signal on, so aborting cancels the remote call', async () => {
    const { byName } = await imported()
    const controller = new AbortController()
    const running = byName.slow!.execute({}, ctx(controller.signal))
    controller.abort(new Error('user left'))
    await expect(running).rejects.toThrow('user left')
  })

  it('marks the tools needsApproval chooses', async () => {
    const { byName } = await imported({ needsApproval: (tool) => tool.annotations?.destructiveHint === true })
    expect(byName.broken!.needsApproval).toBe(true)
    expect(byName.greet!.needsApproval).toBe(false)
  })

  it('makes a tool readOnly from readOnlyHint only under trustAnnotations', async () => {
    const untrusted = await imported()
    expect(untrusted.byName['admin.tools.list']!.readOnly).toBe(false)
    const trusted = await imported({ trustAnnotations: true })
    expect(trusted.byName['admin.tools.list']!.readOnly).toBe(true)
    // A tool without the hint, or one the server says is destructive, stays as it was.
    expect(trusted.byName.greet!.readOnly).toBe(false)
    expect(trusted.byName.broken!.readOnly).toBe(false)
  })

  it('round-trips Toolgate tools served with registerMcpTools', async () => {
    const weather = toolDefinition({
      name: 'weather.get',
      description: 'Current weather',
      inputSchema: v.object({ city: v.string() }),
      outputSchema: v.object({ tempC: v.number() }),
    }).server(({ city }) => ({ tempC: city.length }))
    const server = new ToolgateMcpServer(INFO)
    await registerMcpTools(server, [weather])
    const [remote] = await mcpToolDefinitions(await connect(server))
    expect(toProviderTool(remote!, 'mcp').tool).toEqual(toProviderTool(weather, 'mcp').tool)
    expect(await remote!.execute({ city: 'Oslo' }, ctx())).toEqual({ tempC: 4 })
  })
})
