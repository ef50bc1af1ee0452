// Run by telemetry.test.ts in a child process where `@opentelemetry/*` cannot be imported: a
// turn with a server tool and an approval, through the handler without `telemetry`, with the MCP
// interop loaded too. Prints what happened as JSON.
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import '@toolgate/ai/interop/mcp'

const weather = toolDefinition({ name: 'get_weather', description: 'Weather', inputSchema: v.object({ city: v.string() }) }).server(({ city }) => ({ city, tempC: 18 }))
const transfer = toolDefinition({ name: 'transfer', description: 'Sends money', inputSchema: v.object({ to: v.string() }), needsApproval: true }).server(() => ({ ok: true }))
const model = scriptedModel([
  { when: /weather/, call: () => ({ tool: 'get_weather', input: { city: 'Paris' } }), then: ([r]) => `weather: ${r.status}` },
  { when: /send/, call: () => ({ tool: 'transfer', input: { to: 'Bob' } }), then: ([r]) => `transfer: ${r.status}` },
])
const handler = createChatHandler({ model, tools: [weather, transfer], limits: { interruptTtlMs: 60_000 } })

const post = async (body: unknown) => {
  const response = await handler(new Request('http://localhost/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
  const events = (await response.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)))
  return events
}
const text = (events: { type: string; delta?: string }[]) => events.filter((event) => event.type === 'TEXT_MESSAGE_CONTENT').map((event) => event.delta).join('')

const first = await post({ message: 'weather please' })
const threadId = first[0].threadId as string
const paused = await post({ threadId, message: 'send it' })
const interrupt = paused.at(-1).outcome.interrupts[0]
const resumed = await post({ threadId, resume: [{ interruptId: interrupt.id, approved: true }] })

let telemetry: string
try {
  await import('@toolgate/ai/telemetry')
  telemetry = 'loaded'
} catch (error) {
  telemetry = String((error as Error).message)
}
console.log(JSON.stringify({ weather: text(first), resumed: text(resumed), telemetry }))
