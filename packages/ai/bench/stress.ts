/**
 * The adversarial suite as a load run against a real HTTP server (loopback): approval races,
 * malformed requests, hostile model chunks, disconnects mid-stream, and many concurrent threads;
 * then the fault scenarios (faults.ts): two instance processes on a real Redis and on a real
 * PostgreSQL, with an instance SIGKILLed, the store frozen and restarted, and failed writes; and a
 * flood of anonymous runs over a live run whose reader reconnects.
 * It prints what it tried and what happened; it exits non-zero if any invariant broke (a 5xx, a
 * crash, a race applied twice, a thread left held; under faults: a turn lost, a tool run twice, a
 * 5xx other than 503 STORE_ERROR, a hang, a thread stuck).
 *
 * Run: npm run stress
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { type ChatModel, createChatHandler, memoryStore, toNodeHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { type RunEvent } from '@toolgate/ai/protocol'
import { printFaults, runFaults, type FaultReport } from './faults.ts'
import { weather } from './workload.ts'

const RACES = 20
const RACE_WIDTH = 100
const MALFORMED = 10_000
const HOSTILE_RUNS = 500
const DISCONNECTS = 200
const LOAD_THREADS = 200

let crashes = 0
process.on('uncaughtException', (error) => (crashes++, console.error('uncaught:', error)))
process.on('unhandledRejection', (error) => (crashes++, console.error('unhandled rejection:', error)))

let transfers = 0
const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money',
  inputSchema: v.object({ to: v.string(), amount: v.number() }),
  outputSchema: v.object({ receipt: v.string() }),
  needsApproval: true,
}).server(async ({ to }) => {
  transfers++
  await new Promise((resolve) => setTimeout(resolve, 5))
  return { receipt: `r-${to}` }
})

const scripted = scriptedModel(
  [
    { when: /send/i, call: () => ({ tool: 'transfer_money', input: { to: 'Bob', amount: 500 } }), then: ([r]) => `Done: ${r.content}` },
    { when: /weather/i, call: () => ({ tool: 'get_weather', input: { city: 'Paris' } }), then: ([r]) => r.content },
    { when: /story/i, reply: Array.from({ length: 200 }, (_, i) => `Chapter ${i}. `).join('') },
  ],
  { tools: [transfer, weather] },
)

/**
 * What a hostile model sends, in turn: chunks outside the contract (each must end its run with
 * RUN_ERROR), and well-formed calls built to hurt (100,000-deep arguments, an unknown tool), which
 * the model is told about while the run goes on.
 */
const HOSTILE: { chunks: unknown[]; ends: 'RUN_ERROR' | 'RUN_FINISHED' }[] = [
  { chunks: [{ type: 'text-delta', delta: 123 }], ends: 'RUN_ERROR' },
  { chunks: [{ type: 'image-delta', data: 'x' }], ends: 'RUN_ERROR' },
  { chunks: [null], ends: 'RUN_ERROR' },
  { chunks: ['text'], ends: 'RUN_ERROR' },
  { chunks: [{ type: 'tool-call-start', toolCallId: 'c', toolName: '' }], ends: 'RUN_ERROR' },
  { chunks: [{ type: 'finish', reason: 'maybe' }], ends: 'RUN_ERROR' },
  {
    chunks: [
      { type: 'tool-call-start', toolCallId: 'c', toolName: 'get_weather' },
      { type: 'tool-call-delta', toolCallId: 'c', delta: `{"city":${'['.repeat(100_000)}${']'.repeat(100_000)}}` },
      { type: 'tool-call-end', toolCallId: 'c' },
      { type: 'finish', reason: 'tool_calls' },
    ],
    ends: 'RUN_FINISHED',
  },
  {
    chunks: [
      { type: 'tool-call-start', toolCallId: 'c', toolName: 'rm_rf' },
      { type: 'tool-call-delta', toolCallId: 'c', delta: '{}' },
      { type: 'tool-call-end', toolCallId: 'c' },
      { type: 'finish', reason: 'tool_calls' },
    ],
    ends: 'RUN_FINISHED',
  },
]
/** The run a flood must not cost its reader: it streams 10 parts, waits for the flood to end, then 3,000 more. */
let endFlood!: () => void
const floodOver = new Promise<void>((resolve) => (endFlood = resolve))
const VICTIM_PARTS = 3010

const model: ChatModel = {
  name: 'stress',
  stream(request) {
    const first = request.messages.find((m) => m.role === 'user')
    if (first?.content === 'victim') {
      return (async function* () {
        for (let i = 0; i < VICTIM_PARTS; i++) {
          if (i === 10) await floodOver
          yield { type: 'text-delta' as const, delta: `p${i} ` }
        }
        yield { type: 'finish' as const, reason: 'stop' as const }
      })()
    }
    const hostile = first?.content.match(/^hostile (\d+)$/)
    const answered = request.messages.at(-1)?.role === 'tool'
    if (hostile && !answered) {
      const { chunks } = HOSTILE[Number(hostile[1])]!
      return (async function* () {
        yield { type: 'text-delta', delta: 'ok ' }
        for (const chunk of chunks) yield chunk as never
      })()
    }
    if (hostile) return (async function* () { yield { type: 'text-delta', delta: 'told' }; yield { type: 'finish', reason: 'stop' } })() as never
    return scripted.stream(request)
  },
}

/** Ends the run with the reason: a broken invariant must not leave the process waiting. */
function check(ok: boolean, message: string): void {
  if (ok) return
  console.error(`stress: ${message}`)
  process.exit(1)
}

// The memory store keeps 1,000 ended runs' logs here (10,000 by default), so the flood below
// outnumbers them at a tenth of the cost.
const MAX_ENDED_RUN_LOGS = 1000
const server = createServer(toNodeHandler(createChatHandler({ model, tools: [transfer, weather], store: memoryStore({ maxEndedRunLogs: MAX_ENDED_RUN_LOGS }), onError: () => {} })))
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`

const statuses = new Map<number, number>()
const latencies: number[] = []
let requests = 0

async function request(init: RequestInit & { path?: string }): Promise<{ status: number; text: string }> {
  const started = performance.now()
  requests++
  const response = await fetch(url + (init.path ?? ''), init)
  const text = await response.text()
  latencies.push(performance.now() - started)
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
  return { status: response.status, text }
}

const post = (body: unknown) => request({ method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) })

function events(text: string): RunEvent[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)) as RunEvent)
}

function threadOf(list: RunEvent[]): string {
  const first = list[0]
  if (first?.type !== 'RUN_STARTED') throw new Error(`no RUN_STARTED: ${JSON.stringify(first)}`)
  return first.threadId
}

const rssBefore = process.memoryUsage().rss
const report: Record<string, string | number> = {}

// 1. Approval races: one interrupt answered by 100 identical requests at once.
{
  const before = transfers
  let applied = 0
  for (let race = 0; race < RACES; race++) {
    const list = events((await post({ message: 'send money' })).text)
    const last = list.at(-1)
    check(last?.type === 'RUN_FINISHED' && last.outcome.type === 'interrupt', 'expected an approval interrupt')
    if (last?.type !== 'RUN_FINISHED' || last.outcome.type !== 'interrupt') break
    const answer = { threadId: threadOf(list), resume: [{ interruptId: last.outcome.interrupts[0]!.id, approved: true }] }
    const answers = await Promise.all(Array.from({ length: RACE_WIDTH }, () => post(answer)))
    applied += answers.filter((a) => a.status === 200).length
  }
  report['approval races (100 identical answers each)'] = `${RACES} races, ${applied} applied, tool ran ${transfers - before} times`
  check(applied === RACES && transfers - before === RACES, 'an approval race applied more or less than once')
}

// 2. Malformed requests: shapes, types, depth, sizes and ids an attacker would try.
{
  const { threadId } = { threadId: threadOf(events((await post({ message: 'weather' })).text)) }
  const generators: (() => Promise<unknown>)[] = [
    () => post('{"message": "hi"'),
    () => post('[]'),
    () => post({ message: 42 }),
    () => post({ message: '' }),
    () => post({ threadId, resume: [{ interruptId: 'int_forged', approved: true }] }),
    () => post({ threadId: 'thread_unknown', message: 'hi' }),
    () => post({ threadId, resume: [{ interruptId: 'x', approved: true, output: 1 }] }),
    () => post({ threadId, message: 'hi', resume: [] }),
    () => post(`{"message":"hi","x":${'['.repeat(5000)}${']'.repeat(5000)}}`),
    () => post({ __proto__: { polluted: true }, constructor: { prototype: { polluted: true } }, message: 'weather' }),
    () => post({ message: 'x'.repeat(2 * 1024 * 1024) }),
    () => request({ method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"message":"hi"}' }),
    () => request({ method: 'DELETE' }),
    () => request({ method: 'GET', path: '?threadId=' }),
    () => request({ method: 'GET', path: `?threadId=${threadId}&limit=-3` }),
  ]
  const start = requests
  for (let i = 0; i < MALFORMED; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => generators[(i + j) % generators.length]!()))
  }
  report['malformed requests'] = `${requests - start} sent`
  check(({} as Record<string, unknown>).polluted === undefined, 'prototype polluted')
}

// 3. Hostile model chunks: each run must end with a safe RUN_ERROR, never a crash.
{
  let errors = 0
  let finishes = 0
  for (let i = 0; i < HOSTILE_RUNS; i += 25) {
    const kinds = Array.from({ length: 25 }, (_, j) => (i + j) % HOSTILE.length)
    const runs = await Promise.all(kinds.map((kind) => post({ message: `hostile ${kind}` })))
    for (const [j, run] of runs.entries()) {
      const ended = events(run.text).at(-1)?.type
      check(ended === HOSTILE[kinds[j]!]!.ends, `hostile model ${kinds[j]} ended with ${ended}, not ${HOSTILE[kinds[j]!]!.ends}`)
      if (ended === 'RUN_ERROR') errors++
      else finishes++
    }
  }
  report['hostile model runs'] = `${HOSTILE_RUNS} runs: ${errors} safe RUN_ERROR, ${finishes} finished (refused calls told to the model)`
}

// 4. Disconnects: clients that leave mid-stream; each thread must come back idle and usable.
{
  const threads: string[] = []
  await Promise.all(
    Array.from({ length: DISCONNECTS }, async () => {
      const controller = new AbortController()
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'tell a story' }), signal: controller.signal })
      const reader = response.body!.getReader()
      const first = new TextDecoder().decode((await reader.read()).value)
      threads.push(threadOf(events(first)))
      controller.abort()
    }),
  )
  let idle = 0
  for (const threadId of threads) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const snapshot = JSON.parse((await request({ method: 'GET', path: `?threadId=${threadId}` })).text) as { status: string }
      if (snapshot.status === 'idle') {
        idle++
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  report['disconnects mid-stream'] = `${DISCONNECTS} aborted, ${idle} threads idle again`
  check(idle === DISCONNECTS, 'a thread stayed held after its client left')
}

// 5. A flood of anonymous runs while one run streams (issue 26, item 4): its reader drops, the
// flood starts more runs than the memory store keeps ended logs of, and the reader reconnects with
// Last-Event-ID: it must get every event after its last, and RUN_FINISHED.
{
  const FLOOD = MAX_ENDED_RUN_LOGS + 100
  const controller = new AbortController()
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'victim' }), signal: controller.signal })
  const reader = response.body!.getReader()
  let text = ''
  while ((text.match(/\n\n/g)?.length ?? 0) < 6) text += new TextDecoder().decode((await reader.read()).value)
  controller.abort()
  const blocks = text.split('\n\n').filter((block) => block.startsWith('id: ')).slice(0, 6)
  const lastId = /^id: (.*)$/m.exec(blocks.at(-1)!)![1]!
  const victimThread = threadOf(events(blocks.join('\n\n') + '\n\n'))
  let refused = 0
  for (let i = 0; i < FLOOD; i += 100) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, FLOOD - i) }, () => post({ message: 'hi' })))
    refused += batch.filter((turn) => turn.status === 429).length
  }
  endFlood()
  const replay = await request({ method: 'GET', path: `?threadId=${victimThread}`, headers: { accept: 'text/event-stream', 'last-event-id': lastId } })
  const ids = replay.text.split('\n\n').flatMap((block) => /^id: run_[\w-]+:(\d+)$/m.exec(block)?.[1] ?? []).map(Number)
  const after = Number(lastId.split(':')[1])
  const gapless = ids.every((id, index) => id === after + index + 1)
  const finished = events(replay.text).at(-1)?.type === 'RUN_FINISHED'
  const deltas = events(replay.text).filter((event) => event.type === 'TEXT_MESSAGE_CONTENT').length
  report[`flood (${FLOOD} anonymous runs) over a live run`] = `reader got ${ids.length} events after ${after}, gapless ${gapless}, RUN_FINISHED ${finished}; ${refused} refused 429`
  check(replay.status === 200 && gapless && finished && deltas >= VICTIM_PARTS - 6, 'a flood of runs cost a live run’s reader events')
}

// 6. Load: many threads at once, each a turn with a server tool.
{
  latencies.length = 0
  const started = performance.now()
  const turns = await Promise.all(Array.from({ length: LOAD_THREADS }, () => post({ message: 'weather in Paris' })))
  const finishedTurns = turns.filter((t) => events(t.text).at(-1)?.type === 'RUN_FINISHED').length
  const sorted = [...latencies].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1)
  report[`load (${LOAD_THREADS} concurrent threads)`] = `${finishedTurns} finished in ${(performance.now() - started).toFixed(0)} ms, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`
}

server.close()
const fivexx = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, count]) => sum + count, 0)
report['requests tried'] = requests
report['statuses'] = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(' ')
report['5xx'] = fivexx
report['crashes'] = crashes
report['RSS before → after'] = `${(rssBefore / 2 ** 20).toFixed(0)} MB → ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`
for (const [name, value] of Object.entries(report)) console.log(`${name.padEnd(44)} ${value}`)
check(fivexx === 0 && crashes === 0, 'a 5xx or a crash')

// 7. Faults: two instances on a real store, SIGKILL, freeze, restart, failed writes.
const faulted: FaultReport[] = []
for (const kind of ['redis', 'postgres'] as const) {
  const result = await runFaults(kind)
  printFaults(result)
  faulted.push(result)
}
const broken = faulted.flatMap((r) =>
  Object.entries({ lost: r.lost, 'tools run twice': r.toolsRunTwice, 'approved but never run': r.approvedNeverRun, '5xx other than 503': r.fiveXxOther, hangs: r.hangs, 'threads stuck': r.threadsStuck })
    .filter(([, count]) => count > 0)
    .map(([name, count]) => `${r.store}: ${name} ${count}`),
)
check(broken.length === 0 && crashes === 0, `under faults: ${broken.join(', ')}`)
