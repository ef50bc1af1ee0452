/**
 * CPU per turn as instructions, not time: a process under valgrind's callgrind, counting only
 * between two marks set from outside (`callgrind_control`). Counts move far less with the machine's
 * load than CPU time does (±30% between runs minutes apart on a shared 2-core VM), so the server
 * bench prints the per-turn ratio to the floor by both measures. Not nothing: V8's compiler
 * follows wall time (on a machine at 7× its cores a turn counted up to a third more), so it is
 * counted apart; the collector is scheduled by allocation here (GC_BY_ALLOCATION). Kernel time (the socket's writes) is
 * not counted; V8's compiler and collector are (run with `--single-threaded`, so they work on the
 * counted thread).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { measure, postJson, type Serve, type Workload } from './workload.ts'

export const hasCallgrind = () => spawnSync('callgrind_control', ['-h']).error === undefined && spawnSync('valgrind', ['--version']).status === 0

/**
 * The collector scheduled by what is allocated, not by wall time: under valgrind a process runs
 * ~50× slower, and with V8's default schedule (idle-time and memory-reducer collections, timed)
 * the collector's count followed the machine's load, ±10–15% between two runs of one build.
 */
const GC_BY_ALLOCATION = ['--predictable-gc-schedule', '--no-memory-reducer']

/** valgrind's arguments up to node's own: callgrind counting from the first mark set from outside, its output in `out`. */
export function nodeUnderCallgrind(out: string): string[] {
  return ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${out}/callgrind.%p`, process.execPath, '--single-threaded', ...GC_BY_ALLOCATION]
}

/** What the last dumped window counted, from `out`: the counted thread's file is the largest. */
export function countedIn(out: string): Counts {
  let total = 0
  let counted = ''
  for (const file of readdirSync(out)) {
    const found = Number(/^(?:summary|totals):\s*(\d+)/m.exec(readFileSync(join(out, file), 'utf8'))?.[1] ?? 0)
    if (found > total) [total, counted] = [found, join(out, file)]
  }
  return { total, ...apart(counted) }
}

interface Counted {
  readonly child: ChildProcess
  /** Waits until the child has printed a line matching `pattern`; its first group. */
  readonly printed: (pattern: RegExp) => Promise<string>
  /** Instructions counted while `work` runs. */
  readonly count: (work: () => Promise<void>) => Promise<Counts>
}

async function underCallgrind<T>(dir: string, script: string, env: Record<string, string>, use: (counted: Counted) => Promise<T>): Promise<T> {
  const out = mkdtempSync(join(tmpdir(), 'instructions-'))
  const child = spawn('valgrind', [...nodeUnderCallgrind(out), '--import', 'tsx', `${dir}/bench/${script}`], { cwd: dir, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'ignore'] })
  let output = ''
  child.stdout!.on('data', (data: Buffer) => (output += String(data)))
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`valgrind exited with ${code} (is it installed?)`))))
  exited.catch(() => {})
  const printed = async (pattern: RegExp) => {
    for (;;) {
      const found = pattern.exec(output)
      if (found) return found[1] ?? found[0]
      await Promise.race([exited, new Promise((resolve) => child.stdout!.once('data', resolve))])
    }
  }
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' })
  const count = async (work: () => Promise<void>) => {
    control('-i', 'on')
    await work()
    control('-d')
    control('-i', 'off')
    return countedIn(out)
  }
  try {
    return await use({ child, printed, count })
  } finally {
    child.removeAllListeners('exit')
    child.kill('SIGKILL')
    rmSync(out, { recursive: true, force: true })
  }
}

/** Instructions: all counted, and of them V8's optimizing compilers (and parser) and its collector, by function name. */
export interface Counts {
  readonly total: number
  readonly compiler: number
  readonly collector: number
}

// Functions a turn calls once get hot only after thousands of turns, so the compiler is still at
// work after any warm-up a bench can afford (up to a fifth of a counted turn); a server that runs
// for hours pays it once. The collector is a turn's real cost, but when a full collection falls
// moves it by tens of k between runs. Both are printed apart.
const COLLECTOR = /Scaveng|Heap::|MarkCompact|Marking|Evacuat|IteratePointers|BodyDescriptor|Sweeper|PretenuringHandler|ShouldBePromoted|SizeFromMap|GCTracer|RememberedSet|SlotSet|MemoryAllocator|PagedSpace|NewSpace|FreeList|ProcessWeak|ClearNonLive|MinorMC|RootVisitor|ObjectVisitor|AllocateInNewSpace|RecordMigrated|GlobalHandles/
const COMPILER = /compiler::|Turbofan|Maglev|OptimizingCompile|Compiler::|Zone|BytecodeGenerator|Parser|Scanner|Deoptimizer|interpreter::/

function apart(file: string): { compiler: number; collector: number } {
  const sums = { compiler: 0, collector: 0 }
  if (!file) return sums
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
  for (const line of annotated.split('\n')) {
    const found = /^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$/.exec(line)
    if (!found || found[2]!.includes('PROGRAM TOTALS')) continue
    const count = Number(found[1]!.replaceAll(',', ''))
    if (COLLECTOR.test(found[2]!)) sums.collector += count
    else if (COMPILER.test(found[2]!)) sums.compiler += count
  }
  return sums
}

const perTurn = (counts: Counts, turns: number): Counts => ({ total: counts.total / turns, compiler: counts.compiler / turns, collector: counts.collector / turns })

export interface TurnCount {
  /** The package directory whose bench/ and built dist run (another: a base build to compare with). */
  readonly dir: string
  readonly serve: Serve
  readonly workload?: Workload
  readonly turns: number
  readonly concurrency: number
  readonly warmup: number
}

/** Instructions per turn of one server (bench/instance.ts) over HTTP, after a warm-up. */
export function instructionsPerTurn({ dir, serve, workload = 'weather', turns, concurrency, warmup }: TurnCount): Promise<Counts> {
  return underCallgrind(dir, 'instance.ts', { SERVE: serve, WORKLOAD: workload }, async ({ printed, count }) => {
    const url = `http://127.0.0.1:${await printed(/port (\d+)/)}/`
    const message = workload === 'weather' ? 'weather in Paris' : 'go'
    const turn = async () => {
      const { status, text } = await postJson(url, { message })
      if (status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`${serve} turn failed (${status}): ${text.slice(-300)}`)
    }
    for (let i = 0; i < warmup; i++) await turn()
    let done = 0
    const counts = await count(async () => {
      done = (await measure(turn, concurrency, { warmup: 0, maxTurns: turns, budgetMs: Number.POSITIVE_INFINITY })).done
    })
    return perTurn(counts, done)
  })
}

/** Instructions per turn of the scripted model alone (bench/modelReplay.ts: one Toolgate turn's model calls, replayed), which the server and the floor both pay. */
export function modelInstructionsPerTurn({ dir, workload = 'weather', turns }: Pick<TurnCount, 'dir' | 'workload' | 'turns'>): Promise<Counts> {
  return underCallgrind(dir, 'modelReplay.ts', { WORKLOAD: workload, TURNS: String(turns) }, async ({ child, printed, count }) => {
    await printed(/^ready$/m)
    const counts = await count(async () => {
      child.stdin!.write('go\n')
      await printed(/^done$/m)
    })
    return perTurn(counts, turns)
  })
}
