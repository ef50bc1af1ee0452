import { describe, expect, it } from 'vitest'
import { ModelProviderError, openAIResponsesModel, providerToolName } from '@toolgate/ai/providers'
import type { ModelChunk } from '@toolgate/ai/server'
import type { ThreadMessage } from '@toolgate/ai/protocol'
import { adminList, calls, collect, modelTool, recordingFetch, text, useAimock, user, weather } from './helpers.ts'

const aimock = useAimock()
const { mock } = aimock

const ADMIN_LIST = providerToolName('admin.tools.list', 'openai-responses')

function setup(options: Partial<Parameters<typeof openAIResponsesModel>[0]> = {}) {
  const recorder = recordingFetch()
  const model = openAIResponsesModel({ model: 'gpt-test', apiKey: 'sk-test', baseURL: `${aimock.url}/v1`, fetch: recorder.fetch, ...options })
  return { model, sent: recorder.sent }
}

describe('openAIResponsesModel', () => {
  it('streams text with usage, statelessly (store: false, encrypted reasoning asked for)', async () => {
    mock.addFixture({ match: { userMessage: 'hello' }, response: { content: 'Hello there, friend!', usage: { input_tokens: 7, output_tokens: 5 } }, chunkSize: 4 })
    const { model, sent } = setup({ system: 'Be brief.' })
    const chunks = await collect(model)
    expect(text(chunks)).toBe('Hello there, friend!')
    expect(chunks.filter((chunk) => chunk.type === 'text-delta').length).toBeGreaterThan(2)
    expect(chunks.at(-1)).toEqual({ type: 'finish', reason: 'stop', usage: { inputTokens: 7, outputTokens: 5 } })
    expect(sent[0]!.url).toBe(`${aimock.url}/v1/responses`)
    expect(sent[0]!.headers).toMatchObject({ authorization: 'Bearer sk-test' })
    expect(sent[0]!.body).toEqual({
      store: false,
      include: ['reasoning.encrypted_content'],
      model: 'gpt-test',
      input: [{ role: 'user', content: 'hello' }],
      instructions: 'Be brief.',
      stream: true,
    })
  })

  it('streams parallel function calls, names mapped back, arguments in pieces; strict tools declared strict', async () => {
    mock.addFixture({
      match: { userMessage: 'two things' },
      response: {
        toolCalls: [
          { id: 'call_w', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { id: 'call_l', name: ADMIN_LIST, arguments: '{"prefix":null,"limit":2}' },
        ],
      },
      chunkSize: 3,
    })
    const { model, sent } = setup({ strict: true })
    const chunks = await collect(model, { messages: [user('two things')], tools: [modelTool(weather), modelTool(adminList)] })
    const [first, second] = calls(chunks)
    expect(first).toMatchObject({ id: 'call_w', name: 'get_weather', ended: true })
    expect(second).toMatchObject({ id: 'call_l', name: 'admin.tools.list', args: '{"limit":2}', ended: true })
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' })
    const end = chunks.find((chunk): chunk is Extract<ModelChunk, { type: 'tool-call-end' }> => chunk.type === 'tool-call-end')
    expect(end?.providerMetadata?.openai?.itemId).toMatch(/^fc/)
    expect(sent[0]!.body.tools.map((tool: { name: string; strict: boolean; type: string }) => [tool.type, tool.name, tool.strict])).toEqual([
      ['function', 'get_weather', true],
      ['function', ADMIN_LIST, true],
    ])
  })

  it('carries reasoning items (with their encrypted content) and function_call_output across turns', async () => {
    mock.addFixture({ match: { userMessage: 'think', hasToolResult: false }, response: { reasoning: 'I should check the weather.', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] } })
    const { model, sent } = setup()
    const chunks = await collect(model, { messages: [user('think')], tools: [modelTool(weather)] })
    const reasoning = chunks.find((chunk): chunk is Extract<ModelChunk, { type: 'reasoning' }> => chunk.type === 'reasoning')
    expect(chunks.filter((chunk) => chunk.type === 'reasoning-delta').map((chunk) => (chunk as { delta: string }).delta).join('')).toBe('I should check the weather.')
    expect(reasoning).toMatchObject({ text: 'I should check the weather.', providerMetadata: { openai: { itemId: expect.any(String), encryptedContent: expect.any(String) } } })

    mock.addFixture({ match: { userMessage: 'think', hasToolResult: true }, response: { content: 'It is 4 °C in Oslo.' } })
    const history: ThreadMessage[] = [
      user('think'),
      {
        role: 'assistant',
        id: 'a1',
        content: '',
        reasoning: [{ text: reasoning!.text, providerMetadata: reasoning!.providerMetadata! }],
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      },
      { role: 'tool', id: 't1', toolCallId: 'call_1', toolName: 'get_weather', content: '{"tempC":4}', status: 'success' },
    ]
    expect(text(await collect(model, { messages: history, tools: [modelTool(weather)] }))).toBe('It is 4 °C in Oslo.')
    const meta = reasoning!.providerMetadata!.openai!
    expect(sent[1]!.body.input).toEqual([
      { role: 'user', content: 'think' },
      { type: 'reasoning', id: meta.itemId, summary: [{ type: 'summary_text', text: 'I should check the weather.' }], encrypted_content: meta.encryptedContent },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '{"tempC":4}' },
    ])
  })

  it('retries a 429, never a stream that already yielded, and types its errors', async () => {
    mock.nextRequestError(429, { message: 'Slow down', type: 'rate_limit_error' })
    mock.onMessage('hello', { content: 'OK' })
    expect(text(await collect(setup().model))).toBe('OK')
    expect(mock.getRequests().map((entry) => entry.response.status)).toEqual([429, 200])

    mock.clearFixtures()
    mock.clearRequests()
    mock.addFixture({ match: { userMessage: 'hello' }, response: { content: 'a'.repeat(200) }, chunkSize: 2, latency: 5, disconnectAfterMs: 40 })
    const error = await collect(setup().model).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ModelProviderError)
    expect(error).toMatchObject({ code: 'PROVIDER_STREAM_ERROR', provider: 'OpenAI' })
    expect(mock.getRequests()).toHaveLength(1)
  })
})
