import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { GoogleGenAI, type FunctionDeclaration } from '@google/genai'
import { toolDefinition } from '@toolgate/ai'
import { toProviderTool } from '@toolgate/ai/providers'
import { useAimock } from './models/helpers.ts'

const aimock = useAimock()

const weather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: v.object({ city: v.string(), unit: v.optional(v.picklist(['c', 'f'])) }),
})

describe('the Gemini envelopes in @google/genai', () => {
  it.each(['gemini', 'gemini-json-schema'] as const)('%s: the SDK builds and sends a request with the envelope unchanged', async (target) => {
    aimock.mock.onMessage('hello', { content: 'Hi' })
    const { tool } = toProviderTool(weather, target)
    // A cast: the envelope's type does not yet match FunctionDeclaration (the type test is still to do).
    const declaration = tool as FunctionDeclaration
    const ai = new GoogleGenAI({ apiKey: 'AIza-test', httpOptions: { baseUrl: aimock.url } })
    const response = await ai.models.generateContent({ model: 'gemini-test', contents: 'hello', config: { tools: [{ functionDeclarations: [declaration] }] } })
    expect(response.text).toBe('Hi')
    const sent = aimock.mock.getRequests()[0]!.body as { tools?: { function: { name: string } }[] }
    expect(sent.tools?.[0]?.function.name).toBe('get_weather')
  })
})
