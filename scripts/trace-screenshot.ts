/**
 * The trace screenshot in docs/observability.md: a turn that waits for a human, exported by the
 * OpenTelemetry SDK's in-memory exporter and drawn as a waterfall. Two chat handlers (instance A
 * and instance B) share one store: alice's message on A asks for an approval, bob (finance)
 * answers on B a moment later. Prints the trace as text, writes the waterfall as HTML and
 * screenshots it with Chromium into docs/images/trace-approval-wait.png.
 *
 * Run: npm run screenshots   (needs /usr/bin/chromium, or CHROMIUM=<path>)
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as v from 'valibot'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { toolDefinition } from '@toolgate/ai'
import type { Principal } from '@toolgate/ai/protocol'
import { createChatHandler, memoryStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { openTelemetry } from '@toolgate/ai/telemetry'

const WAIT_MS = 1200
const OUT = fileURLToPath(new URL('../docs/images/trace-approval-wait.png', import.meta.url))

const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money to someone',
  inputSchema: v.object({ to: v.string(), amount: v.number() }),
  needsApproval: (input) => ({ reason: `Sends ${input.amount} EUR to ${input.to}`, reviewers: { roles: ['finance'] } }),
}).server(({ to }) => ({ receipt: `r-${to}` }))
const model = scriptedModel(
  [{ when: /send (\d+) to (\w+)/i, call: (m) => ({ tool: 'transfer_money', input: { to: m[2]!, amount: Number(m[1]) } }), then: ([r]) => `Transfer ${r.status}` }],
  { tools: [transfer] },
)
const people: Record<string, Principal> = { alice: { id: 'alice', name: 'Alice' }, bob: { id: 'bob', name: 'Bob', roles: ['finance'] } }

const exporter = new InMemorySpanExporter()
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const store = memoryStore()
const instance = (id: string) =>
  createChatHandler({
    model,
    tools: [transfer],
    store,
    identify: (request) => people[request.headers.get('x-session') ?? ''],
    telemetry: openTelemetry({ tracerProvider, instanceId: id }),
  })
const [a, b] = [instance('A'), instance('B')]

async function post(handler: (request: Request) => Promise<Response>, as: string, body: unknown) {
  const response = await handler(new Request('http://localhost/chat', { method: 'POST', headers: { 'content-type': 'application/json', 'x-session': as }, body: JSON.stringify(body) }))
  const frames = (await response.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)))
  return frames.at(-1) as { threadId: string; outcome?: { interrupts?: { id: string }[] } }
}

const paused = await post(a, 'alice', { message: 'send 500 to Bob' })
await new Promise((resolve) => setTimeout(resolve, WAIT_MS))
await post(b, 'bob', { threadId: paused.threadId, resume: [{ interruptId: paused.outcome!.interrupts![0]!.id, approved: true }] })
await new Promise((resolve) => setTimeout(resolve, 50))

const spans = exporter.getFinishedSpans()
const ms = ([s, n]: readonly [number, number]) => s * 1000 + n / 1e6
const t0 = Math.min(...spans.map((span) => ms(span.startTime)))
const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]))
const children = (parent: string | undefined) =>
  spans.filter((span) => span.parentSpanContext?.spanId === parent || (parent === undefined && !byId.has(span.parentSpanContext?.spanId ?? ''))).sort((x, y) => ms(x.startTime) - ms(y.startTime))
const short = (id: string) => `${id.slice(0, 4)}…`

/** What a row says after its name: the attributes an operator reads first. */
function details(span: ReadableSpan): string {
  const at = span.attributes
  const parts = at['toolgate.instance.id'] === undefined ? [] : [`instance=${at['toolgate.instance.id']}`]
  if (at['toolgate.run.kind']) parts.push(`kind=${at['toolgate.run.kind']}`, `outcome=${at['toolgate.run.outcome']}`)
  if (at['gen_ai.response.finish_reasons']) parts.push(`finish_reasons=[${at['gen_ai.response.finish_reasons']}]`)
  if (at['toolgate.tool.outcome']) parts.push(`outcome=${at['toolgate.tool.outcome']}`)
  if (at['toolgate.interrupt.decision']) parts.push(`decision=${at['toolgate.interrupt.decision']}`, `by=${at['toolgate.decision.by.id']}`, `channel=${at['toolgate.decision.channel']}`)
  if (at['toolgate.decision']) parts.push(`under=${at['toolgate.decision']} by ${at['toolgate.decision.by.id']}`)
  for (const link of span.links) {
    const target = byId.get(link.context.spanId)
    parts.push(`──${link.attributes?.['toolgate.link.type']}→ ${target?.name ?? '?'} [${short(link.context.spanId)}]`)
  }
  return parts.join('  ')
}

interface Row { span: ReadableSpan; depth: number; prefix: string }
const rows: Row[] = []
const walk = (span: ReadableSpan, depth: number, prefix: string) => {
  rows.push({ span, depth, prefix })
  const kids = children(span.spanContext().spanId)
  kids.forEach((kid, index) => walk(kid, depth + 1, `${prefix.replace('├─ ', '│  ').replace('└─ ', '   ')}${index === kids.length - 1 ? '└─ ' : '├─ '}`))
}
for (const root of children(undefined)) walk(root, 0, '')

let lastTrace = ''
for (const { span, prefix } of rows) {
  if (span.spanContext().traceId !== lastTrace) console.log(`trace ${(lastTrace = span.spanContext().traceId)}`)
  const start = ms(span.startTime) - t0
  console.log(`${prefix}${span.name} [${short(span.spanContext().spanId)}] +${start.toFixed(0)} ms, ${(ms(span.endTime) - ms(span.startTime)).toFixed(1)} ms  ${details(span)}`)
}

// The waterfall: one row per span, its bar placed on one time axis for both traces.
const total = Math.max(...spans.map((span) => ms(span.endTime))) - t0
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;')
const colour = (span: ReadableSpan) =>
  span.name.startsWith('wait_for') ? '#e8a33d' : span.name.startsWith('invoke_agent') ? '#5b8def' : span.name.startsWith('chat') ? '#9b6ee8' : span.name.startsWith('execute_tool') ? '#3fae7a' : '#8a94a6'
const html = `<!doctype html><meta charset="utf-8"><style>
body{font:13px system-ui,sans-serif;margin:16px;color:#1d2330;background:#fff;width:1160px}
h1{font-size:15px;margin:0 0 4px} p{margin:0 0 12px;color:#5a6273}
.row{display:grid;grid-template-columns:330px 1fr;align-items:center;height:26px;border-bottom:1px solid #eef0f4}
.trace{margin-top:10px;font:600 12px ui-monospace,monospace;color:#5a6273}
.name{white-space:pre;font:12px ui-monospace,monospace;overflow:hidden;text-overflow:ellipsis}
.lane{position:relative;height:26px;overflow:hidden}.bar{position:absolute;top:6px;height:14px;border-radius:3px;min-width:2px}
.label{position:absolute;top:5px;font-size:11.5px;white-space:nowrap;color:#1d2330}
.axis{display:grid;grid-template-columns:330px 1fr;color:#5a6273;font-size:11px;margin-top:6px}
</style>
<h1>A turn that waited for a human: asked on instance A, approved by bob on instance B</h1>
<p>Spans from the OpenTelemetry SDK's in-memory exporter; bars on one time axis of ${total.toFixed(0)} ms. The wait (amber) belongs to the asking run's trace though instance B recorded it.</p>
${rows
  .map(({ span, prefix }, index) => {
    const start = ms(span.startTime) - t0
    const duration = ms(span.endTime) - ms(span.startTime)
    const left = (start / total) * 100
    const width = Math.max(0.2, (duration / total) * 100)
    const header = index === 0 || rows[index - 1]!.span.spanContext().traceId !== span.spanContext().traceId ? `<div class="trace">trace ${span.spanContext().traceId}</div>` : ''
    // Beside the bar, or inside it when the bar is wide (the wait), never over the names.
    const labelLeft = width > 40 ? `left:${left + 1}%` : left + width > 55 ? `right:${100 - left + 0.5}%` : `left:${left + width + 0.5}%`
    return `${header}<div class="row"><div class="name">${escape(prefix + span.name)}</div><div class="lane"><div class="bar" style="left:${left}%;width:${width}%;background:${colour(span)}"></div><div class="label" style="${labelLeft}">${duration.toFixed(1)} ms  ${escape(details(span))}</div></div></div>`
  })
  .join('\n')}
<div class="axis"><span></span><span style="display:flex;justify-content:space-between;border-top:1px solid #8a94a6;padding-top:2px"><span>0 ms</span><span>${total.toFixed(0)} ms</span></span></div>`

const dir = mkdtempSync(join(tmpdir(), 'toolgate-trace-'))
const page = join(dir, 'trace.html')
writeFileSync(page, html)
execFileSync(process.env.CHROMIUM ?? '/usr/bin/chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', `--screenshot=${OUT}`, `--window-size=1200,${140 + rows.length * 27 + 40}`, `file://${page}`], { stdio: 'ignore' })
console.log(`wrote ${OUT}`)
