/**
 * The fault scenarios of `npm run stress`: two instances (processes) on one real Redis, then on one
 * real PostgreSQL, serve approval turns from concurrent clients while faults strike: an instance is
 * SIGKILLed mid-run (and started again), the store is frozen (SIGSTOP/SIGCONT) and restarted, and
 * one instance's store fails every Nth write. Each client drives its turn as a browser would:
 * retries a 503 or a refused request after a pause, reattaches to a broken stream with
 * `Last-Event-ID` on the other instance, and answers the approval on the other instance. After the
 * faults and a settling time, every thread is read back.
 *
 * Bounded: a fixed time per store, a fixed number of clients, a deadline per request (a request
 * past it counts as a hang), loopback only; the servers are stopped at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ThreadSnapshot } from '@toolgate/ai/protocol'
import { startPostgres } from '../test/services/postgres.ts'
import { startRedis, stopChild, waitForOutput } from '../test/services/redis.ts'

/** Clients driving turns at once. */
const CLIENTS = 6
/** How long clients start new turns, per store; the faults strike within it (FAULTS_PHASE_MS: longer, for more turns). */
const PHASE_MS = Number(process.env.FAULTS_PHASE_MS ?? 12_000)
/** A request without its whole answer after this long is a hang (and is abandoned). */
const HANG_MS = 20_000
/** The instances' run lease (test/services/chatServer.ts): a dead run's thread is free after it. */
const LEASE_MS = 1500
/** One instance's store fails every this many writes. */
const FAIL_COMMIT_EVERY = 20

const packageDir = fileURLToPath(new URL('..', import.meta.url))
const serverScript = fileURLToPath(new URL('../test/services/chatServer.ts', import.meta.url))

export interface FaultReport {
  readonly store: string
  readonly turnsTried: number
  /** Turns whose message the server accepted (it streamed RUN_STARTED). */
  readonly accepted: number
  /** Accepted turns whose thread ends settled with the tool's result and the model's reply. */
  readonly completed: number
  /** Accepted turns whose user message is not in the stored thread (or whose thread is gone). */
  readonly lost: number
  /** Calls of the non-idempotent tool that started more than once. */
  readonly toolsRunTwice: number
  /** Calls whose approval the server accepted (200/202) that never started. */
  readonly approvedNeverRun: number
  /** Of those, calls the stored thread reports as "may or may not have taken effect" (a lie: they never started). */
  readonly approvedNeverRunSaidMaybe: number
  readonly fiveXx: number
  readonly fiveXxOther: number
  readonly hangs: number
  /** Threads still held by a run after the faults ended and every lease lapsed. */
  readonly threadsStuck: number
  readonly maxLatencyMs: number
  readonly faults: string
}

interface Instance {
  child: ChildProcess
  url: string
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function runFaults(kind: 'redis' | 'postgres'): Promise<FaultReport> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-faults-'))
  const toolLog = join(dir, 'tools.log')
  writeFileSync(toolLog, '')
  const service = kind === 'redis' ? await startRedis({ appendOnly: true }) : await startPostgres()
  const storeEnv: Record<string, string> = kind === 'redis' ? { REDIS_URL: (service as { url: string }).url } : { DATABASE_URL: (service as { connectionString: string }).connectionString }
  const env = { ...process.env, ...storeEnv, TOOL_LOG: toolLog, TOOL_MS: '150', MODEL_DELAY_MS: '2', PREFIX: 'faults' }
  const children: ChildProcess[] = []
  const spawnInstance = async (extra: Record<string, string> = {}): Promise<Instance> => {
    const child = spawn(process.execPath, ['--conditions=@toolgate/source', '--import', 'tsx', serverScript], { cwd: packageDir, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] })
    children.push(child)
    let port = 0
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString())
      if (match) port = Number(match[1])
    })
    await waitForOutput(child, /listening \d+/, 'chat instance', 30_000)
    return { child, url: `http://127.0.0.1:${port}/` }
  }

  const instances: Instance[] = [await spawnInstance(), await spawnInstance({ FAIL_COMMIT_EVERY: String(FAIL_COMMIT_EVERY) })]
  const statuses = { fiveXx: 0, fiveXxOther: 0, hangs: 0, maxLatencyMs: 0 }
  const accepted: string[] = []
  /** Calls whose approval the server accepted, by tool call id, with their thread. */
  const approved = new Map<string, string>()
  let tried = 0

  /** One request with a deadline; its status and text, or `undefined` when the connection failed (a killed instance). */
  const request = async (url: string, init: RequestInit): Promise<{ status: number; text: string } | undefined> => {
    const started = performance.now()
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(HANG_MS) })
      const text = await response.text()
      statuses.maxLatencyMs = Math.max(statuses.maxLatencyMs, performance.now() - started)
      if (response.status >= 500) {
        statuses.fiveXx++
        if (response.status !== 503) statuses.fiveXxOther++
      }
      return { status: response.status, text }
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') statuses.hangs++
      return undefined
    }
  }
  const post = (url: string, body: unknown) => request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const snapshotOf = async (index: number, threadId: string): Promise<ThreadSnapshot | undefined> => {
    const answer = await request(`${instances[index % 2]!.url}?threadId=${threadId}`, { method: 'GET' })
    return answer?.status === 200 ? (JSON.parse(answer.text) as ThreadSnapshot) : undefined
  }

  /** Reads a run to its end: its stream, then (when the stream broke) reattaches on the other instance with the last event id. */
  const follow = async (index: number, threadId: string, text: string | undefined): Promise<void> => {
    let lastId = lastEventId(text)
    for (let attempt = 0; attempt < 4 && !ended(text); attempt++) {
      await pause(200)
      const answer = await request(`${instances[(index + attempt + 1) % 2]!.url}?threadId=${threadId}`, {
        method: 'GET',
        headers: { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
      })
      if (answer?.status === 204) return
      text = answer?.status === 200 ? answer.text : undefined
      lastId = lastEventId(text) ?? lastId
    }
  }

  /**
   * A turn: "pay Bob", the approval on the other instance until the thread settles, then a next
   * message on the same thread (which must not run the paid call again).
   */
  const turn = async (client: number) => {
    tried++
    let threadId: string | undefined
    for (let attempt = 0; attempt < 5 && !threadId; attempt++) {
      const answer = await post(instances[(client + attempt) % 2]!.url, { message: 'pay Bob' })
      const started = answer?.status === 200 ? /"type":"RUN_STARTED","threadId":"([^"]+)"/.exec(answer.text) : null
      if (started) {
        threadId = started[1]!
        accepted.push(threadId)
        await follow(client + attempt, threadId, answer!.text)
      } else await pause(300)
    }
    if (!threadId) return
    for (let step = 0; step < 6; step++) {
      const snapshot = await settled(client + step, threadId)
      if (!snapshot) return
      // Every answer stored but the run lost (idle, answers held): replaying one re-drives it, as the protocol says.
      const held = snapshot.interrupts.length === 0 && snapshot.status === 'idle' ? (snapshot.answers ?? []) : []
      if (snapshot.interrupts.length === 0 && held.length === 0) break
      const resume =
        held.length > 0
          ? held.map((answer) => ({ interruptId: (answer as { interruptId: string }).interruptId, approved: true }))
          : snapshot.interrupts.map((interrupt) => ({ interruptId: interrupt.id, approved: true }))
      const answer = await post(instances[(client + step + 1) % 2]!.url, { threadId, resume })
      if (answer?.status === 200 || answer?.status === 202) for (const interrupt of snapshot.interrupts) approved.set(interrupt.toolCallId, threadId)
      if (answer?.status === 200) await follow(client + step + 1, threadId, answer.text)
      else await pause(300)
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      const answer = await post(instances[(client + attempt) % 2]!.url, { threadId, message: 'thanks' })
      if (answer?.status === 200) return follow(client + attempt, threadId, answer.text)
      await pause(300)
    }
  }
  /** The thread once no run holds it (bounded: a few leases). */
  const settled = async (index: number, threadId: string): Promise<ThreadSnapshot | undefined> => {
    for (let look = 0; look < 40; look++) {
      const snapshot = await snapshotOf(index + look, threadId)
      if (snapshot && snapshot.status !== 'running') return snapshot
      await pause(150)
    }
    return undefined
  }

  // The clients, and the faults while they run.
  const phaseEnds = Date.now() + PHASE_MS
  const clients = Array.from({ length: CLIENTS }, async (_, client) => {
    while (Date.now() < phaseEnds) await turn(client)
  })
  const faults: string[] = []
  const schedule = (async () => {
    await pause(2500)
    instances[0]!.child.kill('SIGKILL')
    faults.push('SIGKILL instance A')
    instances[0] = await spawnInstance()
    await pause(1000)
    service.freeze()
    await pause(1500)
    service.thaw()
    faults.push('store frozen 1.5 s')
    await pause(1500)
    await service.restart()
    faults.push('store restarted')
  })()
  await Promise.all([...clients, schedule])

  // Every lease lapses; then each thread is read back.
  await pause(LEASE_MS * 2)
  let completed = 0
  let lost = 0
  let threadsStuck = 0
  for (const threadId of accepted) {
    const snapshot = (await snapshotOf(0, threadId)) ?? (await snapshotOf(1, threadId))
    if (!snapshot || !snapshot.messages.some((message) => message.role === 'user' && message.content === 'pay Bob')) {
      lost++
      continue
    }
    if (snapshot.status === 'running') threadsStuck++
    const paid = snapshot.messages.some((message) => message.role === 'tool' && message.toolName === 'transfer_money' && message.status === 'success')
    if (snapshot.status === 'idle' && paid && snapshot.messages.at(-1)?.role === 'assistant') completed++
  }
  const starts = readFileSync(toolLog, 'utf8').trim().split('\n').filter(Boolean).map((line) => line.split(' ')[1]!)
  const counts = new Map<string, number>()
  for (const id of starts) counts.set(id, (counts.get(id) ?? 0) + 1)
  let approvedNeverRun = 0
  let approvedNeverRunSaidMaybe = 0
  for (const [toolCallId, threadId] of approved) {
    if (counts.has(toolCallId)) continue
    approvedNeverRun++
    const snapshot = (await snapshotOf(0, threadId)) ?? (await snapshotOf(1, threadId))
    const result = snapshot?.messages.find((message) => message.role === 'tool' && message.toolCallId === toolCallId)
    if (result && result.role === 'tool' && /may or may not have taken effect/.test(result.content)) approvedNeverRunSaidMaybe++
  }

  await Promise.all(children.map((child) => stopChild(child)))
  await service.stop()
  rmSync(dir, { recursive: true, force: true })
  return {
    store: kind === 'redis' ? 'Redis' : 'PostgreSQL',
    turnsTried: tried,
    accepted: accepted.length,
    completed,
    lost,
    toolsRunTwice: [...counts.values()].filter((count) => count > 1).length,
    approvedNeverRun,
    approvedNeverRunSaidMaybe,
    ...statuses,
    threadsStuck,
    faults: `${faults.join(', ')}, every ${FAIL_COMMIT_EVERY}th write on instance B fails`,
  }
}

function ended(text: string | undefined): boolean {
  return text !== undefined && /"type":"(RUN_FINISHED|RUN_ERROR)"/.test(text)
}

function lastEventId(text: string | undefined): string | undefined {
  if (!text) return undefined
  const ids = [...text.matchAll(/^id: (.+)$/gm)]
  return ids.at(-1)?.[1]
}

// `tsx bench/faults.ts`: the fault scenarios alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const kind of ['redis', 'postgres'] as const) printFaults(await runFaults(kind))
}

export function printFaults(report: FaultReport): void {
  const rows: [string, string | number][] = [
    [`faults on ${report.store} (2 instances)`, report.faults],
    ['  turns tried / accepted', `${report.turnsTried} / ${report.accepted}`],
    ['  completed', report.completed],
    ['  lost', report.lost],
    ['  tools run twice', report.toolsRunTwice],
    ['  approved but never run', report.approvedNeverRun],
    ['    of which said "may or may not have taken effect"', report.approvedNeverRunSaidMaybe],
    ['  5xx (of which not 503 STORE_ERROR)', `${report.fiveXx} (${report.fiveXxOther})`],
    ['  hangs', report.hangs],
    ['  threads stuck', report.threadsStuck],
    ['  max latency', `${report.maxLatencyMs.toFixed(0)} ms`],
  ]
  for (const [name, value] of rows) console.log(`${name.padEnd(52)} ${value}`)
}
