import { afterEach, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer as ToolgateMcpServer } from '@modelcontextprotocol/server'
import * as v from 'valibot'
import { toolDefinition, toolResult } from '@toolgate/ai'
import { isToolContentResult } from '../../src/tools/toolResult.ts'
import { mcpToolDefinitions, registerMcpTools } from '@toolgate/ai/interop/mcp'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { type ThreadAttachment } from '@toolgate/ai/protocol'
import { closeAll, startServer } from '../server/helpers/server.ts'

afterEach(closeAll)

const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

const chart = toolDefinition({
  name: 'render_chart',
  description: 'Renders a chart',
  inputSchema: v.object({ title: v.string() }),
}).server(({ title }) =>
  toolResult({
    output: { title },
    content: [
      { type: 'image', mediaType: 'image/png', data: PNG_BASE64, filename: 'chart.png' },
      { type: 'file', mediaType: 'text/csv', data: new TextEncoder().encode('a,b\n'), filename: 'data.csv' },
      { type: 'file', mediaType: 'application/pdf', url: 'https://reports.example/q3.pdf', filename: 'q3.pdf' },
    ],
  }),
)

async function connect() {
  const server = new ToolgateMcpServer({ name: 'charts', version: '1.0.0' })
  await registerMcpTools(server, [chart])
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  const client = new Client({ name: 'test', version: '1.0.0' })
  // The 1.x client (what mcpToolDefinitions takes) and the 2.x server share the Transport contract.
  await Promise.all([server.connect(serverTransport as never), client.connect(clientTransport)])
  return client
}

describe('MCP content blocks', () => {
  it('serves a toolResult as image, embedded resource and resource link blocks', async () => {
    const client = await connect()
    const result = await client.callTool({ name: 'render_chart', arguments: { title: 'Q3' } })
    expect(result.content).toEqual([
      { type: 'text', text: '{"title":"Q3"}' },
      { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'attachment:///data.csv', mimeType: 'text/csv', blob: btoa('a,b\n') } },
      { type: 'resource_link', uri: 'https://reports.example/q3.pdf', name: 'q3.pdf', mimeType: 'application/pdf' },
    ])
  })

  it('imports blocks back as a toolResult, which the chat handler stores as attachments', async () => {
    const [imported] = await mcpToolDefinitions(await connect())
    const value = await imported!.execute({ title: 'Q3' })
    expect(isToolContentResult(value)).toBe(true)
    expect(value).toMatchObject({
      output: '{"title":"Q3"}',
      content: [
        { type: 'image', mediaType: 'image/png', data: PNG_BASE64 },
        { type: 'file', mediaType: 'text/csv', data: btoa('a,b\n'), filename: 'data.csv' },
        { type: 'file', mediaType: 'application/pdf', url: 'https://reports.example/q3.pdf', filename: 'q3.pdf' },
      ],
    })

    const model = scriptedModel([{ when: /chart/, call: () => ({ tool: 'render_chart', input: { title: 'Q3' } }), then: () => 'Done.' }])
    const server = await startServer({ model, tools: [imported!] })
    const turn = await server.send('chart please')
    const attachments = turn.results[0]!.metadata.attachments as ThreadAttachment[]
    expect(attachments.map((attachment) => attachment.mimeType)).toEqual(['image/png', 'text/csv', 'application/pdf'])
    const image = await fetch(`${server.url}?threadId=${turn.threadId}&attachmentId=${attachments[0]!.id}`)
    expect(Buffer.from(await image.arrayBuffer()).toString('base64')).toBe(PNG_BASE64)
  })
})
