import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createClient } from 'redis'
import { context } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { createChatHandler, toNodeHandler } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { openTelemetry } from '@toolgate/ai/telemetry'
import { transferDef, weatherDef, weatherTool } from '../test/server/fixtures.ts'
import { startRedis } from '../test/services/redis.ts'

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
const exporter = new InMemorySpanExporter()
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const redis = await startRedis()
const client = createClient({ url: redis.url })
await client.connect()
const model = scriptedModel([
  { when: /send (\d+) to (\w+)/i, call: (m) => ({ tool: 'transfer_money', input: { to: m[2], amount: Number(m[1]) } }), then: ([r]) => `transfer: ${r.status}` },
], { tools: [weatherDef, transferDef] })
const tools = [weatherTool, transferDef.server(async () => ({ receipt: 'r-1' }))]
const urls: string[] = []
for (const instanceId of ['A', 'B']) {
  const server = createServer(toNodeHandler(createChatHandler({ model, tools, store: redisStore({ client, prefix: 'demo:' }), telemetry: openTelemetry({ tracerProvider, instanceId }) })))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`)
}
const post = async (url: string, body: unknown) => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).text()
const events = (text: string) => text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)))
const paused = events(await post(urls[0]!, { message: 'send 250 to Bob' }))
const interrupt = paused.at(-1).outcome.interrupts[0]
await new Promise((resolve) => setTimeout(resolve, 1500)) // the human thinks it over
await post(urls[1]!, { threadId: paused[0].threadId, resume: [{ interruptId: interrupt.id, approved: true }] })
await new Promise((resolve) => setTimeout(resolve, 200))

const spans = exporter.getFinishedSpans()
const ms = (t: readonly [number, number]) => t[0] * 1000 + t[1] / 1e6
const t0 = Math.min(...spans.map((s) => ms(s.startTime)))
const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]))
const name = (id: string) => byId.get(id)?.name ?? id
const KEYS = ['toolgate.instance.id', 'toolgate.run.kind', 'toolgate.run.outcome', 'gen_ai.request.model', 'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'gen_ai.response.finish_reasons', 'gen_ai.tool.name', 'gen_ai.tool.call.id', 'toolgate.tool.outcome', 'toolgate.interrupt.id', 'toolgate.interrupt.decision', 'http.response.status_code']
const print = (span: ReadableSpan, depth: number) => {
  const attrs = KEYS.filter((k) => span.attributes[k] !== undefined).map((k) => `${k.replace(/^(toolgate|gen_ai)\./, '')}=${JSON.stringify(span.attributes[k])}`).join(' ')
  const links = span.links.map((l) => ` ──${l.attributes?.['toolgate.link.type']}→ ${name(l.context.spanId)} (${l.context.spanId})`).join('')
  console.log(`${'   '.repeat(depth)}${depth ? '└─ ' : ''}${span.name}  [${span.spanContext().spanId}] start +${(ms(span.startTime) - t0).toFixed(0)} ms, ${(ms(span.endTime) - ms(span.startTime)).toFixed(1)} ms  ${attrs}${links}`)
  for (const child of spans.filter((s) => s.parentSpanContext?.spanId === span.spanContext().spanId).sort((a, b) => ms(a.startTime) - ms(b.startTime))) print(child, depth + 1)
}
for (const traceId of [...new Set(spans.map((s) => s.spanContext().traceId))]) {
  console.log(`trace ${traceId}`)
  for (const root of spans.filter((s) => s.spanContext().traceId === traceId && !byId.has(s.parentSpanContext?.spanId ?? ''))) print(root, 0)
}
await client.quit()
await redis.stop()
process.exit(0)
