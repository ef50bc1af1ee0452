import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { openAIChatModel } from '@toolgate/ai/providers'
import { type ChatHandler, type ChatModel, createChatHandler, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'

// One chat for every example: a server tool, a tool that asks for approval, and a model (OpenAI when
// a key is given, else a scripted one that needs no network).

export const getWeather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: v.object({ city: v.string() }),
  outputSchema: v.object({ city: v.string(), tempC: v.number() }),
})

export const transferMoney = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money to someone',
  inputSchema: v.object({ to: v.string(), amount: v.pipe(v.number(), v.minValue(1)) }),
  outputSchema: v.object({ receipt: v.string() }),
  needsApproval: (input) => (input.amount > 100 ? { reason: `Sends ${input.amount} EUR to ${input.to}` } : false),
})

const scripted = scriptedModel([
  {
    when: /weather in (\w+) and send (\d+) to (\w+)/i,
    call: (m) => [
      { tool: 'get_weather', input: { city: m[1]! } },
      { tool: 'transfer_money', input: { to: m[3]!, amount: Number(m[2]) } },
    ],
    then: (results) => results.map((result) => (result.status === 'success' ? JSON.stringify(result.output) : result.status)).join(' '),
  },
  { when: /.*/, reply: 'Ask me for the weather in a city and to send money.' },
])

export function chatModel(apiKey: string | undefined): ChatModel {
  return apiKey ? openAIChatModel({ model: 'gpt-4.1-mini', apiKey, strict: true }) : scripted
}

export function chatHandler(options: { readonly apiKey?: string | undefined; readonly store?: ThreadStore }): ChatHandler {
  return createChatHandler({
    model: chatModel(options.apiKey),
    tools: [
      getWeather.server(async ({ city }) => ({ city, tempC: city === 'Paris' ? 18 : 10 })),
      transferMoney.server(async ({ to, amount }) => ({ receipt: `r-${to}-${amount}` })),
    ],
    ...(options.store ? { store: options.store } : {}),
  })
}
