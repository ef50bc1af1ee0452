import { afterEach, describe, expect, it } from 'vitest'
import { anthropicModel, geminiModel, openAIChatModel, openAIResponsesModel, type CallOptions } from '@toolgate/ai/providers'
import type { ChatModel } from '@toolgate/ai/server'
import { closeAll, startServer } from '../../server/helpers/server.ts'
import { itCompletesTheCoreTurns, recordingTools, useAimock } from './helpers.ts'

/*
 * The same turns, through createChatHandler, for every native adapter against aimock speaking
 * each provider's real wire format.
 */

afterEach(closeAll)

const aimock = useAimock()
const { mock } = aimock

const adapters: { name: string; model: (options?: CallOptions) => ChatModel; argsStream: boolean }[] = [
  { name: 'openAIChatModel', model: (o) => openAIChatModel({ model: 'gpt-test', baseURL: `${aimock.url}/v1`, ...o }), argsStream: true },
  { name: 'openAIResponsesModel', model: (o) => openAIResponsesModel({ model: 'gpt-test', baseURL: `${aimock.url}/v1`, ...o }), argsStream: true },
  { name: 'anthropicModel', model: (o) => anthropicModel({ model: 'claude-test', baseURL: aimock.url, ...o }), argsStream: true },
  // Gemini sends each call whole: a cut stream breaks around the call, not inside its arguments.
  { name: 'geminiModel', model: (o) => geminiModel({ model: 'gemini-test', baseURL: `${aimock.url}/v1beta`, ...o }), argsStream: false },
]

describe.each(adapters)('$name through createChatHandler', ({ model, argsStream }) => {
  itCompletesTheCoreTurns(mock, () => model())

  it('runs parallel calls', async () => {
    mock.addFixture({
      match: { userMessage: 'two cities', hasToolResult: false },
      response: {
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { id: 'call_b', name: 'get_weather', arguments: '{"city":"Lima"}' },
        ],
      },
    })
    mock.addFixture({ match: { userMessage: 'two cities', hasToolResult: true }, response: { content: 'Both checked.' } })
    const { weatherRan, list } = recordingTools()
    const server = await startServer({ model: model(), tools: list })
    const turn = await server.send('two cities')
    expect(turn.results).toHaveLength(2)
    expect([...weatherRan].sort()).toEqual(['Lima', 'Oslo'])
    expect(turn.text).toBe('Both checked.')
  })

  it('reports a 500 while setting up as a MODEL_ERROR, and the thread still takes the next message', async () => {
    // Anthropic and Gemini merge the two user turns into one: the later fixture must match first.
    mock.onMessage('again', { content: 'Fine now.' })
    mock.addFixture({ match: { userMessage: 'break' }, response: { error: { message: 'internal', type: 'server_error' }, status: 500 } })
    const server = await startServer({ model: model({ maxRetries: 1 }), tools: recordingTools().list })
    const turn = await server.send('break')
    expect(turn.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'MODEL_ERROR', message: expect.stringContaining('HTTP 500') })
    expect(mock.getRequests()).toHaveLength(2)
    const next = await server.send('again', turn.threadId)
    expect(next.text).toBe('Fine now.')
  })

  it('fails the run when the stream is cut mid-call, and runs nothing', async () => {
    const long = JSON.stringify({ city: 'x'.repeat(400) })
    mock.addFixture({
      match: { userMessage: 'cut' },
      response: argsStream
        ? { toolCalls: [{ id: 'call_c', name: 'get_weather', arguments: long }] }
        : { content: 'Checking '.repeat(40), toolCalls: [{ id: 'call_c', name: 'get_weather', arguments: long }] },
      chunkSize: 2,
      latency: 3,
      disconnectAfterMs: 40,
    })
    const { weatherRan, list } = recordingTools()
    const server = await startServer({ model: model(), tools: list })
    const turn = await server.send('cut')
    expect(turn.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'MODEL_ERROR' })
    expect(weatherRan).toEqual([])
    expect(mock.getRequests()).toHaveLength(1)
  })
})
