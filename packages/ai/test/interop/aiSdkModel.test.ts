import { afterEach, describe, expect, it } from 'vitest'
import { createOpenAI } from '@ai-sdk/openai'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { fromAISdkModel } from '@toolgate/ai/interop/ai-sdk'
import type { ChatModel } from '@toolgate/ai/server'
import { closeAll, startServer } from '../server/helpers/server.ts'
import { itCompletesTheCoreTurns, recordingTools, useAimock } from '../providers/adapters/helpers.ts'

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
  itCompletesTheCoreTurns(mock, model)

  it('declares the tools with their own JSON Schema', async () => {
    mock.onMessage('hello', { content: 'Hi!' })
    const server = await startServer({ model: model(), tools: recordingTools().list })
    expect((await server.send('hello')).text).toBe('Hi!')
    const declared = (mock.getRequests()[0]!.body as { tools?: { function: { name: string; parameters: unknown } }[] }).tools
    expect(declared?.[0]?.function.name).toBe('get_weather')
  })

  it('types a 401 as a MODEL_ERROR with its status', async () => {
    mock.nextRequestError(401, { message: 'bad key', type: 'authentication_error' })
    const server = await startServer({ model: model(), tools: [] })
    const turn = await server.send('hello again')
    expect(turn.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'MODEL_ERROR', message: expect.stringContaining('HTTP 401') })
  })
})

describe('fromAISdkModel', () => {
  it('refuses what is not an AI SDK language model', () => {
    expect(() => fromAISdkModel({} as never)).toThrow(/AI SDK language model/)
  })
})
