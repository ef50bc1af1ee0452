/**
 * What tracing costs a turn: the same chat handler, called in-process (Request in, SSE read to the
 * end), with telemetry off, and with `openTelemetry()` on an SDK tracer provider whose exporter
 * drops every span (so the spans are made, ended and handed to a processor, and nothing else) and
 * a meter provider. Two workloads: a server-tool turn (request, run, two model calls, one tool
 * call) and an approval (a paused run, then the answer: the wait span and the resumed run's link).
 * Rounds alternate between the handlers so drift on a shared machine hits both. Prints turns per
 * second and the ratio of traced to untraced; the floor is 1.
 *
 * Run: npm run build, then tsx bench/telemetry.bench.ts
 */
import * as v from 'valibot'
import { MeterProvider } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import { toolDefinition } from '@toolgate/ai'
import { type ChatHandler, createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { openTelemetry } from '@toolgate/ai/telemetry'
import { measure, weather } from './workload.ts'

const ROUNDS = 4
const LIMITS = { warmup: 200, maxTurns: 1500, budgetMs: 1200 }

const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money',
  inputSchema: v.object({ to: v.string() }),
  needsApproval: true,
}).server(({ to }) => ({ receipt: `r-${to}` }))

const model = scriptedModel(
  [
    { when: /weather in (\w+)/i, call: (m) => ({ tool: 'get_weather', input: { city: m[1] } }), then: ([r]) => r.content },
    { when: /send/i, call: () => ({ tool: 'transfer_money', input: { to: 'Bob' } }), then: ([r]) => `Done: ${r.content}` },
  ],
  { tools: [weather, transfer] },
)

class DroppingExporter implements SpanExporter {
  exported = 0
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    this.exported += spans.length
    done({ code: 0 }) // ExportResultCode.SUCCESS
  }
  async shutdown(): Promise<void> {}
}

const exporter = new DroppingExporter()
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const meterProvider = new MeterProvider()
const handlers: Record<'off' | 'traced', ChatHandler> = {
  off: createChatHandler({ model, tools: [weather, transfer] }),
  traced: createChatHandler({ model, tools: [weather, transfer], telemetry: openTelemetry({ tracerProvider, meterProvider }) }),
}

async function post(handler: ChatHandler, body: unknown): Promise<{ type: string; [key: string]: unknown }> {
  const response = await handler(new Request('http://localhost/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
  const text = await response.text()
  const last = text.trimEnd().split('\n').at(-1) ?? ''
  const event = JSON.parse(last.slice('data: '.length)) as { type: string; [key: string]: unknown }
  if (event.type !== 'RUN_FINISHED') throw new Error(`run did not finish: ${last}`)
  return event
}

const workloads: Record<string, (handler: ChatHandler) => Promise<void>> = {
  'server-tool turn': async (handler) => {
    await post(handler, { message: 'weather in Paris' })
  },
  'approval (ask + answer)': async (handler) => {
    const paused = (await post(handler, { message: 'send it' })) as unknown as { threadId: string; outcome: { interrupts: { id: string }[] } }
    await post(handler, { threadId: paused.threadId, resume: [{ interruptId: paused.outcome.interrupts[0]!.id, approved: true }] })
  },
}

console.log('Tracing overhead: in-process chat handler, telemetry off vs openTelemetry() with a dropping exporter')
for (const [name, turn] of Object.entries(workloads)) {
  const rates: Record<'off' | 'traced', number[]> = { off: [], traced: [] }
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of round % 2 === 0 ? (['off', 'traced'] as const) : (['traced', 'off'] as const)) {
      rates[mode].push((await measure(() => turn(handlers[mode]), 1, LIMITS)).perSecond)
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const off = median(rates.off)
  const traced = median(rates.traced)
  console.log(`  ${name.padEnd(26)} off ${off.toFixed(0).padStart(6)} turns/s   traced ${traced.toFixed(0).padStart(6)} turns/s   traced/off ${(traced / off).toFixed(2)} (floor 1.00)`)
}
if (exporter.exported === 0) throw new Error('the traced handler exported no span: the bench measured nothing')
console.log(`  (${exporter.exported} spans made and dropped)`)
