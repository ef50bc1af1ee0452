/**
 * Completed tool-calling turns per second through the whole stack: HTTP on loopback, the chat
 * handler, the scripted model, tool validation and execution, SSE. Bounded: each scenario stops
 * after a fixed number of turns or a time budget, whichever comes first. The comparison with
 * TanStack AI runs each server in a process of its own (bench/instance.ts).
 *
 * Run: npm run build, then tsx bench/server.bench.ts (the package as users run it: the built JavaScript)
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { createChatHandler, scriptedModel, toNodeHandler, type ChatEvent } from '@toolgate/ai/server'
import { checkTanstackTurn } from './tanstackPeer.ts'
import { measure, postJson, startInstance, weather, type Instance } from './workload.ts'

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
  const { status, text } = await postJson(url, body)
  if (status !== 200) throw new Error(`HTTP ${status}: ${text}`)
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

console.log(`server.bench: completed turns per second over loopback (node ${process.version}, ≤${LIMITS.maxTurns} turns or ${LIMITS.budgetMs} ms each)`)
for (const [name, turn] of Object.entries(scenarios)) {
  for (const concurrency of [1, 8]) {
    const { done, ms, perSecond } = await measure(turn, concurrency, LIMITS)
    console.log(`  ${name.padEnd(34)} concurrency ${String(concurrency).padStart(2)}: ${perSecond.toFixed(0).padStart(6)} turns/s  (${done} turns in ${ms.toFixed(0)} ms)`)
  }
}
server.closeAllConnections()
server.close()

// Side by side: each server in a process of its own (bench/instance.ts), one at a time, loaded from
// this process, so neither pays for the load generator nor shares its event loop.
console.log('\n  one server tool per turn, each server in its own process, beside TanStack AI chat() (which stores no thread):')
const ours = await startInstance('toolgate')
const theirs = await startInstance('tanstack')
try {
  const oursTurn = async () => {
    const { status, text } = await postJson(ours.url, { message: 'weather in Paris' })
    if (status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`turn failed (${status}): ${text.slice(-300)}`)
  }
  const theirsTurn = async () => checkTanstackTurn((await postJson(theirs.url, { message: 'weather in Paris' })).text)
  // Observed turns/s are bounded by this process's load generation too (the servers sit partly
  // idle at low concurrency); CPU time per turn in the server's process is its capacity per core.
  const run = async (instance: Instance, turn: () => Promise<void>, concurrency: number) => {
    for (let i = 0; i < LIMITS.warmup; i++) await turn()
    const before = await instance.cpuMs()
    const { perSecond, done } = await measure(turn, concurrency, { ...LIMITS, warmup: 0 })
    const cpuPerTurn = ((await instance.cpuMs()) - before) / done
    return { perSecond, cpuPerTurn }
  }
  for (const concurrency of [1, 8, 32]) {
    const a = await run(ours, oursTurn, concurrency)
    const b = await run(theirs, theirsTurn, concurrency)
    console.log(
      `  concurrency ${String(concurrency).padStart(2)}: toolgate ${a.perSecond.toFixed(0).padStart(5)} turns/s, @tanstack/ai ${b.perSecond.toFixed(0).padStart(5)} turns/s: ${(a.perSecond / b.perSecond).toFixed(2)}×` +
        `   server CPU per turn: toolgate ${a.cpuPerTurn.toFixed(3)} ms, @tanstack/ai ${b.cpuPerTurn.toFixed(3)} ms: ${(b.cpuPerTurn / a.cpuPerTurn).toFixed(2)}× the turns per core`,
    )
  }
} finally {
  ours.stop()
  theirs.stop()
}
