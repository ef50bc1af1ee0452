import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, toolResult } from '@toolgate/ai'
import { attachmentUrl, createChatClient } from '@toolgate/ai/client'
import { createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { inProcess, toolCalls } from './helpers.ts'

const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0))

const chartDef = toolDefinition({ name: 'render_chart', description: 'Renders a chart', outputSchema: v.object({ points: v.number() }) })
const chart = chartDef.server(() =>
  toolResult({ output: { points: 2 }, content: [{ type: 'image', mediaType: 'image/png', data: PNG, filename: 'chart.png' }] }),
)
const model = scriptedModel([{ when: /chart/, call: () => ({ tool: 'render_chart', input: {} }), then: () => 'Here.' }])

describe('attachments in the browser client', () => {
  it('exposes part.output and part.attachments, live and after a reload, and the URL to load them', async () => {
    const handler = createChatHandler({ model, tools: [chart] })
    const tools = [chartDef] as const
    const client = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), tools })
    await client.send('chart please')
    const [part] = toolCalls(client.getSnapshot())
    expect(part).toMatchObject({ state: 'output-available', output: { points: 2 } })
    const attachments = part!.state === 'output-available' ? part!.attachments! : []
    expect(attachments).toEqual([{ type: 'binary', kind: 'image', mimeType: 'image/png', filename: 'chart.png', id: expect.stringMatching(/^att_/), size: PNG.byteLength }])

    const threadId = client.getSnapshot().threadId!
    const url = attachmentUrl('/chat', threadId, attachments[0]!)!
    expect(url).toBe(`/chat?threadId=${threadId}&attachmentId=${attachments[0]!.id}`)
    const response = await handler(new Request(new URL(url, 'http://test')))
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(PNG)
    expect(attachmentUrl('/chat', threadId, { type: 'binary', kind: 'file', mimeType: 'application/pdf', url: 'https://x.example/a.pdf' })).toBe('https://x.example/a.pdf')

    const reloaded = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), tools, threadId })
    await reloaded.load()
    expect(toolCalls(reloaded.getSnapshot())[0]).toMatchObject({ state: 'output-available', attachments })
  })
})
