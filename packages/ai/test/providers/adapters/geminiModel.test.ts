import { describe, expect, it } from 'vitest'
import { geminiModel, ModelProviderError, providerToolName } from '@toolgate/ai/providers'
import type { ThreadMessage } from '@toolgate/ai/protocol'
import { adminList, calls, collect, modelTool, recordingFetch, text, useAimock, user, weather } from './helpers.ts'

const aimock = useAimock()
const { mock } = aimock

const ADMIN_LIST = providerToolName('admin.tools.list', 'gemini-json-schema')

function setup(options: Partial<Parameters<typeof geminiModel>[0]> = {}) {
  const recorder = recordingFetch()
  const model = geminiModel({ model: 'gemini-test', apiKey: 'AIza-test-key', baseURL: `${aimock.url}/v1beta`, fetch: recorder.fetch, ...options })
  return { model, sent: recorder.sent }
}

describe('geminiModel', () => {
  it('streams text, then the finish reason and usage, on streamGenerateContent over SSE', async () => {
    mock.addFixture({
      match: { userMessage: 'hello' },
      response: { content: 'Hello there, how can I help you?', usage: { prompt_tokens: 9, completion_tokens: 8 } },
      chunkSize: 4,
    })
    const { model, sent } = setup({ system: 'Be brief.', temperature: 0 })
    const chunks = await collect(model)

    expect(model.name).toBe('gemini-test')
    expect(text(chunks)).toBe('Hello there, how can I help you?')
    expect(chunks.filter((chunk) => chunk.type === 'text-delta').length).toBeGreaterThan(3)
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', reason: 'stop', usage: { inputTokens: 9, outputTokens: 8 } })
    expect(sent[0]!.url).toBe(`${aimock.url}/v1beta/models/gemini-test:streamGenerateContent?alt=sse`)
    expect(sent[0]!.headers).toMatchObject({ 'x-goog-api-key': 'AIza-test-key' })
    expect(sent[0]!.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'hello' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      generationConfig: { temperature: 0 },
    })
  })

  it('declares tools as functionDeclarations and maps renamed names back; parallel calls each end', async () => {
    mock.addFixture({
      match: { userMessage: 'two things' },
      response: {
        toolCalls: [
          { name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { name: ADMIN_LIST, arguments: '{"limit":2}' },
        ],
      },
    })
    const { model, sent } = setup()
    const chunks = await collect(model, { messages: [user('two things')], tools: [modelTool(weather), modelTool(adminList)] })

    expect(calls(chunks).map(({ name, args, ended }) => ({ name, args, ended }))).toEqual([
      { name: 'get_weather', args: '{"city":"Oslo"}', ended: true },
      { name: 'admin.tools.list', args: '{"limit":2}', ended: true },
    ])
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' })
    const declarations = sent[0]!.body.tools[0].functionDeclarations
    expect(declarations.map((d: { name: string }) => d.name)).toEqual(['get_weather', ADMIN_LIST])
    expect(declarations[0].parametersJsonSchema).toMatchObject({ type: 'object', properties: { city: { type: 'string' } } })
  })

  it('speaks the older `gemini` dialect (parameters in the OpenAPI subset) on request', async () => {
    mock.addFixture({ match: { userMessage: 'weather' }, response: { toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo","unit":"c"}' }] } })
    const { model, sent } = setup({ schemaDialect: 'gemini' })
    const chunks = await collect(model, { messages: [user('weather')], tools: [modelTool(weather)] })
    expect(calls(chunks)[0]).toMatchObject({ name: 'get_weather', args: '{"city":"Oslo","unit":"c"}' })
    const declaration = sent[0]!.body.tools[0].functionDeclarations[0]
    expect(declaration.parameters).toMatchObject({ type: 'OBJECT', properties: { city: { type: 'STRING' } } })
    expect(declaration).not.toHaveProperty('parametersJsonSchema')
  })

  it('sends history back as model turns and functionResponse parts, with thought signatures', async () => {
    mock.addFixture({ match: { userMessage: 'weather in Oslo' }, response: { content: 'It is 4 °C.' } })
    const { model, sent } = setup()
    const messages: ThreadMessage[] = [
      user('weather in Oslo'),
      {
        role: 'assistant',
        id: 'a1',
        content: '',
        toolCalls: [{ id: 'call_1', name: 'admin.tools.list', arguments: '{"limit":1}', providerMetadata: { gemini: { thoughtSignature: 'sig-1', id: 'g-1' } } }],
      },
      { role: 'tool', id: 't1', toolCallId: 'call_1', toolName: 'admin.tools.list', content: '{"tools":["a"]}', status: 'success' },
      { role: 'assistant', id: 'a2', content: '', toolCalls: [{ id: 'call_2', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
      { role: 'tool', id: 't2', toolCallId: 'call_2', toolName: 'get_weather', content: 'Weather service down', status: 'error' },
    ]
    await collect(model, { messages, tools: [modelTool(weather), modelTool(adminList)] })
    expect(sent[0]!.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'weather in Oslo' }] },
      { role: 'model', parts: [{ functionCall: { id: 'g-1', name: ADMIN_LIST, args: { limit: 1 } }, thoughtSignature: 'sig-1' }] },
      { role: 'user', parts: [{ functionResponse: { id: 'g-1', name: ADMIN_LIST, response: { output: { tools: ['a'] } } } }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { error: 'Weather service down' } } }] },
    ])
  })

  it('streams thoughts as reasoning and keeps them for the history', async () => {
    mock.addFixture({ match: { userMessage: 'think' }, response: { content: 'Done.', reasoning: 'Let me think this through.' } })
    const chunks = await collect(setup().model, { messages: [user('think')] })
    const reasoning = chunks.filter((chunk) => chunk.type === 'reasoning-delta').map((chunk) => (chunk as { delta: string }).delta).join('')
    expect(reasoning).toBe('Let me think this through.')
    expect(chunks).toContainEqual({ type: 'reasoning', text: 'Let me think this through.' })
    expect(text(chunks)).toBe('Done.')
  })

  it('retries a 429 and reports a 400 as a typed error with Gemini’s status', async () => {
    mock.nextRequestError(503, { message: 'The model is overloaded', type: 'UNAVAILABLE' })
    mock.onMessage('hello', { content: 'Back' })
    expect(text(await collect(setup().model))).toBe('Back')
    expect(mock.getRequests().map((entry) => entry.response.status)).toEqual([503, 200])

    mock.nextRequestError(400, { message: 'API key not valid', type: 'INVALID_ARGUMENT' })
    const error = await collect(setup().model).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ModelProviderError)
    expect(error).toMatchObject({ code: 'PROVIDER_HTTP_ERROR', provider: 'Gemini', status: 400, attempts: 1 })
  })

  it('reports a stream that ends before a finish reason', async () => {
    mock.addFixture({ match: { userMessage: 'hello' }, response: { content: 'a'.repeat(200) }, chunkSize: 2, latency: 5, disconnectAfterMs: 40 })
    await expect(collect(setup().model)).rejects.toMatchObject({ code: 'PROVIDER_STREAM_ERROR', provider: 'Gemini' })
    expect(mock.getRequests()).toHaveLength(1)
  })

  it('rejects bad options', () => {
    expect(() => geminiModel({ model: '' })).toThrow(/model/)
    expect(() => geminiModel({ model: 'g', schemaDialect: 'openapi' as never })).toThrow(/schemaDialect/)
  })
})
