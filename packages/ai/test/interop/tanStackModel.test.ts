import { afterEach, describe, expect, it } from 'vitest'
import { createOpenaiChat } from '@tanstack/ai-openai'
import { createOpenaiChatCompletions } from '@tanstack/ai-openai'
import { fromTanStackAdapter } from '@toolgate/ai/interop/tanstack'
import type { ChatModel } from '@toolgate/ai/server'
import { closeAll } from '../server/helpers/server.ts'
import { itCompletesTheCoreTurns, useAimock } from '../providers/adapters/helpers.ts'

afterEach(closeAll)

const aimock = useAimock()
const { mock } = aimock

// The SDK's own retries off: Toolgate's policy retries.
const models: { name: string; model: () => ChatModel }[] = [
  { name: 'openaiText (responses)', model: () => fromTanStackAdapter(createOpenaiChat('gpt-4.1', 'sk-test', { baseURL: `${aimock.url}/v1`, maxRetries: 0 })) },
  { name: 'openaiChatCompletions', model: () => fromTanStackAdapter(createOpenaiChatCompletions('gpt-4.1', 'sk-test', { baseURL: `${aimock.url}/v1`, maxRetries: 0 })) },
]

describe.each(models)('fromTanStackAdapter with $name', ({ model }) => {
  itCompletesTheCoreTurns(mock, model)
})

describe('fromTanStackAdapter', () => {
  it('refuses what is not a text adapter', () => {
    expect(() => fromTanStackAdapter({} as never)).toThrow(/text adapter/)
  })
})
