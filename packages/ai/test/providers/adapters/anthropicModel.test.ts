import { describe, expect, it } from 'vitest'
import { toolDefinition } from '@toolgate/ai'
import { anthropicModel, ModelProviderError, providerToolName, toProviderTool } from '@toolgate/ai/providers'
import type { ModelChunk } from '@toolgate/ai/server'
import type { ThreadMessage } from '@toolgate/ai/protocol'
import { adminList, calls, collect, modelTool, recordingFetch, request, text, useAimock, user, weather } from './helpers.ts'

const aimock = useAimock()
const { mock } = aimock

const ADMIN_LIST = providerToolName('admin.tools.list', 'anthropic')

/** aimock journals Anthropic requests translated to OpenAI's shape, so the bodies are read as sent. */
function setup(options: Partial<Parameters<typeof anthropicModel>[0]> = {}) {
  const recorder = recordingFetch()
  const model = anthropicModel({ model: 'claude-test', apiKey: 'sk-ant-test', baseURL: aimock.url, fetch: recorder.fetch, ...options })
  return { model, sent: recorder.sent }
}

describe('anthropicModel', () => {
  it('streams text in deltas, then the stop reason and usage', async () => {
    mock.addFixture({
      match: { userMessage: 'hello' },
      response: { content: 'Hello there, how can I help you?', usage: { input_tokens: 9, output_tokens: 8 } },
      chunkSize: 4,
    })
    const { model, sent } = setup({ system: 'Be brief.', temperature: 0 })
    const chunks = await collect(model)

    expect(model.name).toBe('claude-test')
    expect(text(chunks)).toBe('Hello there, how can I help you?')
    expect(chunks.filter((chunk) => chunk.type === 'text-delta').length).toBeGreaterThan(3)
    expect(chunks.at(-1)).toEqual({ type: 'finish', reason: 'stop', usage: { inputTokens: 9, outputTokens: 8 } })
    expect(sent).toHaveLength(1)
    expect(sent[0]!.url).toBe(`${aimock.url}/v1/messages`)
    expect(sent[0]!.headers).toMatchObject({ 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' })
    expect(sent[0]!.headers).not.toHaveProperty('anthropic-beta')
    expect(sent[0]!.body).toEqual({
      model: 'claude-test',
      max_tokens: 4096,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
      temperature: 0,
      stream: true,
    })
    expect(mock.getRequests()[0]!.response.status).toBe(200)
  })

  it('streams a tool call: the name at once, then the arguments in pieces', async () => {
    mock.addFixture({
      match: { userMessage: 'weather in Paris' },
      response: { toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris","unit":"c"}' }] },
      chunkSize: 5,
    })
    const { model, sent } = setup({ maxTokens: 512 })
    const chunks = await collect(model, { messages: [user('weather in Paris')], tools: [modelTool(weather)] })

    expect(chunks[0]).toEqual({ type: 'tool-call-start', toolCallId: 'toolu_1', toolName: 'get_weather' })
    expect(calls(chunks)).toEqual([{ id: 'toolu_1', name: 'get_weather', args: '{"city":"Paris","unit":"c"}', deltas: 6, ended: true }])
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' })
    expect(sent[0]!.body.max_tokens).toBe(512)
    expect(sent[0]!.body.tools).toEqual([toProviderTool(weather, 'anthropic').tool])
    expect(sent[0]!.body.tools[0]).toEqual({ name: 'get_weather', description: 'Current weather in a city', input_schema: expect.objectContaining({ type: 'object' }) })
  })

  it('streams parallel tool calls apart, after the text before them', async () => {
    mock.addFixture({
      match: { userMessage: 'compare' },
      response: {
        content: 'Checking both.',
        toolCalls: [
          { id: 'toolu_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'toolu_b', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
      },
      chunkSize: 6,
    })
    const chunks = await collect(setup().model, { messages: [user('compare')], tools: [modelTool(weather)] })

    expect(text(chunks)).toBe('Checking both.')
    expect(calls(chunks).map(({ id, name, args, ended }) => ({ id, name, args, ended }))).toEqual([
      { id: 'toolu_a', name: 'get_weather', args: '{"city":"Paris"}', ended: true },
      { id: 'toolu_b', name: 'get_weather', args: '{"city":"Oslo"}', ended: true },
    ])
    // Anthropic closes each tool_use block, so the first call ends before the second starts.
    const types = chunks.filter((chunk) => chunk.type.startsWith('tool-call-') && chunk.type !== 'tool-call-delta').map((chunk) => chunk.type)
    expect(types).toEqual(['tool-call-start', 'tool-call-end', 'tool-call-start', 'tool-call-end'])
  })

  it("sends calls and their results back as Anthropic's blocks, under Anthropic's names", async () => {
    mock.addFixture({ match: { toolCallId: 'toolu_2' }, response: { content: 'It is 18°C in Paris.' } })
    const history: ThreadMessage[] = [
      user('weather in Paris, and the admin tools?'),
      {
        role: 'assistant',
        id: 'a1',
        content: 'Let me look.',
        toolCalls: [
          { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'toolu_2', name: 'admin.tools.list', arguments: '{"limit":1}' },
        ],
      },
      { role: 'tool', id: 't1', toolCallId: 'toolu_1', toolName: 'get_weather', content: '{"tempC":18}', status: 'success', output: { tempC: 18 } },
      { role: 'tool', id: 't2', toolCallId: 'toolu_2', toolName: 'admin.tools.list', content: 'Denied by the user', status: 'denied' },
    ]
    const { model, sent } = setup()
    expect(text(await collect(model, { messages: history, tools: [modelTool(weather), modelTool(adminList)] }))).toBe('It is 18°C in Paris.')

    expect(sent[0]!.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'weather in Paris, and the admin tools?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: ADMIN_LIST, input: { limit: 1 } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"tempC":18}' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'Denied by the user', is_error: true },
        ],
      },
    ])
    expect(sent[0]!.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['get_weather', ADMIN_LIST])
  })

  it('declares strict tools with the beta header; a renamed tool keeps streaming its arguments', async () => {
    mock.addFixture({
      match: { userMessage: 'list' },
      response: { toolCalls: [{ id: 'toolu_1', name: ADMIN_LIST, arguments: '{"limit":5,"prefix":"user"}' }] },
      chunkSize: 4,
    })
    const { model, sent } = setup({ strict: true, headers: { 'anthropic-beta': 'other-beta-2025-01-01' } })
    const chunks = await collect(model, { messages: [user('list')], tools: [modelTool(adminList)] })

    // Anthropic's strict mode keeps optional properties optional: the shape is the tool's own.
    const [call] = calls(chunks)
    expect(call).toMatchObject({ id: 'toolu_1', name: 'admin.tools.list', args: '{"limit":5,"prefix":"user"}', ended: true })
    expect(call!.deltas).toBeGreaterThan(3)
    expect(sent[0]!.body.tools).toEqual([toProviderTool(adminList, 'anthropic', { strict: true }).tool])
    expect(sent[0]!.body.tools[0]).toMatchObject({ name: ADMIN_LIST, strict: true, input_schema: { required: ['limit'] } })
    expect(sent[0]!.headers['anthropic-beta']).toBe('other-beta-2025-01-01,structured-outputs-2025-11-13')
  })

  it('maps renamed properties back, sending the call once it is complete', async () => {
    const profile = toolDefinition({
      name: 'set_profile',
      description: 'Sets the profile',
      inputSchema: { type: 'object', properties: { 'display name': { type: 'string' } }, required: ['display name'] },
    })
    const declared = toProviderTool(profile, 'anthropic', { strict: true }).tool
    expect(Object.keys(declared.input_schema.properties as object)).toEqual(['display_name'])
    mock.addFixture({
      match: { userMessage: 'rename me' },
      response: { toolCalls: [{ id: 'toolu_1', name: 'set_profile', arguments: '{"display_name":"Ada Lovelace"}' }] },
      chunkSize: 4,
    })
    const chunks = await collect(setup({ strict: true }).model, { messages: [user('rename me')], tools: [modelTool(profile)] })
    expect(calls(chunks)).toEqual([{ id: 'toolu_1', name: 'set_profile', args: '{"display name":"Ada Lovelace"}', deltas: 1, ended: true }])
  })

  it('maps the stop reason', async () => {
    mock.onMessage('long', { content: 'It was a dark and', finishReason: 'length' })
    expect((await collect(setup().model, { messages: [user('long')] })).at(-1)).toMatchObject({ type: 'finish', reason: 'length' })
  })

  it('turns an HTTP error into a ModelProviderError with the provider’s message', async () => {
    mock.nextRequestError(529, { message: 'Overloaded', type: 'overloaded_error' })
    const error = await collect(setup({ maxRetries: 0 }).model).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ModelProviderError)
    expect(error).toMatchObject({ code: 'PROVIDER_HTTP_ERROR', provider: 'Anthropic', status: 529, type: 'overloaded_error', attempts: 1 })
    expect((error as Error).message).toMatch(/^Anthropic answered 529: Overloaded/)
  })

  it('retries an overloaded API (529) and then streams the answer', async () => {
    mock.nextRequestError(529, { message: 'Overloaded', type: 'overloaded_error' })
    mock.onMessage('hello', { content: 'Back again' })
    const chunks = await collect(setup().model)
    expect(text(chunks)).toBe('Back again')
    expect(mock.getRequests().map((entry) => entry.response.status)).toEqual([529, 200])
  })

  it('reports a connection that breaks mid-stream', async () => {
    mock.addFixture({ match: { userMessage: 'hello' }, response: { content: 'a'.repeat(200) }, chunkSize: 2, latency: 5, disconnectAfterMs: 40 })
    await expect(collect(setup().model)).rejects.toMatchObject({ code: 'PROVIDER_STREAM_ERROR', message: expect.stringMatching(/^Anthropic stream broke/) })
  })

  it('stops streaming when the signal aborts, and aborts the request', async () => {
    mock.addFixture({ match: { userMessage: 'hello' }, response: { content: 'word '.repeat(200) }, chunkSize: 5, latency: 5 })
    const controller = new AbortController()
    const { model, sent } = setup()
    const chunks: ModelChunk[] = []
    const error = await (async () => {
      for await (const chunk of model.stream(request({ signal: controller.signal }))) {
        chunks.push(chunk)
        controller.abort()
      }
    })().catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'AbortError' })
    expect(chunks).toHaveLength(1)
    expect(sent[0]!.signal?.aborted).toBe(true)
  })

  it('refuses options without a model, or a bad maxTokens', () => {
    expect(() => anthropicModel({} as never)).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', option: 'model' }))
    expect(() => anthropicModel({ model: 'claude-test', maxTokens: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', option: 'maxTokens' }))
  })

  it('streams extended thinking as reasoning and sends the signed blocks back before the tool use', async () => {
    mock.addFixture({
      match: { userMessage: 'think', hasToolResult: false },
      response: {
        reasoning: 'The user wants the weather.',
        reasoningSignature: 'sig-abc',
        redactedThinking: ['opaque-1'],
        toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      },
    })
    const { model, sent } = setup({ thinking: { budgetTokens: 2048 } })
    const chunks = await collect(model, { messages: [user('think')], tools: [modelTool(weather)] })
    const reasoning = chunks.filter((chunk): chunk is Extract<ModelChunk, { type: 'reasoning' }> => chunk.type === 'reasoning')
    expect(chunks.filter((chunk) => chunk.type === 'reasoning-delta').map((chunk) => (chunk as { delta: string }).delta).join('')).toBe('The user wants the weather.')
    expect(reasoning).toContainEqual({ type: 'reasoning', text: 'The user wants the weather.', providerMetadata: { anthropic: { signature: 'sig-abc' } } })
    expect(reasoning).toContainEqual({ type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: 'opaque-1' } } })
    expect(sent[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 })

    mock.addFixture({ match: { userMessage: 'think', hasToolResult: true }, response: { content: 'Cold.' } })
    const history: ThreadMessage[] = [
      user('think'),
      {
        role: 'assistant',
        id: 'a1',
        content: '',
        reasoning: reasoning.map(({ text, providerMetadata }) => ({ text, providerMetadata: providerMetadata! })),
        toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      },
      { role: 'tool', id: 't1', toolCallId: 'toolu_1', toolName: 'get_weather', content: '{"tempC":-2}', status: 'success' },
    ]
    expect(text(await collect(model, { messages: history, tools: [modelTool(weather)] }))).toBe('Cold.')
    const assistant = sent[1]!.body.messages[1]
    expect(assistant.content.filter((block: { type: string }) => block.type !== 'tool_use')).toEqual(
      expect.arrayContaining([
        { type: 'thinking', thinking: 'The user wants the weather.', signature: 'sig-abc' },
        { type: 'redacted_thinking', data: 'opaque-1' },
      ]),
    )
    expect(assistant.content.at(-1)).toMatchObject({ type: 'tool_use', id: 'toolu_1' })
    expect(() => anthropicModel({ model: 'c', thinking: { budgetTokens: 10 } })).toThrow(/budgetTokens/)
  })
})
