import { anthropicModel, geminiModel, openAIChatModel, openAIResponsesModel } from '@toolgate/ai/providers'
import type { ChatModel } from '@toolgate/ai/server'
import { scriptedDemoModel } from './scriptedDemoModel.ts'

const SYSTEM =
  'You are the assistant of the Toolgate demo. Use the tools when they help. The company domain is acme.test. ' +
  'When a tool call is denied, say so and repeat the reason the user gave.'

/**
 * The embedded scripted model by default: no key, no network. Otherwise the first provider
 * configured, each with an optional base URL and model name:
 * - OPENAI_API_KEY (or OPENAI_BASE_URL for a keyless OpenAI-compatible server), OPENAI_MODEL;
 *   OPENAI_API=responses for the Responses API; OPENAI_STRICT=false to turn strict tools off.
 * - ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL.
 * - GEMINI_API_KEY, GEMINI_BASE_URL, GEMINI_MODEL.
 */
export function chatModel(env: NodeJS.ProcessEnv): { model: ChatModel; label: string } {
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
    const model = env.OPENAI_MODEL || 'gpt-4.1-mini'
    const options = { model, apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL, strict: env.OPENAI_STRICT !== 'false', system: SYSTEM }
    const responses = env.OPENAI_API === 'responses'
    return {
      model: responses ? openAIResponsesModel(options) : openAIChatModel(options),
      label: `${model} (${responses ? 'Responses' : 'Chat Completions'}) at ${env.OPENAI_BASE_URL || 'api.openai.com'}`,
    }
  }
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_BASE_URL) {
    const model = env.ANTHROPIC_MODEL || 'claude-haiku-4-5'
    return {
      model: anthropicModel({ model, apiKey: env.ANTHROPIC_API_KEY, baseURL: env.ANTHROPIC_BASE_URL, system: SYSTEM }),
      label: `${model} at ${env.ANTHROPIC_BASE_URL || 'api.anthropic.com'}`,
    }
  }
  if (env.GEMINI_API_KEY || env.GEMINI_BASE_URL) {
    const model = env.GEMINI_MODEL || 'gemini-2.5-flash'
    return {
      model: geminiModel({ model, apiKey: env.GEMINI_API_KEY, baseURL: env.GEMINI_BASE_URL, system: SYSTEM }),
      label: `${model} at ${env.GEMINI_BASE_URL || 'generativelanguage.googleapis.com'}`,
    }
  }
  return { model: scriptedDemoModel(Number(env.TOOLGATE_DEMO_DELAY_MS ?? 25)), label: 'the embedded scripted model' }
}
