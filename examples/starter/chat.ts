import { openAIChatModel } from '@toolgate/ai/providers'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { getWeather, sendEmail } from './src/tools.ts'

// The server's half of the chat: the tools it runs and the model it asks.

export const tools = [
  getWeather.server(async ({ city }) => ({ city, tempC: 12 + (city.length % 10) })),
  sendEmail.server(async ({ to, subject }) => {
    console.log(`(pretend) sending "${subject}" to ${to}`)
    return { sent: true }
  }),
] as const

// A real model when OPENAI_API_KEY is set; otherwise a scripted one that needs no key and no network.
export const model = process.env.OPENAI_API_KEY
  ? openAIChatModel({ model: 'gpt-4.1-mini', apiKey: process.env.OPENAI_API_KEY, strict: true })
  : scriptedModel(
      [
        {
          when: /weather in (\w+)/i,
          call: (m) => ({ tool: 'get_weather', input: { city: m[1]! } }),
          then: ([r]) => (r.tool === 'get_weather' && r.ok ? `It is ${r.output.tempC} °C in ${r.output.city}.` : r.content),
        },
        {
          when: /email (\S+@\S+)/i,
          call: (m) => ({ tool: 'send_email', input: { to: m[1]!, subject: 'Hello', body: 'Sent from the Toolgate starter.' } }),
          then: ([r]) => (r.tool === 'send_email' && r.ok ? `Email sent to ${r.input.to}.` : `I did not send it (${r.reason ?? 'denied'}).`),
        },
      ],
      { tools, fallback: 'Try "weather in Oslo" or "email bob@example.com".' },
    )
