/**
 * An interleaved A/B of two builds of the package: CPU per turn of Toolgate's server, one process
 * per build (bench/instance.ts from each), loaded in alternating rounds (the order swapped each
 * round) so the machine's other load falls on both alike. Prints each build's lowest and median
 * CPU per turn and the spread of the per-round ratios: on a shared machine a change inside that
 * spread is not measured.
 *
 * Run: copy the base build's package (package.json, dist, bench) to a directory of its own, with
 * node_modules reaching this repository's (a symlink); npm run build here; then
 * tsx bench/abBuilds.ts <base package dir> [weather|text|args] [concurrency] [rounds] [turns per round]
 * (AB_MODEL=http: the model answers over HTTP, aimock serving OpenAI Chat Completions, weather turns; the
 * base package's bench/ must then be this one's, whose instance.ts reads MODEL_URL)
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { isShortTurn, measure, postJson, startInstance, type Workload } from './workload.ts'

const base = process.argv[2]
if (!base) throw new Error('usage: tsx bench/abBuilds.ts <base package dir> [workload] [concurrency] [rounds] [turns per round]')
const workload = (process.argv[3] ?? 'weather') as Workload
const concurrency = Number(process.argv[4] ?? 8)
const rounds = Number(process.argv[5] ?? 20)
const turns = Number(process.argv[6] ?? (isShortTurn(workload) ? 600 : 40))
const builds = { base, new: fileURLToPath(new URL('..', import.meta.url)) }
type Build = keyof typeof builds

async function start(dir: string) {
  // Each build's instance.ts imports `@toolgate/ai/server` from its own package (a package resolves its own name).
  const child = spawn(process.execPath, ['--import', 'tsx', `${dir}/bench/instance.ts`], { cwd: dir, env: { ...process.env, SERVE: 'toolgate', WORKLOAD: workload }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
  const port = await new Promise<string>((resolve) => child.stdout!.on('data', (data: Buffer) => { const found = /port (\d+)/.exec(String(data))?.[1]; if (found) resolve(found) }))
  const cpuMs = () => new Promise<number>((resolve) => { child.once('message', (usage: NodeJS.CpuUsage) => resolve((usage.user + usage.system) / 1000)); child.send('cpu') })
  return { url: `http://127.0.0.1:${port}/`, cpuMs, stop: () => child.kill() }
}

const mock = process.env.AB_MODEL === 'http' ? await startInstance('aimock') : undefined
if (mock) process.env.MODEL_URL = mock.url.replace(/\/$/, '')
const instances = { base: await start(builds.base), new: await start(builds.new) }
const message = workload === 'weather' ? 'weather in Paris' : 'go'
const turnOf = (build: Build) => async () => {
  const { status, text } = await postJson(instances[build].url, { message })
  if (status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`${build} turn failed (${status}): ${text.slice(-300)}`)
}
const cpu: Record<Build, number[]> = { base: [], new: [] }
try {
  for (const build of ['base', 'new'] as const) for (let i = 0; i < (isShortTurn(workload) ? 500 : 20); i++) await turnOf(build)()
  for (let round = 0; round < rounds; round++) {
    for (const build of (round % 2 === 0 ? ['base', 'new'] : ['new', 'base']) as Build[]) {
      const before = await instances[build].cpuMs()
      const { done } = await measure(turnOf(build), concurrency, { warmup: 0, maxTurns: turns, budgetMs: 60_000 })
      cpu[build].push(((await instances[build].cpuMs()) - before) / done)
    }
  }
} finally {
  instances.base.stop()
  instances.new.stop()
  mock?.stop()
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b)
const median = (values: number[]) => {
  const s = sorted(values)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const ratios = sorted(cpu.new.map((value, round) => value / cpu.base[round]!))
const at = (share: number) => ratios[Math.min(ratios.length - 1, Math.floor(share * ratios.length))]!.toFixed(2)
const ms = (value: number) => `${value.toFixed(3)} ms`
console.log(
  `abBuilds ${workload} at concurrency ${concurrency}, ${rounds} rounds of ${turns} turns, CPU per turn: base lowest ${ms(Math.min(...cpu.base))}, median ${ms(median(cpu.base))}; new lowest ${ms(Math.min(...cpu.new))}, median ${ms(median(cpu.new))}` +
    ` | new ÷ base per round: median ${median(ratios).toFixed(3)}, quartiles ${at(0.25)}–${at(0.75)}, range ${at(0)}–${at(1)}`,
)
