/**
 * CPU per turn as instructions, not time (bench/callgrind.ts): one app process (bench/instance.ts,
 * the built package) under valgrind's callgrind, counting only while `turns` turns run after a
 * warm-up. The count holds on a busy machine, where CPU time per turn moves by a tenth between runs:
 * a cut of a few percent shows here at once. About a minute a run; needs valgrind.
 *
 * Run: npm run build, then tsx bench/instructions.ts [package dir] [toolgate|needed|model|…] [turns] [concurrency] [warm-up turns] [weather|text|args]
 * (a package dir other than this one: a base build to compare with, as bench/abBuilds.ts takes;
 * `model`: the scripted model alone, which both the server and the floor pay)
 */
import { fileURLToPath } from 'node:url'
import { instructionsPerTurn, modelInstructionsPerTurn } from './callgrind.ts'
import type { Serve, Workload } from './workload.ts'

const dir = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url))
const serve = process.argv[3] ?? 'toolgate'
const turns = Number(process.argv[4] ?? 2000)
const concurrency = Number(process.argv[5] ?? 8)
const warmup = Number(process.argv[6] ?? 2000)
const workload = (process.argv[7] ?? 'weather') as Workload

const perTurn = serve === 'model' ? await modelInstructionsPerTurn({ dir, workload, turns }) : await instructionsPerTurn({ dir, serve: serve as Serve, workload, turns, concurrency, warmup })
const k = (count: number) => (count / 1000).toFixed(1)
console.log(`instructions: ${serve} (${dir}) ${k(perTurn.total)} k per ${workload} turn, over ${turns} turns${serve === 'model' ? '' : ` at concurrency ${concurrency} after ${warmup}`}`)
console.log(`  of which V8's compiler ${k(perTurn.compiler)} k, its collector ${k(perTurn.collector)} k: ${k(perTurn.total - perTurn.compiler)} k without the compiler`)
