import { afterEach, describe, expect, it } from 'vitest'
import { createOpenAI } from '@ai-sdk/openai'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { fromAISdkModel } from '@toolgate/ai/interop/ai-sdk'
import type { ChatModel } from '@toolgate/ai/server'
import { closeAll, startServer } from '../server/helpers/server.ts'
import { useAimock, recordingTools } from '../providers/models/helpers.ts'

afterEach(closeAll)

const aimock = useAimock()
const { mock } = aimock

const models: { name: string; model: () => ChatModel }[] = [
  { name: '@ai-sdk/openai (responses)', model: () => fromAISdkModel(createOpenAI({ baseURL: `${aimock.url}/v1`, apiKey: 'sk-test' })('gpt-test')) },
  { name: '@ai-sdk/openai (chat)', model: () => fromAISdkModel(createOpenAI({ baseURL: `${aimock.url}/v1`, apiKey: 'sk-test' }).chat('gpt-test')) },
  { name: '@ai-sdk/anthropic', model: () => fromAISdkModel(createAnthropic({ baseURL: `${aimock.url}/v1`, apiKey: 'sk-ant-test' })('claude-test')) },
  { name: '@ai-sdk/google', model: () => fromAISdkModel(createGoogleGenerativeAI({ baseURL: `${aimock.url}/v1beta`, apiKey: 'AIza-test' })('gemini-test')) },
]

describe.each(models)('fromAISdkModel with $name', ({ model }) => {
  it('runs a server tool turn, declared with the tool’s own JSON Schema, and streams text', async () => {
    mock.addFixture({ match: { userMessage: 'weather in Oslo', hasToolResult: false }, response: { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] } })
    mock.addFixture({ match: { userMessage: 'weather in Oslo', hasToolResult: true }, response: { content: 'It is 4 degrees.' } })
    const { weatherRan: ran, list } = recordingTools()
    const server = await startServer({ model: model(), tools: list })
    const turn = await server.send('weather in Oslo')
    expect(turn.finished?.outcome).toEqual({ type: 'success' })
    expect(turn.results.map((result) => result.content)).toEqual(['{"tempC":4}'])
    expect(turn.text).toBe('It is 4 degrees.')
    expect(ran).toEqual(['Oslo'])
    const declared = (mock.getRequests()[0]!.body as { tools?: { function: { name: string; parameters: unknown } }[] }).tools
    expect(declared?.[0]?.function.name).toBe('get_weather')
  })

  it('leaves approvals to the server: pauses, then runs once approved', async () => {
    mock.addFixture({ match: { userMessage: 'email bob', hasToolResult: false }, response: { toolCalls: [{ id: 'call_e', name: 'send_email', arguments: '{"to":"bob@x.test"}' }] } })
    mock.addFixture({ match: { userMessage: 'email bob', hasToolResult: true }, response: { content: 'Sent.' } })
    const { emailsSent: sent, list } = recordingTools()
    const server = await startServer({ model: model(), tools: list })
    const first = await server.send('email bob')
    expect(first.interrupts).toEqual([expect.objectContaining({ reason: 'tool_approval', toolName: 'send_email' })])
    expect(sent).toEqual([])
    const second = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: true }])
    expect(second.text).toBe('Sent.')
    expect(sent).toEqual([{ to: 'bob@x.test' }])
  })

  it('hands invalid arguments back to the model, validated by the runtime', async () => {
    mock.addFixture({ match: { userMessage: 'bad args', hasToolResult: false }, response: { toolCalls: [{ id: 'call_m', name: 'get_weather', arguments: '{"city":42}' }] } })
    mock.addFixture({ match: { userMessage: 'bad args', hasToolResult: true }, response: { content: 'Let me fix that.' } })
    const { weatherRan: ran, list } = recordingTools()
    const server = await startServer({ model: model(), tools: list })
    const turn = await server.send('bad args')
    expect(turn.results[0]!.content).toMatch(/city/)
    expect(turn.text).toBe('Let me fix that.')
    expect(ran).toEqual([])
  })

  it('retries a 429 with Toolgate’s policy, and types a 401', async () => {
    mock.nextRequestError(429, { message: 'Rate limited', type: 'rate_limit_error' })
    mock.onMessage('hello', { content: 'Hi!' })
    const server = await startServer({ model: model(), tools: [] })
    expect((await server.send('hello')).text).toBe('Hi!')

    mock.nextRequestError(401, { message: 'bad key', type: 'authentication_error' })
    const turn = await server.send('hello again')
    expect(turn.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'MODEL_ERROR', message: expect.stringContaining('HTTP 401') })
  })
})

describe('fromAISdkModel', () => {
  it('refuses what is not an AI SDK language model', () => {
    expect(() => fromAISdkModel({} as never)).toThrow(/AI SDK language model/)
  })
})
