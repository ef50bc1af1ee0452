import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, toolResult, ToolgateError, ToolValidationError } from '@toolgate/ai'
import { type ChatModel, memoryAttachmentStore, type ModelRequest } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { type ThreadAttachment } from '@toolgate/ai/protocol'
import { closeAll, startServer } from './helpers/server.ts'

afterEach(closeAll)

// A real 1×1 PNG.
const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0))

const chart = toolDefinition({
  name: 'render_chart',
  description: 'Renders a chart of the numbers',
  inputSchema: v.object({ numbers: v.array(v.number()) }),
  outputSchema: v.object({ points: v.number() }),
})

const chartTool = chart.server(({ numbers }) =>
  toolResult({
    output: { points: numbers.length },
    content: [
      { type: 'image', mediaType: 'image/png', data: PNG, filename: 'chart.png' },
      { type: 'text', text: 'The chart shows a rising line.' },
      { type: 'file', mediaType: 'text/csv', data: btoa('x,y\n1,2\n'), filename: 'data.csv' },
      { type: 'image', mediaType: 'image/svg+xml', url: 'https://charts.example/c.svg' },
    ],
  }),
)

function recording(): { model: ChatModel; requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  const inner = scriptedModel([{ when: /chart/, call: () => ({ tool: 'render_chart', input: { numbers: [1, 2, 3] } }), then: () => 'Here it is.' }])
  return { requests, model: { stream: (request) => (requests.push(request), inner.stream(request)) } }
}

describe('tool results with files', () => {
  it('stores files once, streams and keeps references, and tells the model what is attached', async () => {
    const { model, requests } = recording()
    const server = await startServer({ model, tools: [chartTool] })
    const turn = await server.send('chart please')
    const result = turn.results[0]!
    const attachments = result.metadata.attachments as ThreadAttachment[]
    expect(result.metadata.output).toEqual({ points: 3 })
    expect(attachments).toEqual([
      { type: 'binary', kind: 'image', mimeType: 'image/png', filename: 'chart.png', id: expect.stringMatching(/^att_/), size: PNG.byteLength },
      { type: 'binary', kind: 'file', mimeType: 'text/csv', filename: 'data.csv', id: expect.stringMatching(/^att_/), size: 8 },
      { type: 'binary', kind: 'image', mimeType: 'image/svg+xml', url: 'https://charts.example/c.svg' },
    ])
    expect(result.content).toBe(
      [
        '{"points":3}',
        'The chart shows a rising line.',
        `[image attached: chart.png (image/png, ${PNG.byteLength} B); the user can see it]`,
        '[file attached: data.csv (text/csv, 8 B); the user can see it]',
        '[image attached: https://charts.example/c.svg (image/svg+xml); the user can see it]',
      ].join('\n'),
    )
    // The model's next request reads the same text; the thread holds references, not bytes.
    const tool = requests[1]!.messages.find((message) => message.role === 'tool')
    expect(tool).toMatchObject({ content: result.content, attachments })
    const snapshot = await server.get(turn.threadId)
    expect(snapshot.messages.find((message) => message.role === 'tool')).toMatchObject({ attachments })

    const image = await fetch(`${server.url}?threadId=${turn.threadId}&attachmentId=${attachments[0]!.id}`)
    expect(image.status).toBe(200)
    expect(image.headers.get('content-type')).toBe('image/png')
    expect(image.headers.get('x-content-type-options')).toBe('nosniff')
    expect(image.headers.get('content-disposition')).toBe('inline; filename="chart.png"')
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(PNG)
    const csv = await fetch(`${server.url}?threadId=${turn.threadId}&attachmentId=${attachments[1]!.id}`)
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="data.csv"')
    expect(await csv.text()).toBe('x,y\n1,2\n')
  })

  it('serves attachments only to readers of their thread', async () => {
    const { model } = recording()
    const store = memoryAttachmentStore()
    const server = await startServer({ model, tools: [chartTool], attachments: store, authorize: (request) => request.headers.get('x-user') === 'ada' })
    const turn = await server.send('chart please', undefined, { 'x-user': 'ada' })
    const id = (turn.results[0]!.metadata.attachments as ThreadAttachment[])[0]!.id!
    const url = `${server.url}?threadId=${turn.threadId}&attachmentId=${id}`
    expect((await fetch(url, { headers: { 'x-user': 'eve' } })).status).toBe(403)
    const missing = await fetch(`${server.url}?threadId=${turn.threadId}&attachmentId=att_nope`, { headers: { 'x-user': 'ada' } })
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ error: { code: 'ATTACHMENT_NOT_FOUND' } })
    // The same id under another thread is not found either.
    expect((await store.get('thread_other', id))).toBeUndefined()
  })

  it('fails the call with a clear error, storing nothing, when its files are over the limit', async () => {
    const { model } = recording()
    const memory = memoryAttachmentStore()
    let puts = 0
    const attachments = { put: (...args: Parameters<typeof memory.put>) => (puts++, memory.put(...args)), get: memory.get }
    const server = await startServer({ model, tools: [chartTool], attachments, limits: { maxAttachmentBytes: 10 } })
    const turn = await server.send('chart please')
    expect(turn.results[0]).toMatchObject({
      metadata: { status: 'error' },
      content: `Tool "render_chart" failed: returned files of ${PNG.byteLength + 8} bytes in all; one result may carry at most 10 bytes (limits.maxAttachmentBytes)`,
    })
    expect(puts).toBe(0)
  })

  it('validates the output inside a toolResult, and the parts themselves', async () => {
    const bad = chart.server(() => toolResult({ output: { points: 'three' } as never, content: [] }))
    await expect(bad.execute({ numbers: [] })).rejects.toThrow(ToolValidationError)
    expect(await chartTool.execute({ numbers: [1] })).toMatchObject({ output: { points: 1 }, content: expect.any(Array) })
    expect(() => toolResult({ content: [{ type: 'image', mediaType: 'text/plain', data: PNG }] })).toThrow('toolResult(): `content[0]` is an image with media type text/plain')
    expect(() => toolResult({ content: [{ type: 'file', mediaType: 'application/pdf' } as never] })).toThrow(ToolgateError)
    expect(() => toolResult({ content: [{ type: 'image', mediaType: 'image/png', url: 'javascript:alert(1)' }] })).toThrow('needs an http(s) `url`')
  })

  it('keeps the files when a toolOutput middleware replaces the output', async () => {
    const { model } = recording()
    const server = await startServer({ model, tools: [chartTool], middleware: [{ toolOutput: () => ({ points: 0 }) }] })
    const turn = await server.send('chart please')
    expect(turn.results[0]!.metadata.output).toEqual({ points: 0 })
    expect(turn.results[0]!.metadata.attachments).toHaveLength(3)
    expect(turn.results[0]!.content).toMatch(/^\{"points":0\}\n\[image attached: chart\.png/)
  })
})

describe('ModelRequest.loadAttachment', () => {
  it('gives a model adapter the bytes of the thread’s stored files', async () => {
    const loaded: unknown[] = []
    const inner = scriptedModel([{ when: /chart/, call: () => ({ tool: 'render_chart', input: { numbers: [1] } }), then: () => 'Done.' }])
    const model: ChatModel = {
      async *stream(request) {
        for (const message of request.messages) {
          if (message.role !== 'tool') continue
          for (const attachment of message.attachments ?? []) loaded.push(await request.loadAttachment?.(attachment))
        }
        yield* inner.stream(request)
      },
    }
    const server = await startServer({ model, tools: [chartTool] })
    await server.send('chart please')
    expect(loaded[0]).toMatchObject({ mediaType: 'image/png', data: PNG, filename: 'chart.png' })
    expect(loaded[2]).toBeUndefined() // a URL: nothing stored to load
  })
})
