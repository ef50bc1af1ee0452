import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { InvalidOptionError, toolDefinition } from '@toolgate/ai'
import { ModelProviderError, openAIChatModel, providerToolName, toProviderTool } from '@toolgate/ai/providers'
import type { ModelChunk } from '@toolgate/ai/server'
import type { ThreadMessage } from '@toolgate/ai/protocol'
import { adminList, calls, collect, journaledBodies, modelTool, recordingFetch, request, text, useAimock, user, weather } from './helpers.ts'

const aimock = useAimock()
const { mock } = aimock

const lookup = toolDefinition({
  name: 'lookup',
  description: 'Looks a word up',
  inputSchema: v.object({ word: v.string(), language: v.string() }),
})
const ADMIN_LIST = providerToolName('admin.tools.list', 'openai-chat')

const model = (options: Partial<Parameters<typeof openAIChatModel>[0]> = {}) =>
  openAIChatModel({ model: 'gpt-test', apiKey: 'sk-test', baseURL: `${aimock.url}/v1`, ...options })

describe('openAIChatModel', () => {
  it('streams text in deltas, then the finish reason and usage', async () => {
    mock.addFixture({
      match: { userMessage: 'hello' },
      response: { content: 'Hello there, how can I help you?', usage: { prompt_tokens: 11, completion_tokens: 7 } },
      chunkSize: 4,
    })
    const recorder = recordingFetch()
    const chunks = await collect(model({ system: 'Be brief.', temperature: 0.2, fetch: recorder.fetch }))

    expect(text(chunks)).toBe('Hello there, how can I help you?')
    expect(chunks.filter((chunk) => chunk.type === 'text-delta').length).toBeGreaterThan(3)
    expect(chunks.at(-1)).toEqual({ type: 'finish', reason: 'stop', usage: { inputTokens: 11, outputTokens: 7 } })
    expect(journaledBodies(mock)).toEqual([
      {
        model: 'gpt-test',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hello' },
        ],
        temperature: 0.2,
        stream: true,
        stream_options: { include_usage: true },
      },
    ])
    expect(mock.getRequests()[0]!.path).toBe('/v1/chat/completions')
    expect(recorder.sent[0]!.headers).toMatchObject({ authorization: 'Bearer sk-test', 'content-type': 'application/json' })
  })

  it('sends extra headers and body fields through the given fetch, and names itself after the model', async () => {
    mock.onMessage('hello', { content: 'Hi' })
    const recorder = recordingFetch()
    const chat = model({ apiKey: undefined, headers: { 'OpenAI-Organization': 'org_1' }, body: { parallel_tool_calls: false }, fetch: recorder.fetch })
    expect(chat.name).toBe('gpt-test')
    expect(text(await collect(chat))).toBe('Hi')
    expect(recorder.sent).toHaveLength(1)
    expect(recorder.sent[0]!.url).toBe(`${aimock.url}/v1/chat/completions`)
    expect(recorder.sent[0]!.headers).toMatchObject({ 'openai-organization': 'org_1' })
    expect(recorder.sent[0]!.headers).not.toHaveProperty('authorization')
    expect(recorder.sent[0]!.body).toMatchObject({ parallel_tool_calls: false, stream: true })
  })

  it('lets a header the app gives replace its own, whatever the case of its name', async () => {
    mock.onMessage('hello', { content: 'Hi' })
    const recorder = recordingFetch()
    await collect(model({ headers: { Authorization: 'Bearer proxy-token' }, fetch: recorder.fetch }))
    const headers = new Headers(recorder.sent[0]!.headers)
    expect(headers.get('authorization')).toBe('Bearer proxy-token')
  })

  it('streams a tool call: the name at once, then the arguments in pieces', async () => {
    mock.addFixture({
      match: { userMessage: 'weather in Paris' },
      response: { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","unit":"c"}' }] },
      chunkSize: 5,
    })
    const chunks = await collect(model(), { messages: [user('weather in Paris')], tools: [modelTool(weather)] })

    expect(chunks[0]).toEqual({ type: 'tool-call-start', toolCallId: 'call_1', toolName: 'get_weather' })
    expect(calls(chunks)).toEqual([{ id: 'call_1', name: 'get_weather', args: '{"city":"Paris","unit":"c"}', deltas: 6, ended: true }])
    expect(chunks.at(-2)).toEqual({ type: 'tool-call-end', toolCallId: 'call_1' })
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' })
    const [body] = journaledBodies(mock)
    expect(body.tools).toEqual([toProviderTool(weather, 'openai-chat').tool])
    expect(body.tools[0]).toMatchObject({ type: 'function', function: { name: 'get_weather', strict: false } })
  })

  it('streams parallel tool calls apart, after the text before them', async () => {
    mock.addFixture({
      match: { userMessage: 'compare' },
      response: {
        content: 'Checking both.',
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_b', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
      },
      chunkSize: 6,
    })
    const chunks = await collect(model(), { messages: [user('compare')], tools: [modelTool(weather)] })

    expect(text(chunks)).toBe('Checking both.')
    expect(chunks.findIndex((chunk) => chunk.type === 'tool-call-start')).toBeGreaterThan(chunks.findLastIndex((chunk) => chunk.type === 'text-delta'))
    expect(calls(chunks).map(({ id, name, args, ended }) => ({ id, name, args, ended }))).toEqual([
      { id: 'call_a', name: 'get_weather', args: '{"city":"Paris"}', ended: true },
      { id: 'call_b', name: 'get_weather', args: '{"city":"Oslo"}', ended: true },
    ])
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' })
  })

  it("sends calls and their results back in OpenAI's shape, under OpenAI's names", async () => {
    mock.addFixture({ match: { toolCallId: 'call_2' }, response: { content: 'It is 18°C in Paris.' } })
    const history: ThreadMessage[] = [
      user('weather in Paris, and the admin tools?'),
      {
        role: 'assistant',
        id: 'a1',
        content: '',
        toolCalls: [
          { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_2', name: 'admin.tools.list', arguments: '{"limit":1}' },
        ],
      },
      { role: 'tool', id: 't1', toolCallId: 'call_1', toolName: 'get_weather', content: '{"tempC":18}', status: 'success', output: { tempC: 18 } },
      { role: 'tool', id: 't2', toolCallId: 'call_2', toolName: 'admin.tools.list', content: 'Denied by the user', status: 'denied' },
    ]
    const chunks = await collect(model(), { messages: history, tools: [modelTool(weather), modelTool(adminList)] })

    expect(text(chunks)).toBe('It is 18°C in Paris.')
    const [body] = journaledBodies(mock)
    expect(body.messages).toEqual([
      { role: 'user', content: 'weather in Paris, and the admin tools?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: ADMIN_LIST, arguments: '{"limit":1}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"tempC":18}' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Denied by the user' },
    ])
    expect(body.tools.map((tool: any) => tool.function.name)).toEqual(['get_weather', ADMIN_LIST])
  })

  it('keeps the text of an assistant message that also called tools', async () => {
    mock.addFixture({ match: { toolCallId: 'call_1' }, response: { content: 'Done.' } })
    await collect(model(), {
      messages: [
        user('go'),
        { role: 'assistant', id: 'a1', content: 'Let me check.', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Rome"}' }] },
        { role: 'tool', id: 't1', toolCallId: 'call_1', toolName: 'get_weather', content: '{"tempC":24}', status: 'success' },
      ],
      tools: [modelTool(weather)],
    })
    expect(journaledBodies(mock)[0].messages[1]).toMatchObject({ role: 'assistant', content: 'Let me check.' })
  })

  describe('strict mode', () => {
    it('declares strict schemas under names OpenAI accepts', async () => {
      mock.onMessage('hello', { content: 'Hi' })
      await collect(model({ strict: true }), { tools: [modelTool(adminList), modelTool(lookup)] })
      const [body] = journaledBodies(mock)
      expect(body.tools).toEqual([toProviderTool(adminList, 'openai-chat', { strict: true }).tool, toProviderTool(lookup, 'openai-chat', { strict: true }).tool])
      expect(body.tools[0].function).toMatchObject({
        name: ADMIN_LIST,
        strict: true,
        parameters: { type: 'object', required: ['prefix', 'limit'], additionalProperties: false },
      })
      expect(ADMIN_LIST).toMatch(/^admin_tools_list_\w{7}$/)
    })

    it('maps a call back to the tool’s name and shape: the null strict mode forced on an optional property becomes absence', async () => {
      mock.addFixture({
        match: { userMessage: 'list' },
        response: { toolCalls: [{ id: 'call_1', name: ADMIN_LIST, arguments: '{"prefix":null,"limit":5}' }] },
        chunkSize: 4,
      })
      const chunks = await collect(model({ strict: true }), { messages: [user('list')], tools: [modelTool(adminList)] })
      // The shape changed, so the arguments come once the call is complete, already mapped back.
      expect(calls(chunks)).toEqual([{ id: 'call_1', name: 'admin.tools.list', args: '{"limit":5}', deltas: 1, ended: true }])
    })

    it('still streams the arguments of a tool whose shape strict mode kept', async () => {
      mock.addFixture({
        match: { userMessage: 'define' },
        response: { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"word":"ephemeral","language":"en"}' }] },
        chunkSize: 4,
      })
      const chunks = await collect(model({ strict: true }), { messages: [user('define')], tools: [modelTool(lookup)] })
      const [call] = calls(chunks)
      expect(call).toMatchObject({ name: 'lookup', args: '{"word":"ephemeral","language":"en"}', ended: true })
      expect(call!.deltas).toBeGreaterThan(5)
    })

    it('maps a call made under the tool’s own name as well', async () => {
      mock.addFixture({ match: { userMessage: 'list' }, response: { toolCalls: [{ id: 'call_1', name: 'admin.tools.list', arguments: '{"prefix":null,"limit":5}' }] } })
      const chunks = await collect(model({ strict: true }), { messages: [user('list')], tools: [modelTool(adminList)] })
      expect(calls(chunks)).toEqual([{ id: 'call_1', name: 'admin.tools.list', args: '{"limit":5}', deltas: 1, ended: true }])
    })

    it('passes arguments that are not JSON on as they are, for the runtime to report', async () => {
      mock.addFixture({ match: { userMessage: 'list' }, response: { toolCalls: [{ id: 'call_1', name: ADMIN_LIST, arguments: '{"limit":' }] } })
      const chunks = await collect(model({ strict: true }), { messages: [user('list')], tools: [modelTool(adminList)] })
      expect(calls(chunks)).toEqual([{ id: 'call_1', name: 'admin.tools.list', args: '{"limit":', deltas: 1, ended: true }])
    })
  })

  it('passes a tool name the model made up on unchanged', async () => {
    mock.addFixture({ match: { userMessage: 'x' }, response: { toolCalls: [{ id: 'call_1', name: 'delete_everything', arguments: '{}' }] } })
    const chunks = await collect(model(), { messages: [user('x')], tools: [modelTool(weather)] })
    expect(calls(chunks)).toEqual([{ id: 'call_1', name: 'delete_everything', args: '{}', deltas: 1, ended: true }])
  })

  it('maps the finish reason', async () => {
    mock.onMessage('long', { content: 'It was a dark and', finishReason: 'length' })
    mock.onMessage('rude', { content: '', finishReason: 'content_filter' })
    expect((await collect(model(), { messages: [user('long')] })).at(-1)).toMatchObject({ type: 'finish', reason: 'length' })
    expect((await collect(model(), { messages: [user('rude')] })).at(-1)).toMatchObject({ type: 'finish', reason: 'content_filter' })
  })

  describe('errors', () => {
    it('turns an HTTP error into a ModelProviderError with the provider’s message', async () => {
      mock.nextRequestError(429, { message: 'Rate limit reached for gpt-test', type: 'rate_limit_error' })
      const error = await collect(model({ maxRetries: 0 })).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ModelProviderError)
      expect(error).toMatchObject({ code: 'PROVIDER_HTTP_ERROR', provider: 'OpenAI', status: 429, type: 'rate_limit_error', retryAfterMs: 1000, attempts: 1 })
      expect((error as Error).message).toMatch(/^OpenAI answered 429: Rate limit reached for gpt-test/)
    })

    it('retries a 429 after its retry-after, then streams the answer', async () => {
      mock.nextRequestError(429, { message: 'Rate limit reached for gpt-test', type: 'rate_limit_error' })
      mock.onMessage('hello', { content: 'Made it' })
      const started = Date.now()
      const chunks = await collect(model())
      expect(text(chunks)).toBe('Made it')
      expect(Date.now() - started).toBeGreaterThanOrEqual(990) // aimock's Retry-After: 1
      expect(mock.getRequests().map((entry) => entry.response.status)).toEqual([429, 200])
    })

    it('retries a 500 with backoff, and gives up after maxRetries with the attempts counted', async () => {
      mock.addFixture({ match: { userMessage: 'hello' }, response: { error: { message: 'boom', type: 'server_error' }, status: 500 } })
      const error = await collect(model({ maxRetries: 1 })).catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'PROVIDER_HTTP_ERROR', status: 500, type: 'server_error', attempts: 2 })
      expect((error as Error).message).toMatch(/\(after 2 attempts\)$/)
      expect(mock.getRequests()).toHaveLength(2)
    })

    it('does not retry what a retry cannot fix (400, 401)', async () => {
      mock.nextRequestError(401, { message: 'Incorrect API key provided: sk-secret-key-123', type: 'invalid_request_error', code: 'invalid_api_key' })
      const error = await collect(model({ apiKey: 'sk-secret-key-123' })).catch((e: unknown) => e)
      expect(error).toMatchObject({ status: 401, attempts: 1 })
      expect((error as Error).message).not.toContain('sk-secret-key-123')
      expect((error as Error).message).toContain('[redacted]')
      expect(mock.getRequests()).toHaveLength(1)
    })

    it('times out a request that takes too long, as a typed error', async () => {
      mock.addFixture({ match: { userMessage: 'hello' }, response: { content: 'slow '.repeat(50) }, chunkSize: 5, latency: 50 })
      const error = await collect(model({ timeout: 100, maxRetries: 0 })).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ModelProviderError)
      expect(error).toMatchObject({ code: 'PROVIDER_TIMEOUT', provider: 'OpenAI' })
    })

    it('never retries once the model has streamed', async () => {
      mock.addFixture({ match: { userMessage: 'hello' }, response: { content: 'a'.repeat(200) }, chunkSize: 2, latency: 5, disconnectAfterMs: 40 })
      await expect(collect(model({ maxRetries: 3 }))).rejects.toMatchObject({ code: 'PROVIDER_STREAM_ERROR', attempts: 1 })
      expect(mock.getRequests()).toHaveLength(1)
    })

    it('rejects bad call options', () => {
      expect(() => model({ maxRetries: -1 })).toThrow(/maxRetries/)
      expect(() => model({ timeout: 0 })).toThrow(/timeout/)
    })

    it('reports a request nothing answers (404) with the body’s message', async () => {
      await expect(collect(model(), { messages: [user('no fixture for this')] })).rejects.toMatchObject({
        code: 'PROVIDER_HTTP_ERROR',
        status: 404,
        message: expect.stringMatching(/^OpenAI answered 404: .+/),
      })
    })

    it('reports a connection that breaks mid-stream', async () => {
      mock.addFixture({ match: { userMessage: 'hello' }, response: { content: 'a'.repeat(200) }, chunkSize: 2, latency: 5, disconnectAfterMs: 40 })
      await expect(collect(model())).rejects.toMatchObject({ code: 'PROVIDER_STREAM_ERROR', message: expect.stringMatching(/^OpenAI stream broke/) })
    })

    it('reports a server that cannot be reached', async () => {
      const port = await closedPort()
      await expect(collect(model({ baseURL: `http://127.0.0.1:${port}/v1` }))).rejects.toMatchObject({
        code: 'PROVIDER_NETWORK_ERROR',
        message: expect.stringMatching(/^OpenAI could not be reached: /),
      })
    })

    it('refuses options without a model', () => {
      expect(() => openAIChatModel({} as never)).toThrow(InvalidOptionError)
    })
  })

  describe('abort', () => {
    it('stops streaming when the signal aborts, and aborts the request', async () => {
      mock.addFixture({ match: { userMessage: 'hello' }, response: { content: 'word '.repeat(200) }, chunkSize: 5, latency: 5 })
      const controller = new AbortController()
      const chunks: ModelChunk[] = []
      const recorder = recordingFetch()
      const stream = model({ fetch: recorder.fetch }).stream(request({ signal: controller.signal }))
      const error = await (async () => {
        for await (const chunk of stream) {
          chunks.push(chunk)
          controller.abort()
        }
      })().catch((e: unknown) => e)
      expect(error).toMatchObject({ name: 'AbortError' })
      expect(chunks).toHaveLength(1)
      expect(recorder.sent[0]!.signal?.aborted).toBe(true)
    })

    it('sends nothing when the signal is already aborted', async () => {
      mock.onMessage('hello', { content: 'Hi' })
      await expect(collect(model(), { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' })
      expect(mock.getRequests()).toHaveLength(0)
    })
  })
})

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}
