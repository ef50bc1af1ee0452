import { LLMock } from '@copilotkit/aimock'
import { AIMOCK_PORT, ANSWER, EMAIL } from './demos.ts'

// A model server for the provider e2e runs: aimock speaks the real wire formats of OpenAI (Chat and
// Responses), Anthropic and Gemini. The demo, pointed at it by base URL, drives its real adapters
// over HTTP; these fixtures script one approval flow the same way for every provider.

const mock = new LLMock({ port: AIMOCK_PORT, host: '127.0.0.1' })
mock.addFixture({
  match: { userMessage: 'Email Dana about the launch date', hasToolResult: false },
  response: { toolCalls: [{ name: 'send_email', arguments: JSON.stringify(EMAIL) }] },
  chunkSize: 8,
})
mock.addFixture({ match: { userMessage: 'Email Dana about the launch date', hasToolResult: true }, response: { content: ANSWER } })
await mock.start()
console.log(`aimock listening at ${mock.url}`)

const stop = () => void mock.stop().finally(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
