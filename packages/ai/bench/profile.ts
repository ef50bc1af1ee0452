/**
 * Where a server's CPU goes: runs one app process (bench/instance.ts), warms it up, profiles it
 * (V8's sampling profiler, as `--cpu-prof`) while loading it with a workload's turns, and prints the profile's top frames by self time, and the share of
 * Toolgate's own code, of Node's HTTP, streams and timers, and of the garbage collector.
 *
 * Run: npm run build, then tsx bench/profile.ts [toolgate|tanstack|ai-sdk|needed|bare] [weather|text|args|hello] [concurrency]
 * (the package as users run it: the built JavaScript); PROFILE_OUT=<file> also saves the raw profile (.cpuprofile);
 * PROFILE_MODEL=http: the model answers over HTTP (aimock serving OpenAI Chat Completions, weather turns; toolgate or tanstack)
 */
import { writeFileSync } from 'node:fs'
import { checkAiSdkTurn } from './aiSdkPeer.ts'
import { checkTanstackTurn } from './tanstackPeer.ts'
import { isShortTurn, measure, postJson, startInstance, type Serve, type Workload } from './workload.ts'

const serve = (process.argv[2] ?? 'toolgate') as Serve
const workload = (process.argv[3] ?? 'weather') as Workload
const concurrency = Number(process.argv[4] ?? 8)
const TOP = 30

const mock = process.env.PROFILE_MODEL === 'http' ? await startInstance('aimock') : undefined
const instance = await startInstance(serve, mock ? { MODEL_URL: mock.url.replace(/\/$/, '') } : {}, { workload })
const message = workload === 'weather' ? 'weather in Paris' : 'go'
const turn = async () => {
  const { status, text } = await postJson(instance.url, { message })
  if (serve === 'tanstack') return checkTanstackTurn(text, workload)
  if (serve === 'ai-sdk') return checkAiSdkTurn(text, workload)
  if (status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`turn failed (${status}): ${text.slice(-300)}`)
}
const limits = isShortTurn(workload) ? { warmup: 500, maxTurns: 6000, budgetMs: 5000 } : { warmup: 20, maxTurns: 400, budgetMs: 5000 }
for (let i = 0; i < limits.warmup; i++) await turn()
await instance.ask('profile-start')
const { done } = await measure(turn, concurrency, { ...limits, warmup: 0 })
const { profile } = (await instance.ask('profile-stop')) as { profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] } }
instance.stop()
mock?.stop()
// PROFILE_OUT=<file>: the raw profile too, for Chrome DevTools (Performance → Load profile) or speedscope.
if (process.env.PROFILE_OUT) writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile))

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

// Self time per node: each sample's time goes to the node it landed in.
const selfUs = new Map<number, number>()
profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, profile.timeDeltas[index] ?? 0)))
const byFrame = new Map<string, number>()
const byArea = new Map<string, number>()
let total = 0
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0
  const { functionName, url } = node.callFrame
  if (functionName === '(idle)') continue
  total += us
  const frame = frameOf(node.callFrame)
  byFrame.set(frame, (byFrame.get(frame) ?? 0) + us)
  byArea.set(areaOf(functionName, url), (byArea.get(areaOf(functionName, url)) ?? 0) + us)
}

// Total time per frame: each sample counts once for every distinct frame on its stack.
const parent = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
const nodeById = new Map(profile.nodes.map((node) => [node.id, node]))
const inclusive = new Map<string, number>()
for (const [id, us] of selfUs) {
  if (nodeById.get(id)?.callFrame.functionName === '(idle)') continue
  const seen = new Set<string>()
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const node = nodeById.get(at)!
    if (!node.callFrame.url.includes('/packages/ai/dist/')) continue
    const frame = frameOf(node.callFrame)
    if (seen.has(frame)) continue
    seen.add(frame)
    inclusive.set(frame, (inclusive.get(frame) ?? 0) + us)
  }
}

function frameOf({ functionName, url, lineNumber }: ProfileNode['callFrame']): string {
  const where = url.replace(/^.*\/node_modules\//, '').replace(/^.*\/packages\/ai\//, '').replace(/^file:\/\//, '')
  return `${functionName || '(anonymous)'} ${where ? `${where}:${lineNumber + 1}` : ''}`.trim()
}

function areaOf(name: string, url: string): string {
  if (name === '(garbage collector)') return 'garbage collector'
  if (name === '(program)' || name === '(root)') return 'V8/native (unattributed)'
  if (url.includes('/packages/ai/dist/')) return `toolgate ${url.replace(/^.*\/dist\//, '').split('/').slice(0, -1).join('/') || '.'}`
  if (url.includes('@tanstack')) return '@tanstack/ai'
  if (url.includes('/node_modules/ai7/') || url.includes('@ai-sdk')) return 'ai (AI SDK 7)'
  if (url.includes('/node_modules/openai/')) return 'openai SDK (TanStack\'s adapter)'
  if (url.startsWith('node:internal/deps/undici') || url.includes('undici')) return 'node: undici (Request/Response/Headers)'
  if (url.startsWith('node:internal/webstreams')) return 'node: web streams'
  if (url.startsWith('node:_http') || url.startsWith('node:http')) return 'node: http'
  if (url.startsWith('node:internal/streams') || url.startsWith('node:stream')) return 'node: streams'
  if (url.startsWith('node:net') || url.startsWith('node:internal/stream_base')) return 'node: net'
  if (url.startsWith('node:internal/timers') || url.startsWith('node:timers') || url.startsWith('node:internal/process/task_queues')) return 'node: timers and task queues'
  if (url.startsWith('node:')) return 'node: other'
  if (url === '') return 'native (builtins, JSON, regexps)'
  return url.includes('/bench/') ? 'bench instance' : 'other'
}

const share = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)}%`
console.log(`profile of ${serve} serving ${done} ${workload} turns at concurrency ${concurrency} (after a warm-up): ${(total / 1000).toFixed(0)} ms of CPU sampled, ${(total / 1000 / done).toFixed(3)} ms per turn`)
console.log('\n  by area (self time):')
for (const [area, us] of [...byArea].sort((a, b) => b[1] - a[1])) console.log(`  ${share(us)}  ${area}`)
console.log(`\n  top ${TOP} frames (self time):`)
for (const [frame, us] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${share(us)}  ${frame}`)
console.log(`\n  top ${TOP} Toolgate frames (total time, callees included):`)
for (const [frame, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${share(us)}  ${frame}`)
