/**
 * What one turn does, counted rather than timed: Toolgate beside the bare `node:http` floor (and
 * any other server of bench/instance.ts), each in its own process serving the same turns, per turn:
 * system calls (with strace, when the machine has it), `res.write`/`res.end`, promises (by the
 * Toolgate folder that made them) and other async resources, timers, immediates, event listeners,
 * AbortControllers, collections and the bytes allocated in the young generation. Counts do not drift with the
 * machine's load the way CPU time does, so a change that cuts work shows here at once; CPU per
 * turn stays server.bench.ts's figure (the counting hooks slow the process).
 *
 * Run: npm run build, then tsx bench/turnCounts.ts [weather|text|args] [turns] [concurrency] [servers, comma-separated]
 * (TURN_COUNTS_BY=line names each promise's file, line and function instead of its folder)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkTanstackTurn } from './tanstackPeer.ts'
import { isShortTurn, measure, postJson, startInstance, type Serve, type Workload } from './workload.ts'

const workload = (process.argv[2] ?? 'weather') as Workload
const turns = Number(process.argv[3] ?? (isShortTurn(workload) ? 2000 : 50))
const concurrency = Number(process.argv[4] ?? 1)
const servers = (process.argv[5] ?? 'toolgate,bare').split(',') as Serve[]
const message = workload === 'weather' ? 'weather in Paris' : 'go'
const hasStrace = spawnSync('strace', ['-V']).status === 0

interface Reply {
  readonly counts: Record<string, number>
  readonly scavenges: number
  readonly markCompacts: number
  readonly youngAllocated: number
}

/** Runs `turns` turns against a fresh instance counting with `mode`; the hook's totals, and system calls by name when traced. */
async function countTurns(serve: Serve, mode: 'light' | 'promises', trace: boolean): Promise<{ reply: Reply; syscalls: Map<string, number> | undefined; done: number }> {
  const instance = await startInstance(serve, { TURN_COUNTS: mode }, { workload })
  const turn = async () => {
    const { status, text } = await postJson(instance.url, { message })
    if (serve === 'tanstack') return checkTanstackTurn(text, workload)
    if (status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`${serve} turn failed (${status}): ${text.slice(-300)}`)
  }
  try {
    for (let i = 0; i < Math.min(500, turns); i++) await turn()
    let strace: ChildProcess | undefined
    const dir = mkdtempSync(join(tmpdir(), 'turn-counts-'))
    const out = join(dir, 'strace.txt')
    if (trace) {
      strace = spawn('strace', ['-f', '-c', '-o', out, '-p', String(instance.pid)], { stdio: 'ignore' })
      await new Promise((resolve) => setTimeout(resolve, 500)) // strace attaches
    }
    await instance.ask('counts-start')
    const { done } = await measure(turn, concurrency, { warmup: 0, maxTurns: turns, budgetMs: 120_000 })
    const reply = (await instance.ask('counts-stop')) as Reply
    let syscalls: Map<string, number> | undefined
    if (strace) {
      strace.kill('SIGINT')
      await new Promise((resolve) => strace!.once('exit', resolve))
      syscalls = new Map()
      for (const line of readFileSync(out, 'utf8').split('\n')) {
        const fields = line.trim().split(/\s+/)
        // % time, seconds, usecs/call, calls, [errors,] syscall
        if (fields.length >= 5 && /^\d+$/.test(fields[3]!) && fields.at(-1) !== 'total') syscalls.set(fields.at(-1)!, Number(fields[3]))
      }
    }
    rmSync(dir, { recursive: true, force: true })
    return { reply, syscalls, done }
  } finally {
    instance.stop()
  }
}

const light = new Map<Serve, Awaited<ReturnType<typeof countTurns>>>()
const promises = new Map<Serve, Awaited<ReturnType<typeof countTurns>>>()
for (const serve of servers) {
  light.set(serve, await countTurns(serve, 'light', hasStrace))
  promises.set(serve, await countTurns(serve, 'promises', false))
}

const per = (value: number | undefined, done: number) => ((value ?? 0) / done).toFixed(2).padStart(10)
const rows: [string, (serve: Serve) => number | undefined, 'light' | 'promises'][] = [
  ['res.write', (serve) => light.get(serve)!.reply.counts['res.write'], 'light'],
  ['res.end', (serve) => light.get(serve)!.reply.counts['res.end'], 'light'],
  ['promises', (serve) => promises.get(serve)!.reply.counts['async PROMISE'], 'promises'],
  ['process.nextTick', (serve) => promises.get(serve)!.reply.counts['async TickObject'], 'promises'],
  ['setImmediate', (serve) => light.get(serve)!.reply.counts.setImmediate, 'light'],
  ['setTimeout', (serve) => light.get(serve)!.reply.counts.setTimeout, 'light'],
  ['queueMicrotask', (serve) => light.get(serve)!.reply.counts.queueMicrotask, 'light'],
  ['structuredClone', (serve) => light.get(serve)!.reply.counts.structuredClone, 'light'],
  ['AbortController', (serve) => light.get(serve)!.reply.counts.AbortController, 'light'],
  ['EventEmitter listeners', (serve) => sum(light.get(serve)!.reply.counts, 'listener '), 'light'],
  ['EventTarget listeners', (serve) => sum(light.get(serve)!.reply.counts, 'EventTarget listener '), 'light'],
  ['scavenges per 1,000 turns', (serve) => light.get(serve)!.reply.scavenges * 1000, 'light'],
  ['mark-compacts per 1,000', (serve) => light.get(serve)!.reply.markCompacts * 1000, 'light'],
  ['young allocation (KB)', (serve) => light.get(serve)!.reply.youngAllocated / 1024, 'light'],
]
function sum(counts: Record<string, number>, prefix: string): number {
  return Object.entries(counts).reduce((total, [key, value]) => (key.startsWith(prefix) ? total + value : total), 0)
}

console.log(`turnCounts: what one ${workload} turn does, per turn, over ${turns} turns at concurrency ${concurrency} after a warm-up (node ${process.version})`)
console.log(`  ${''.padEnd(26)}${servers.map((serve) => serve.padStart(12)).join('')}`)
for (const [name, value, pass] of rows) {
  console.log(`  ${name.padEnd(26)}${servers.map((serve) => per(value(serve), (pass === 'light' ? light : promises).get(serve)!.done).padStart(12)).join('')}`)
}
if (hasStrace) {
  const names = new Set(servers.flatMap((serve) => [...light.get(serve)!.syscalls!.keys()]))
  const rowsOf = [...names].filter((name) => servers.some((serve) => (light.get(serve)!.syscalls!.get(name) ?? 0) / light.get(serve)!.done >= 0.05))
  console.log('  system calls (strace -f -c; futex and epoll_pwait include the runtime\'s own threads and idle waits):')
  for (const name of rowsOf) console.log(`    ${name.padEnd(24)}${servers.map((serve) => per(light.get(serve)!.syscalls!.get(name), light.get(serve)!.done).padStart(12)).join('')}`)
} else console.log('  (no strace on this machine: system calls not counted)')
console.log("  (promises as async_hooks sees them: with a hook on, each `await` of a native promise makes one V8 otherwise skips, so awaits count twice)")
for (const serve of servers) {
  const { reply, done } = promises.get(serve)!
  const folders = Object.entries(reply.counts)
    .filter(([key]) => key.startsWith('promise from '))
    .sort((a, b) => b[1] - a[1])
    .map(([key, value]) => `${key.slice('promise from '.length)} ${(value / done).toFixed(1)}`)
  // TURN_COUNTS_BY=line: by file, line and function, one a line.
  if (folders.length > 0) console.log(`  ${serve} promises by where they were made: ${folders.join(process.env.TURN_COUNTS_BY === 'line' ? '\n    ' : ', ')}`)
}
