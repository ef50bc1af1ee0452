/** What the scripted provider turn does (see aimock.ts). */
export const EMAIL = { to: 'dana@example.com', subject: 'Launch date', body: 'The launch moves to May 4.' }
export const ANSWER = 'The email to dana@example.com is sent.'

/** The demo servers the provider e2e runs start, one per adapter, all pointed at aimock. */
export const AIMOCK_PORT = Number(process.env.E2E_AIMOCK_PORT ?? 4330)
const aimock = `http://127.0.0.1:${AIMOCK_PORT}`
const base = Number(process.env.E2E_PROVIDER_PORT ?? 4331)

export const PROVIDER_DEMOS = [
  { name: 'OpenAI Chat Completions (strict)', port: base, env: { OPENAI_BASE_URL: `${aimock}/v1`, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'gpt-test' } },
  { name: 'OpenAI Responses', port: base + 1, env: { OPENAI_BASE_URL: `${aimock}/v1`, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'gpt-test', OPENAI_API: 'responses' } },
  { name: 'Anthropic', port: base + 2, env: { ANTHROPIC_BASE_URL: aimock, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_MODEL: 'claude-test' } },
  { name: 'Gemini', port: base + 3, env: { GEMINI_BASE_URL: `${aimock}/v1beta`, GEMINI_API_KEY: 'AIza-test', GEMINI_MODEL: 'gemini-test' } },
] as const
