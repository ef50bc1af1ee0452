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
import { createChatHandler, toNodeHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { type RunEvent } from '@toolgate/ai/protocol'
import { checkTanstackTurn } from './tanstackPeer.ts'
import { STREAMED_ARG_DELTAS, STREAMED_TEXT_DELTAS, measure, postJson, startInstance, weather, type Instance, type MeasureLimits, type Workload } from './workload.ts'

const LIMITS = { warmup: 300, maxTurns: 3000, budgetMs: 1500 }

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

async function post(body: unknown): Promise<RunEvent[]> {
  const { status, text } = await postJson(url, body)
  if (status !== 200) throw new Error(`HTTP ${status}: ${text}`)
  return text
    .split('\n\n')
    .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)) as RunEvent)
}

function finished(events: RunEvent[]) {
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
// this process, so neither pays for the load generator nor shares its event loop. CPU time per
// turn in the server's process is its capacity per core; observed turns/s are bounded by this
// process's load generation too (the servers sit partly idle at low concurrency).
const SERVERS = ['toolgate', 'tanstack', 'fetch-floor', 'bare'] as const
type Server = (typeof SERVERS)[number]
/** Each figure is taken this many times, the servers alternating, and the lowest kept: the machine's other load then hurts no server alone. */
const ROUNDS = 2

interface Figures {
  readonly cpu: number
  readonly perSecond: number
  /** (highest - lowest) / lowest CPU per turn over the rounds. */
  readonly spread: number
}

async function compare(workload: Workload, concurrencies: readonly number[], limits: MeasureLimits, each: (figures: Record<Server, Figures>, concurrency: number) => void) {
  const instances = Object.fromEntries(await Promise.all(SERVERS.map(async (serve) => [serve, await startInstance(serve, {}, { workload })] as const))) as Record<Server, Instance>
  const message = workload === 'weather' ? 'weather in Paris' : 'go'
  const turnOf = (serve: Server) => async () => {
    const { status, text } = await postJson(instances[serve].url, { message })
    if (serve === 'tanstack') return checkTanstackTurn(text, workload)
    if (status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`${serve} turn failed (${status}): ${text.slice(-300)}`)
  }
  try {
    for (const serve of SERVERS) for (let i = 0; i < limits.warmup; i++) await turnOf(serve)()
    for (const concurrency of concurrencies) {
      const samples = Object.fromEntries(SERVERS.map((serve) => [serve, [] as { cpu: number; perSecond: number }[]])) as Record<Server, { cpu: number; perSecond: number }[]>
      for (let round = 0; round < ROUNDS; round++) {
        for (const serve of SERVERS) {
          const before = await instances[serve].cpuMs()
          const { perSecond, done } = await measure(turnOf(serve), concurrency, { ...limits, warmup: 0 })
          samples[serve].push({ cpu: ((await instances[serve].cpuMs()) - before) / done, perSecond })
        }
      }
      const figures = Object.fromEntries(
        SERVERS.map((serve) => {
          const cpus = samples[serve].map((sample) => sample.cpu)
          const best = Math.min(...cpus)
          return [serve, { cpu: best, perSecond: Math.max(...samples[serve].map((sample) => sample.perSecond)), spread: (Math.max(...cpus) - best) / best }]
        }),
      ) as Record<Server, Figures>
      each(figures, concurrency)
    }
  } finally {
    for (const serve of SERVERS) instances[serve].stop()
  }
}

const ms = (value: number) => value.toFixed(3)
const ratio = (value: number) => `${value.toFixed(2)}×`
const spread = (figures: Record<Server, Figures>) => `spread over ${ROUNDS} rounds ≤${(Math.max(...SERVERS.map((serve) => figures[serve].spread)) * 100).toFixed(0)}%`

console.log(`\n  one server tool per turn, each server in its own process; server CPU per turn (lowest of ${ROUNDS} rounds), and ratios to Toolgate's (goals: ≤ 0.5× TanStack's, ≤ 2× the bare floor):`)
await compare('weather', [1, 8, 32], { warmup: 300, maxTurns: 3000, budgetMs: 1500 }, (f, concurrency) => {
  console.log(
    `  concurrency ${String(concurrency).padStart(2)}: toolgate ${ms(f.toolgate.cpu)} ms, @tanstack/ai ${ms(f.tanstack.cpu)} ms, fetch-adapter floor ${ms(f['fetch-floor'].cpu)} ms, bare floor ${ms(f.bare.cpu)} ms` +
      ` | toolgate ÷ tanstack ${ratio(f.toolgate.cpu / f.tanstack.cpu)}, ÷ bare ${ratio(f.toolgate.cpu / f.bare.cpu)}; fetch floor ÷ bare ${ratio(f['fetch-floor'].cpu / f.bare.cpu)}` +
      ` | turns/s: toolgate ${f.toolgate.perSecond.toFixed(0)}, @tanstack/ai ${f.tanstack.perSecond.toFixed(0)} (${ratio(f.toolgate.perSecond / f.tanstack.perSecond)}), bare ${f.bare.perSecond.toFixed(0)} | ${spread(f)}`,
  )
})

for (const [workload, deltas, what] of [
  ['text', STREAMED_TEXT_DELTAS, 'text deltas'],
  ['args', STREAMED_ARG_DELTAS, 'tool-argument deltas (then the tool runs and the model answers)'],
] as const) {
  console.log(`\n  streaming: a turn of ${deltas} ${what}, one per turn of the event loop; server CPU per delta (the turn's CPU ÷ ${deltas}):`)
  await compare(workload, [1, 8], { warmup: 20, maxTurns: 400, budgetMs: 1500 }, (f, concurrency) => {
    const us = (serve: Server) => `${((f[serve].cpu / deltas) * 1000).toFixed(2)} µs`
    console.log(
      `  concurrency ${String(concurrency).padStart(2)}: toolgate ${us('toolgate')}, @tanstack/ai ${us('tanstack')}, fetch-adapter floor ${us('fetch-floor')}, bare floor ${us('bare')}` +
        ` | toolgate ÷ tanstack ${ratio(f.toolgate.cpu / f.tanstack.cpu)}, ÷ bare ${ratio(f.toolgate.cpu / f.bare.cpu)}; fetch floor ÷ bare ${ratio(f['fetch-floor'].cpu / f.bare.cpu)}` +
        ` | turns/s: toolgate ${f.toolgate.perSecond.toFixed(1)}, @tanstack/ai ${f.tanstack.perSecond.toFixed(1)} | ${spread(f)}`,
    )
  })
}
