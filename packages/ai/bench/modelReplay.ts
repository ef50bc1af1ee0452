/**
 * The scripted model alone under callgrind (bench/callgrind.ts): one Toolgate turn's model calls,
 * recorded through the chat handler, warmed up, then replayed TURNS times when 'go' comes on stdin.
 * Prints 'ready' before and 'done' after.
 */
import { createInterface } from 'node:readline'
import { toolgateModelReplay } from './modelCost.ts'
import type { Workload } from './workload.ts'

const replay = await toolgateModelReplay((process.env.WORKLOAD ?? 'weather') as Workload)
const turns = Number(process.env.TURNS ?? 2000)
for (let i = 0; i < turns; i++) await replay()
console.log('ready')
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'go') continue
  for (let i = 0; i < turns; i++) await replay()
  console.log('done')
}
