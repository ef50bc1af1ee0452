/**
 * Completed tool-calling turns per second through the whole stack: HTTP on loopback, the chat
 * handler, the scripted model, tool validation and execution, SSE. Bounded: each scenario stops
 * after a fixed number of turns or a time budget, whichever comes first.
 *
 * Run: tsx --conditions=@toolgate/source bench/server.bench.ts
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { createChatHandler, scriptedModel, toNodeHandler, type ChatEvent } from '@toolgate/ai/server'
import { checkTanstackTurn, tanstackHandler } from './tanstackPeer.ts'
import { measure, weather } from './workload.ts'

const LIMITS = { warmup: 300, maxTurns: 3000, budgetMs: 2500 }


const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money',
  inputSchema: v.object({ to: v.string(), amount: v.number() }),
  outputSchema: v.object({ receipt: v.string() }),
  needsApproval: true,
}).server(({ to }) => ({ receipt: `r-${to}` }))

const model = scriptedModel([
  { when: /weather in (\w+)/i, call: (m) => ({ tool: 'get_weather', input: { city: m[1] } }), then: ([r]) => (r.tool === 'get_weather' && r.ok ? `It is ${r.output.tempC}°C.` : r.content) },
  {
    when: /compare/i,
    call: () => ['Oslo', 'Rome', 'Lima'].map((city) => ({ tool: 'get_weather', input: { city } })),
    then: (results) => results.map((r) => (r.tool === 'get_weather' && r.ok ? `${r.input.city}: ${r.output.tempC}°C` : r.content)).join(', '),
  },
  { when: /send/i, call: () => ({ tool: 'transfer_money', input: { to: 'Bob', amount: 500 } }), then: ([r]) => `Done: ${r.content}` },
], { tools: [weather, transfer] })

const server = createServer(toNodeHandler(createChatHandler({ model, tools: [weather, transfer] })))
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`

async function post(body: unknown): Promise<ChatEvent[]> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${text}`)
  return text
    .split('\n\n')
    .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)) as ChatEvent)
}

function finished(events: ChatEvent[]) {
  const last = events.at(-1)
  if (last?.type !== 'RUN_FINISHED') throw new Error(`run did not finish: ${JSON.stringify(last)}`)
  return last
}

const scenarios: Record<string, () => Promise<void>> = {
  'one server tool (2 model steps)': async () => {
    finished(await post({ message: 'weather in Paris' }))
  },
  'three parallel server tools': async () => {
    finished(await post({ message: 'compare' }))
  },
  'approval round trip (2 requests)': async () => {
    const events = await post({ message: 'send money' })
    const paused = finished(events)
    if (paused.outcome.type !== 'interrupt') throw new Error('expected an interrupt')
    const threadId = events[0]!.type === 'RUN_STARTED' ? events[0]!.threadId : ''
    finished(await post({ threadId, resume: [{ interruptId: paused.outcome.interrupts[0]!.id, approved: true }] }))
  },
}

// The peer (bench/tanstackPeer.ts), behind the same HTTP adapter.
const answerTanstack = tanstackHandler(weather)
const tanstack = createServer(
  toNodeHandler(async (request: Request) => {
    const { message } = (await request.json()) as { message: string }
    return answerTanstack(message)
  }),
)
await new Promise<void>((resolve) => tanstack.listen(0, '127.0.0.1', resolve))
const tanstackUrl = `http://127.0.0.1:${(tanstack.address() as AddressInfo).port}/`
const tanstackTurn = async () => {
  const response = await fetch(tanstackUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'weather in Paris' }) })
  const text = await response.text()
  checkTanstackTurn(text)
}

console.log(`server.bench: completed turns per second over loopback (node ${process.version}, ≤${LIMITS.maxTurns} turns or ${LIMITS.budgetMs} ms each)`)
for (const [name, turn] of Object.entries(scenarios)) {
  for (const concurrency of [1, 8]) {
    const { done, ms, perSecond } = await measure(turn, concurrency, LIMITS)
    console.log(`  ${name.padEnd(34)} concurrency ${String(concurrency).padStart(2)}: ${perSecond.toFixed(0).padStart(6)} turns/s  (${done} turns in ${ms.toFixed(0)} ms)`)
  }
}
console.log('\n  one server tool per turn, side by side with TanStack AI chat() (which stores no thread):')
for (const concurrency of [1, 8, 32]) {
  const ours = await measure(scenarios['one server tool (2 model steps)']!, concurrency, LIMITS)
  const theirs = await measure(tanstackTurn, concurrency, LIMITS)
  console.log(
    `  concurrency ${String(concurrency).padStart(2)}: toolgate ${ours.perSecond.toFixed(0).padStart(5)} turns/s, @tanstack/ai ${theirs.perSecond.toFixed(0).padStart(5)} turns/s: ${(ours.perSecond / theirs.perSecond).toFixed(2)}×`,
  )
}
server.closeAllConnections()
server.close()
tanstack.closeAllConnections()
tanstack.close()
