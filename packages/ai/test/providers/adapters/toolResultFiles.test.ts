import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, toolResult } from '@toolgate/ai'
import { anthropicModel, geminiModel, openAIChatModel, openAIResponsesModel } from '@toolgate/ai/providers'
import { memoryAttachmentStore, type AttachmentStore, type ChatModel } from '@toolgate/ai/server'
import { closeAll, startServer } from '../../server/helpers/server.ts'
import { recordingFetch, useAimock } from './helpers.ts'

// Files a tool returns reach the model the way each API takes them, checked on the request each
// adapter really sends to a server speaking the provider's wire format.

afterEach(closeAll)

const aimock = useAimock()
const { mock } = aimock

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3])
const PNG_BASE64 = Buffer.from(PNG).toString('base64')
const PDF = new TextEncoder().encode('%PDF-1.4 a report')
const PDF_BASE64 = Buffer.from(PDF).toString('base64')

/** A chart as a PNG, a report as a PDF, and an SVG no provider takes in a tool result. */
const chart = toolDefinition({
  name: 'chart',
  description: 'Charts the temperatures',
  inputSchema: v.object({ city: v.string() }),
  outputSchema: v.object({ points: v.number() }),
}).server(async () =>
  toolResult({
    output: { points: 3 },
    content: [
      { type: 'image', mediaType: 'image/png', filename: 'chart.png', data: PNG },
      { type: 'file', mediaType: 'application/pdf', filename: 'report.pdf', data: PDF_BASE64 },
      { type: 'image', mediaType: 'image/svg+xml', filename: 'chart.svg', data: new TextEncoder().encode('<svg/>') },
    ],
  }),
)

const LINES = [
  '{"points":3}',
  '[image attached: chart.png (image/png, 15 B); the user can see it]',
  '[file attached: report.pdf (application/pdf, 17 B); the user can see it]',
  '[image attached: chart.svg (image/svg+xml, 6 B); the user can see it]',
].join('\n')

function scriptTurn(): void {
  mock.addFixture({ match: { userMessage: 'chart Paris', hasToolResult: false }, response: { toolCalls: [{ id: 'call_chart', name: 'chart', arguments: '{"city":"Paris"}' }] } })
  mock.addFixture({ match: { userMessage: 'chart Paris', hasToolResult: true }, response: { content: 'Here is the chart.' } })
}

/** Runs one turn with the chart tool and returns the body of the second model request (the one with the result). */
async function secondRequest(model: (fetch: typeof globalThis.fetch) => ChatModel, attachments?: AttachmentStore): Promise<any> {
  scriptTurn()
  const recorder = recordingFetch()
  const server = await startServer({ model: model(recorder.fetch as typeof fetch), tools: [chart], ...(attachments ? { attachments } : {}) })
  const turn = await server.send('chart Paris')
  expect(turn.finished?.outcome).toEqual({ type: 'success' })
  expect(turn.text).toBe('Here is the chart.')
  expect(recorder.sent).toHaveLength(2)
  return recorder.sent[1]!.body
}

describe('files in tool results, per provider', () => {
  it('Anthropic: image and document blocks inside the tool_result, the SVG only as its line', async () => {
    const body = await secondRequest((fetch) => anthropicModel({ model: 'claude-test', baseURL: aimock.url, fetch }))
    const result = body.messages.at(-1).content[0]
    expect(result).toEqual({
      type: 'tool_result',
      tool_use_id: 'call_chart',
      content: [
        { type: 'text', text: LINES },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF_BASE64 }, title: 'report.pdf' },
      ],
    })
  })

  it('OpenAI Responses: input_image and input_file items in the function_call_output', async () => {
    const body = await secondRequest((fetch) => openAIResponsesModel({ model: 'gpt-test', baseURL: `${aimock.url}/v1`, fetch }))
    expect(body.input.at(-1)).toEqual({
      type: 'function_call_output',
      call_id: 'call_chart',
      output: [
        { type: 'input_text', text: LINES },
        { type: 'input_image', image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'auto' },
        { type: 'input_file', file_data: `data:application/pdf;base64,${PDF_BASE64}`, filename: 'report.pdf' },
      ],
    })
  })

  it('Gemini: inlineData parts of the functionResponse', async () => {
    const body = await secondRequest((fetch) => geminiModel({ model: 'gemini-test', baseURL: `${aimock.url}/v1beta`, fetch }))
    expect(body.contents.at(-1)).toEqual({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'call_chart',
            name: 'chart',
            response: { output: LINES },
            parts: [
              { inlineData: { mimeType: 'image/png', data: PNG_BASE64, displayName: 'chart.png' } },
              { inlineData: { mimeType: 'application/pdf', data: PDF_BASE64, displayName: 'report.pdf' } },
            ],
          },
        },
      ],
    })
  })

  it('OpenAI Chat Completions, whose tool messages take only text: the lines describing the files', async () => {
    const body = await secondRequest((fetch) => openAIChatModel({ model: 'gpt-test', baseURL: `${aimock.url}/v1`, fetch }))
    expect(body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_chart', content: LINES })
  })

  it('sends only the lines when `toolResultFiles: false` (servers that take text only)', async () => {
    const body = await secondRequest((fetch) => openAIResponsesModel({ model: 'gpt-test', baseURL: `${aimock.url}/v1`, fetch, toolResultFiles: false }))
    expect(body.input.at(-1)).toEqual({ type: 'function_call_output', call_id: 'call_chart', output: LINES })
  })

  it('sends only the lines of files whose bytes are gone from the attachment store', async () => {
    const store = memoryAttachmentStore()
    const forgetful: AttachmentStore = { put: (...args) => store.put(...args), get: async () => undefined }
    const body = await secondRequest((fetch) => anthropicModel({ model: 'claude-test', baseURL: aimock.url, fetch }), forgetful)
    expect(body.messages.at(-1).content[0].content).toBe(LINES)
  })
})
