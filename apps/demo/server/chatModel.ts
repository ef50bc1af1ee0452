import { openAIChatModel } from '@toolgate/ai/providers'
import type { ChatModel } from '@toolgate/ai/server'
import { scriptedDemoModel } from './scriptedDemoModel.ts'

/**
 * The embedded scripted model by default: no key, no network. With OPENAI_API_KEY (and optionally
 * OPENAI_BASE_URL for any OpenAI-compatible endpoint, OPENAI_MODEL), a real model instead.
 */
export function chatModel(env: NodeJS.ProcessEnv): { model: ChatModel; label: string } {
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
    const model = env.OPENAI_MODEL || 'gpt-4.1-mini'
    return {
      model: openAIChatModel({
        model,
        apiKey: env.OPENAI_API_KEY,
        baseURL: env.OPENAI_BASE_URL,
        strict: env.OPENAI_STRICT !== 'false',
        system:
          'You are the assistant of the Toolgate demo. Use the tools when they help. The company domain is acme.test. ' +
          'When a tool call is denied, say so and repeat the reason the user gave.',
      }),
      label: `${model} at ${env.OPENAI_BASE_URL || 'api.openai.com'}`,
    }
  }
  return { model: scriptedDemoModel(Number(env.TOOLGATE_DEMO_DELAY_MS ?? 25)), label: 'the embedded scripted model' }
}
