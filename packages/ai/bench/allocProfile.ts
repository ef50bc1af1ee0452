/**
 * Where a turn's allocations are made: V8's sampling heap profile (every ~256 bytes, objects the
 * young and old collections took included) of an app process (bench/instance.ts) serving a
 * workload's turns after a warm-up, printed as bytes per turn by allocating function (self) and by
 * Toolgate function with its callees (total). A count, not a timing: steady on a busy machine.
 *
 * Run: npm run build, then tsx bench/allocProfile.ts [toolgate|needed|…] [weather|text|args|hello] [turns]
 */
import { measure, postJson, startInstance, type Serve, type Workload } from './workload.ts'

const serve = (process.argv[2] ?? 'toolgate') as Serve
const workload = (process.argv[3] ?? 'weather') as Workload
const turns = Number(process.argv[4] ?? 2000)
const TOP = 40

interface AllocNode {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: AllocNode[]
}

const instance = await startInstance(serve, {}, { workload })
const message = workload === 'weather' ? 'weather in Paris' : 'go'
const turn = async () => {
  const { status, text } = await postJson(instance.url, { message })
  if (status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`turn failed (${status}): ${text.slice(-300)}`)
}
for (let i = 0; i < 500; i++) await turn()
await instance.ask('alloc-start')
const { done } = await measure(turn, 1, { warmup: 0, maxTurns: turns, budgetMs: 120_000 })
const { profile } = (await instance.ask('alloc-stop')) as { profile: { head: AllocNode } }
instance.stop()

const frameOf = ({ functionName, url, lineNumber }: AllocNode['callFrame']) =>
  `${functionName || '(anonymous)'} ${url.replace(/^.*\/node_modules\//, '').replace(/^.*\/packages\/ai\//, '').replace(/^file:\/\//, '')}:${lineNumber + 1}`
const self = new Map<string, number>()
const total = new Map<string, number>()
let all = 0
const walk = (node: AllocNode, stack: string[]) => {
  const frame = frameOf(node.callFrame)
  self.set(frame, (self.get(frame) ?? 0) + node.selfSize)
  all += node.selfSize
  const here = node.callFrame.url.includes('/packages/ai/dist/') && !stack.includes(frame) ? [...stack, frame] : stack
  for (const seen of here) total.set(seen, (total.get(seen) ?? 0) + node.selfSize)
  // Counted once per node, on the way down: a node's own bytes go to every Toolgate frame above it.
  for (const child of node.children) walk(child, here)
}
for (const child of profile.head.children) walk(child, [])
const kb = (bytes: number) => `${(bytes / done / 1024).toFixed(2).padStart(7)} KB`
console.log(`allocProfile: ${serve} serving ${done} ${workload} turns, sampled: ${kb(all)} per turn`)
console.log(`\n  top ${TOP} by self:`)
for (const [frame, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${kb(bytes)}  ${frame}`)
console.log(`\n  top ${TOP} Toolgate frames by total:`)
for (const [frame, bytes] of [...total].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${kb(bytes)}  ${frame}`)
