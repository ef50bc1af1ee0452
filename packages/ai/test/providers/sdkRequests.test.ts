import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI, type FunctionDeclaration } from '@google/genai'
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js'
import { toolDefinition } from '@toolgate/ai'
import { toProviderTool } from '@toolgate/ai/providers'
import { journaledBodies, useAimock } from './adapters/helpers.ts'

// Each envelope goes, unchanged and uncast, through the official SDK's own request builder to a
// server speaking the provider's wire format (the type test, sdkEnvelopes.test-d.ts, checks the types).

const aimock = useAimock()

const weather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: v.object({ city: v.pipe(v.string(), v.maxLength(80)), unit: v.optional(v.picklist(['c', 'f'])), days: v.optional(v.pipe(v.array(v.string()), v.maxLength(7))) }),
  outputSchema: v.object({ tempC: v.number() }),
})

describe('provider envelopes in the official SDKs', () => {
  it.each([false, true])('openai Chat Completions (strict %s): the SDK sends the envelope as given', async (strict) => {
    aimock.mock.onMessage('hello', { content: 'Hi' })
    const { tool } = toProviderTool(weather, 'openai-chat', { strict })
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${aimock.url}/v1` })
    const response = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hello' }], tools: [tool] })
    expect(response.choices[0]?.message.content).toBe('Hi')
    expect(journaledBodies(aimock.mock)[0].tools).toEqual([tool])
  })

  it('openai Responses: the SDK sends the envelope as given', async () => {
    aimock.mock.onMessage('hello', { content: 'Hi' })
    const { tool } = toProviderTool(weather, 'openai-responses', { strict: true })
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${aimock.url}/v1` })
    const response = await client.responses.create({ model: 'gpt-test', input: 'hello', tools: [tool] })
    expect(response.output_text).toBe('Hi')
    expect(aimock.mock.getRequests()).toHaveLength(1)
  })

  it.each([false, true])('@anthropic-ai/sdk Messages (strict %s): the SDK sends the envelope as given', async (strict) => {
    aimock.mock.onMessage('hello', { content: 'Hi' })
    const { tool } = toProviderTool(weather, 'anthropic', { strict })
    const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: aimock.url })
    const message = await client.messages.create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }], tools: [tool] })
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hi' })
    expect(aimock.mock.getRequests()).toHaveLength(1)
  })

  it.each(['gemini', 'gemini-json-schema'] as const)('@google/genai %s: the SDK builds and sends a request with the envelope unchanged', async (target) => {
    aimock.mock.onMessage('hello', { content: 'Hi' })
    const { tool } = toProviderTool(weather, target)
    const declaration: FunctionDeclaration = tool // no cast: the envelope is the SDK's type
    const ai = new GoogleGenAI({ apiKey: 'AIza-test', httpOptions: { baseUrl: aimock.url } })
    const response = await ai.models.generateContent({ model: 'gemini-test', contents: 'hello', config: { tools: [{ functionDeclarations: [declaration] }] } })
    expect(response.text).toBe('Hi')
    const sent = aimock.mock.getRequests()[0]!.body as { tools?: { function: { name: string } }[] }
    expect(sent.tools?.[0]?.function.name).toBe('get_weather')
  })

  it('@modelcontextprotocol/sdk: the envelope parses as a Tool, output schema included', () => {
    const { tool } = toProviderTool(weather, 'mcp')
    expect(ToolSchema.parse(tool)).toEqual(tool)
    expect(tool.outputSchema).toMatchObject({ type: 'object' })
  })
})
