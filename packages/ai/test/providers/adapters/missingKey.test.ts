import { afterEach, describe, expect, it, vi } from 'vitest'
import { anthropicModel, geminiModel, openAIChatModel, openAIResponsesModel } from '@toolgate/ai/providers'

// A model adapter that can only get 401s says so once, when it is made, rather than on the first chat.

const adapters = [
  { make: openAIChatModel, name: 'openAIChatModel', env: 'OPENAI_API_KEY', header: 'Authorization', host: 'https://api.openai.com/v1' },
  { make: openAIResponsesModel, name: 'openAIResponsesModel', env: 'OPENAI_API_KEY', header: 'Authorization', host: 'https://api.openai.com/v1' },
  { make: anthropicModel, name: 'anthropicModel', env: 'ANTHROPIC_API_KEY', header: 'x-api-key', host: 'https://api.anthropic.com' },
  { make: geminiModel, name: 'geminiModel', env: 'GEMINI_API_KEY', header: 'x-goog-api-key', host: 'https://generativelanguage.googleapis.com/v1beta' },
] as const

const warnings = () => {
  const spy = vi.spyOn(console, 'warn').mockImplementation(() => {})
  return () => spy.mock.calls.map((call) => String(call[0]))
}
afterEach(() => vi.restoreAllMocks())

describe('a model adapter without an API key', () => {
  it.each(adapters)('$name stays quiet when a key, a key header, a custom fetch or another base URL is given', ({ make, header }) => {
    const seen = warnings()
    const make_ = make as (options: object) => unknown
    make_({ model: 'm', apiKey: 'sk-test' })
    make_({ model: 'm', headers: { [header]: 'Bearer sk-test' } })
    make_({ model: 'm', fetch: async () => new Response() })
    make_({ model: 'm', baseURL: 'http://127.0.0.1:11434/v1' }) // a local server may need no key
    expect(seen()).toEqual([])
  })

  it.each(adapters)('$name warns once, naming the variable to set', ({ make, name, env, host }) => {
    const seen = warnings()
    const make_ = make as (options: object) => unknown
    make_({ model: 'm', apiKey: process.env.TOOLGATE_SURELY_UNSET_KEY })
    make_({ model: 'm', baseURL: `${host}/` })
    expect(seen()).toEqual([`[toolgate] ${name} has no API key, so every call to ${host} will fail with 401: set ${env} and pass \`apiKey: process.env.${env}\`.`])
  })
})
