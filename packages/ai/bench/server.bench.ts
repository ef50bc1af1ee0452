/**
 * Completed tool-calling turns per second through the whole stack: HTTP on loopback, the chat
 * handler, the scripted model, tool validation and execution, SSE. Bounded: each scenario stops
 * after a fixed number of turns or a time budget, whichever comes first. The comparison with
 * TanStack AI, the AI SDK and the floors runs each server in a process of its own (bench/instance.ts).
 *
 * Run: npm run build, then tsx bench/server.bench.ts (the package as users run it: the built JavaScript)
 */
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import type { AddressInfo } from 'node:net'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { createChatHandler, toNodeHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { type RunEvent } from '@toolgate/ai/protocol'
import { checkAiSdkTurn } from './aiSdkPeer.ts'
import { hasCallgrind, instructionsPerTurn, modelInstructionsPerTurn, type Counts } from './callgrind.ts'
import { modelCosts } from './modelCost.ts'
import { checkTanstackTurn } from './tanstackPeer.ts'
import { STREAMED_ARG_DELTAS, STREAMED_TEXT_DELTAS, measure, postJson, startInstance, weather, type Instance, type MeasureLimits, type Workload } from './workload.ts'

const LIMITS = { warmup: 300, maxTurns: 3000, budgetMs: 1500 }
/** SERVER_BENCH=http (or weather, instructions, streaming, in-process, comma-separated): only those parts. */
const parts = new Set((process.env.SERVER_BENCH ?? 'in-process,weather,instructions,streaming,http').split(','))

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
for (const [name, turn] of Object.entries(parts.has('in-process') ? scenarios : {})) {
  for (const concurrency of [1, 8]) {
    const { done, ms, perSecond } = await measure(turn, concurrency, LIMITS)
    console.log(`  ${name.padEnd(34)} concurrency ${String(concurrency).padStart(2)}: ${perSecond.toFixed(0).padStart(6)} turns/s  (${done} turns in ${ms.toFixed(0)} ms)`)
  }
}
server.closeAllConnections()
server.close()

// Side by side: each server in a process of its own (bench/instance.ts), one at a time, loaded from
// this process, so neither pays for the load generator nor shares its event loop. CPU time per
// turn is the server's own `process.cpuUsage()`: its capacity per core; observed turns/s are
// bounded by this process's load generation too (the servers sit partly idle at low concurrency).
// The scripted models' own cost is measured apart (bench/modelCost.ts) and taken off each server's
// CPU, so no floor or peer is charged for the fixture standing in for a provider.
const PEERS = ['tanstack', 'ai-sdk', 'needed', 'bare'] as const
type Peer = (typeof PEERS)[number]
const LABEL: Record<Peer, string> = { tanstack: 'TanStack chat()', 'ai-sdk': 'AI SDK 7 streamText', needed: 'needed+thread floor', bare: 'bare node:http' }
/** Goals (issue 41): Toolgate ≤ this × the peer, per turn and per delta. */
const GOAL: Partial<Record<Peer, number>> = { tanstack: 0.5, 'ai-sdk': 0.25, needed: 1.5 }
/** Each figure is taken in this many rounds, the servers interleaved (the order rotated each round), and the median kept; the spread is the per-round ratios' range. */
const ROUNDS = 3

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2
}

interface Row {
  /** Median CPU ms per turn, less the server's scripted model. */
  readonly cpu: Record<'toolgate' | Peer, number>
  readonly perSecond: Record<'toolgate' | Peer, number>
  /** Toolgate ÷ each peer per round: the median and the range. */
  readonly ratio: Record<Peer, { median: number; low: number; high: number }>
}

async function compare<S extends string>(
  servers: readonly S[],
  start: (serve: S) => Promise<Instance>,
  check: (serve: S, text: string, status: number) => void,
  message: string,
  concurrencies: readonly number[],
  limits: MeasureLimits,
  modelCost: (serve: S) => number,
  each: (cpu: Record<S, number[]>, perSecond: Record<S, number>, concurrency: number) => void,
) {
  const instances = {} as Record<S, Instance>
  for (const serve of servers) instances[serve] = await start(serve)
  const turnOf = (serve: S) => async () => {
    const { status, text } = await postJson(instances[serve].url, { message })
    check(serve, text, status)
  }
  try {
    for (const serve of servers) for (let i = 0; i < limits.warmup; i++) await turnOf(serve)()
    for (const concurrency of concurrencies) {
      const cpu = Object.fromEntries(servers.map((serve) => [serve, [] as number[]])) as Record<S, number[]>
      const perSecond = Object.fromEntries(servers.map((serve) => [serve, 0])) as Record<S, number>
      for (let round = 0; round < ROUNDS; round++) {
        const order = servers.map((_, index) => servers[(index + round) % servers.length]!)
        for (const serve of order) {
          const before = await instances[serve].cpuMs()
          const measured = await measure(turnOf(serve), concurrency, { ...limits, warmup: 0 })
          cpu[serve].push(((await instances[serve].cpuMs()) - before) / measured.done - modelCost(serve))
          perSecond[serve] = Math.max(perSecond[serve], measured.perSecond)
        }
      }
      each(cpu, perSecond, concurrency)
    }
  } finally {
    for (const serve of servers) instances[serve].stop()
  }
}

function rowOf(cpu: Record<'toolgate' | Peer, number[]>, perSecond: Record<'toolgate' | Peer, number>): Row {
  const ratio = Object.fromEntries(
    PEERS.map((peer) => {
      const perRound = cpu.toolgate.map((value, round) => value / cpu[peer][round]!)
      return [peer, { median: median(perRound), low: Math.min(...perRound), high: Math.max(...perRound) }]
    }),
  ) as Row['ratio']
  return { cpu: Object.fromEntries(Object.entries(cpu).map(([serve, values]) => [serve, median(values as number[])])) as Row['cpu'], perSecond, ratio }
}

const ratioText = (r: { median: number; low: number; high: number }) => `${r.median.toFixed(2)}× (${r.low.toFixed(2)}–${r.high.toFixed(2)})`
const goalText = (peer: Peer, r: { median: number; high: number }) => {
  const goal = GOAL[peer]
  if (goal === undefined) return ''
  return r.high <= goal ? ' met' : r.median <= goal ? ' met at the median' : ` goal ≤${goal}`
}

const checkServe = (workload: Workload) => (serve: string, text: string, status: number) => {
  if (serve === 'tanstack') return checkTanstackTurn(text, workload)
  if (serve === 'ai-sdk') return checkAiSdkTurn(text, workload)
  if (status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`${serve} turn failed (${status}): ${text.slice(-300)}`)
}

const SERVERS = ['toolgate', ...PEERS] as const

async function compareWorkload(workload: Workload, concurrencies: readonly number[], limits: MeasureLimits, unit: (cpuMs: number) => string) {
  const costs = await modelCosts(workload)
  const costOf = (serve: string) => (serve === 'toolgate' || serve === 'needed' ? costs.toolgate : serve === 'tanstack' ? costs.tanstack : serve === 'ai-sdk' ? costs.aiSdk : 0)
  console.log(`  the scripted models' own CPU per turn, measured apart and taken off: Toolgate's (and the needed floor's) ${unit(costs.toolgate)}, TanStack's ${unit(costs.tanstack)}, the AI SDK's ${unit(costs.aiSdk)}`)
  await compare(SERVERS, (serve) => startInstance(serve, {}, { workload }), checkServe(workload), workload === 'weather' ? 'weather in Paris' : 'go', concurrencies, limits, costOf, (cpu, perSecond, concurrency) => {
    const row = rowOf(cpu, perSecond)
    console.log(
      `  c=${String(concurrency).padEnd(2)} CPU: toolgate ${unit(row.cpu.toolgate)}, ${PEERS.map((peer) => `${peer} ${unit(row.cpu[peer])}`).join(', ')}` +
        ` | turns/s: toolgate ${row.perSecond.toolgate.toFixed(0)}, ${PEERS.map((peer) => `${peer} ${row.perSecond[peer].toFixed(0)}`).join(', ')}`,
    )
    console.log(`        toolgate ÷ ${PEERS.map((peer) => `${LABEL[peer]} ${ratioText(row.ratio[peer])}${goalText(peer, row.ratio[peer])}`).join(' · ')}`)
  })
}


console.log(`\n  each server in its own process; server CPU per turn (its own process.cpuUsage(), less its scripted model), median of ${ROUNDS} interleaved rounds; toolgate ÷ each as the median ratio (its range over the rounds)`)
console.log('  goals: ≤ 0.5× TanStack chat(), ≤ 0.25× AI SDK 7 streamText, ≤ 1.5× the needed+thread floor (2.0× the line not to cross)')
if (parts.has('weather')) console.log('\n  one server tool per turn (two model steps), CPU per turn:')
if (parts.has('weather')) await compareWorkload('weather', [1, 8, 32], { warmup: 300, maxTurns: 3000, budgetMs: 1500 }, (cpu) => `${cpu.toFixed(3)} ms`)

// The same per-turn ratio by user-space instructions (bench/callgrind.ts): they move far less with
// the machine's load than CPU time does (±30% between runs on a shared 2-core VM), though not
// nothing (V8's collector follows wall time); they leave out the kernel's time (the socket's reads
// and writes), a larger share of the floor's CPU than of Toolgate's.
if (parts.has('instructions')) {
  if (!hasCallgrind()) console.log('\n  user-space instructions per turn: not measured (needs valgrind: apt install valgrind)')
  else {
    const dir = fileURLToPath(new URL('..', import.meta.url))
    const count = { turns: 2000, warmup: 3000 }
    const model = await modelInstructionsPerTurn({ dir, turns: 2000 })
    // The model's own work, less its compiler and collector: in a server its garbage is collected
    // with the server's (counted there), and alone its collector follows the machine's load.
    const modelWork = model.total - model.compiler - model.collector
    /** A server's steady instructions per turn: less V8's compiler (a warm-up's leftover; see bench/callgrind.ts) and less the scripted model's own work. */
    const steady = (counts: Counts) => counts.total - counts.compiler - modelWork
    const k = (count: number) => `${(count / 1000).toFixed(1)} k`
    console.log(
      `\n  user-space instructions per weather turn (valgrind callgrind, ${count.turns} turns after ${count.warmup}; the kernel's time not counted), less V8's optimizing compiler still at work after the warm-up, and less the scripted model's own work ${k(modelWork)}:`,
    )
    for (const concurrency of [1, 8]) {
      const [toolgate, needed] = await Promise.all((['toolgate', 'needed'] as const).map((serve) => instructionsPerTurn({ dir, serve, concurrency, ...count })))
      const ratio = steady(toolgate!) / steady(needed!)
      console.log(
        `  c=${String(concurrency).padEnd(2)} toolgate ${k(steady(toolgate!))} (collector ${k(toolgate!.collector)}; compiler ${k(toolgate!.compiler)} left out), needed ${k(steady(needed!))} (collector ${k(needed!.collector)}; compiler ${k(needed!.compiler)}): toolgate ÷ needed+thread floor ${ratio.toFixed(2)}×${ratio <= 1.5 ? ' met' : ' goal ≤1.5'}`,
      )
    }
  }
}

for (const [workload, deltas, what] of [
  ['text', STREAMED_TEXT_DELTAS, 'text deltas'],
  ['args', STREAMED_ARG_DELTAS, 'tool-argument deltas (then the tool runs and the model answers)'],
] as const) {
  if (!parts.has('streaming')) break
  console.log(`\n  streaming: a turn of ${deltas} ${what}, one per turn of the event loop; CPU per streamed delta (the turn's ÷ ${deltas}):`)
  await compareWorkload(workload, [1, 8], { warmup: 20, maxTurns: 300, budgetMs: 1500 }, (cpu) => `${((cpu / deltas) * 1000).toFixed(2)} µs`)
}

// The model over HTTP: aimock serving OpenAI Chat Completions streaming (its own process), the same
// for Toolgate's openAIChatModel and TanStack's OpenAI Chat Completions adapter; nothing taken off.
if (parts.has('http')) {
  const mock = await startInstance('aimock')
  const url = mock.url.replace(/\/$/, '')
  console.log(`\n  the model over HTTP (aimock serving OpenAI Chat Completions streaming, its own process), one server tool per turn, CPU per turn (goal: toolgate ≤ 0.75× TanStack):`)
  try {
    await compare(['toolgate', 'tanstack'] as const, (serve) => startInstance(serve, { MODEL_URL: url }), checkServe('weather'), 'weather in Paris', [1, 8, 32], { warmup: 200, maxTurns: 1500, budgetMs: 1500 }, () => 0, (cpu, perSecond, concurrency) => {
      const perRound = cpu.toolgate.map((value, round) => value / cpu.tanstack[round]!)
      const ratio = { median: median(perRound), low: Math.min(...perRound), high: Math.max(...perRound) }
      console.log(
        `  c=${String(concurrency).padEnd(2)} CPU: toolgate ${median(cpu.toolgate).toFixed(3)} ms, tanstack ${median(cpu.tanstack).toFixed(3)} ms | turns/s: toolgate ${perSecond.toolgate.toFixed(0)}, tanstack ${perSecond.tanstack.toFixed(0)}` +
          ` | toolgate ÷ TanStack ${ratioText(ratio)}${ratio.high <= 0.75 ? ' met' : ratio.median <= 0.75 ? ' met at the median' : ' goal ≤0.75'}`,
      )
    })
  } finally {
    mock.stop()
  }
}
