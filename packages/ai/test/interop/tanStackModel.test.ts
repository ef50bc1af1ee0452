import { afterEach, describe, expect, it } from 'vitest'
import { createOpenaiChat } from '@tanstack/ai-openai'
import { createOpenaiChatCompletions } from '@tanstack/ai-openai'
import { fromTanStackAdapter } from '@toolgate/ai/interop/tanstack'
import type { ChatModel } from '@toolgate/ai/server'
import { closeAll, startServer } from '../server/helpers/server.ts'
import { useAimock, recordingTools } from '../providers/models/helpers.ts'

afterEach(closeAll)

const aimock = useAimock()
const { mock } = aimock

// The SDK's own retries off: Toolgate's policy retries.
const models: { name: string; model: () => ChatModel }[] = [
  { name: 'openaiText (responses)', model: () => fromTanStackAdapter(createOpenaiChat('gpt-4.1', 'sk-test', { baseURL: `${aimock.url}/v1`, maxRetries: 0 })) },
  { name: 'openaiChatCompletions', model: () => fromTanStackAdapter(createOpenaiChatCompletions('gpt-4.1', 'sk-test', { baseURL: `${aimock.url}/v1`, maxRetries: 0 })) },
]

describe.each(models)('fromTanStackAdapter with $name', ({ model }) => {
  it('runs a server tool turn through Toolgate’s runtime', async () => {
    mock.addFixture({ match: { userMessage: 'weather in Oslo', hasToolResult: false }, response: { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] } })
    mock.addFixture({ match: { userMessage: 'weather in Oslo', hasToolResult: true }, response: { content: 'It is 4 degrees.' } })
    const { weatherRan: ran, list } = recordingTools()
    const server = await startServer({ model: model(), tools: list })
    const turn = await server.send('weather in Oslo')
    expect(turn.finished?.outcome).toEqual({ type: 'success' })
    expect(turn.results.map((result) => result.content)).toEqual(['{"tempC":4}'])
    expect(turn.text).toBe('It is 4 degrees.')
    expect(ran).toEqual(['Oslo'])
  })

  it('leaves approvals to the server', async () => {
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

  it('hands invalid arguments back to the model', async () => {
    mock.addFixture({ match: { userMessage: 'bad args', hasToolResult: false }, response: { toolCalls: [{ id: 'call_m', name: 'get_weather', arguments: '{"city":42}' }] } })
    mock.addFixture({ match: { userMessage: 'bad args', hasToolResult: true }, response: { content: 'Let me fix that.' } })
    const { weatherRan: ran, list } = recordingTools()
    const server = await startServer({ model: model(), tools: list })
    const turn = await server.send('bad args')
    expect(turn.results[0]!.content).toMatch(/city/)
    expect(turn.text).toBe('Let me fix that.')
    expect(ran).toEqual([])
  })

  it('retries a 429 with Toolgate’s policy', async () => {
    mock.nextRequestError(429, { message: 'Rate limited', type: 'rate_limit_error' })
    mock.onMessage('hello', { content: 'Hi!' })
    const server = await startServer({ model: model(), tools: [] })
    expect((await server.send('hello')).text).toBe('Hi!')
    expect(mock.getRequests().map((entry) => entry.response.status)).toEqual([429, 200])
  })
})

describe('fromTanStackAdapter', () => {
  it('refuses what is not a text adapter', () => {
    expect(() => fromTanStackAdapter({} as never)).toThrow(/text adapter/)
  })
})
