/**
 * CPU per turn as instructions, not time: one app process (bench/instance.ts, the built package)
 * under valgrind's callgrind, counting only while `turns` turns run after a warm-up (turned on and
 * off from outside with `callgrind_control`). The count holds on a busy machine, where CPU time per
 * turn moves by a tenth between runs: a cut of a few percent shows here at once. Kernel time (the
 * socket's writes) is not counted; V8's compiler and collector are (run with `--single-threaded`, so
 * they work on the counted thread). About a minute a run; needs valgrind.
 *
 * Run: npm run build, then tsx bench/instructions.ts [package dir] [toolgate|needed|…] [turns] [concurrency] [warm-up turns]
 * (a package dir other than this one: a base build to compare with, as bench/abBuilds.ts takes)
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { measure, postJson, type Serve } from './workload.ts'

const dir = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url))
const serve = (process.argv[3] ?? 'toolgate') as Serve
const turns = Number(process.argv[4] ?? 2000)
const concurrency = Number(process.argv[5] ?? 8)
const warmup = Number(process.argv[6] ?? 2000)

const out = mkdtempSync(join(tmpdir(), 'instructions-'))
const child = spawn(
  'valgrind',
  ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${out}/callgrind.%p`, process.execPath, '--single-threaded', '--import', 'tsx', `${dir}/bench/instance.ts`],
  { cwd: dir, env: { ...process.env, SERVE: serve, WORKLOAD: 'weather' }, stdio: ['ignore', 'pipe', 'ignore'] },
)
try {
  let printed = ''
  const port = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`valgrind exited with ${code} (is it installed?)`)))
    child.stdout!.on('data', (data: Buffer) => {
      printed += String(data)
      const found = /port (\d+)/.exec(printed)?.[1]
      if (found) resolve(found)
    })
  })
  const url = `http://127.0.0.1:${port}/`
  const turn = async () => {
    const { status, text } = await postJson(url, { message: 'weather in Paris' })
    if (status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`${serve} turn failed (${status}): ${text.slice(-300)}`)
  }
  for (let i = 0; i < warmup; i++) await turn()
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' })
  control('-i', 'on')
  const { done } = await measure(turn, concurrency, { warmup: 0, maxTurns: turns, budgetMs: Number.POSITIVE_INFINITY })
  control('-d')
  control('-i', 'off')
  let instructions = 0
  for (const file of readdirSync(out)) instructions = Math.max(instructions, Number(/^(?:summary|totals):\s*(\d+)/m.exec(readFileSync(join(out, file), 'utf8'))?.[1] ?? 0))
  console.log(`instructions: ${serve} (${dir}) ${(instructions / done / 1000).toFixed(1)} k per weather turn, over ${done} turns at concurrency ${concurrency} after ${warmup}`)
} finally {
  child.removeAllListeners('exit')
  child.kill('SIGKILL')
  rmSync(out, { recursive: true, force: true })
}
