/**
 * What one weather turn on an existing thread (a POST with one server tool, the model called twice) runs of the library,
 * by V8 precise coverage: the functions called, the files and folders they are in. The scripted
 * model and the memory store are the app's and are left out, as are the turns before (the one
 * that makes the thread, a warm-up) and the bundler's `__name` helpers. A count, not a timing: ARCHITECTURE.md's walk of a turn is checked against it.
 *
 * Run: tsx --conditions=@toolgate/source bench/walk.ts [--list]
 */
import { Session } from 'node:inspector/promises'
import { fileURLToPath } from 'node:url'
import * as v from 'valibot'
import { toolDefinition } from '../src/index.ts'
import { createChatHandler } from '../src/server/index.ts'
import { scriptedModel } from '../src/server/testing/index.ts'

const weather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: v.object({ city: v.string() }),
  outputSchema: v.object({ tempC: v.number() }),
}).server(({ city }) => ({ tempC: city.length }))
const model = scriptedModel(
  [{ when: /weather in (\w+)/i, call: (m) => ({ tool: 'get_weather', input: { city: m[1] } }), then: ([r]) => (r.tool === 'get_weather' && r.ok ? `It is ${r.output.tempC}°C.` : r.content) }],
  { tools: [weather] },
)
const handler = createChatHandler({ model, tools: [weather] })
const src = fileURLToPath(new URL('../src/', import.meta.url))
const appsOwn = /server\/(testing\/scriptedModel|stores\/memory)\.ts$/

let threadId: string | undefined

async function turn(): Promise<void> {
  const body = JSON.stringify({ ...(threadId ? { threadId } : {}), message: 'weather in Paris' })
  const response = await handler(new Request('http://localhost/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body }))
  const text = await response.text()
  if (!text.includes('"RUN_FINISHED"') || !text.includes('TOOL_CALL_RESULT')) throw new Error(`the turn failed: ${text.slice(-300)}`)
  threadId ??= /"threadId":"([^"]+)"/.exec(text)![1]
}

const session = new Session()
session.connect()
await session.post('Profiler.enable')
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })
await turn()
await turn()
await session.post('Profiler.takePreciseCoverage') // resets the counts: the warm-up is not counted
await turn()
const { result } = await session.post('Profiler.takePreciseCoverage')
await session.post('Profiler.stopPreciseCoverage')

const byFile = new Map<string, string[]>()
for (const script of result) {
  const path = script.url.startsWith('file://') ? fileURLToPath(script.url) : script.url
  if (!path.startsWith(src) || appsOwn.test(path)) continue
  const called = script.functions.filter((fn) => fn.ranges[0]!.count > 0 && fn.ranges[0]!.startOffset > 0).map((fn) => fn.functionName || '(anonymous)').filter((name) => name !== '__name')
  if (called.length > 0) byFile.set(path.slice(src.length), called)
}
const functions = [...byFile.values()].reduce((sum, names) => sum + names.length, 0)
const folders = new Map<string, number>()
for (const [file, names] of byFile) folders.set(file.split('/').slice(0, -1).join('/') || '.', (folders.get(file.split('/').slice(0, -1).join('/') || '.') ?? 0) + names.length)
console.log(`walk: one weather turn runs ${functions} library functions (${[...byFile.values()].flat().filter((name) => name !== '(anonymous)').length} named) in ${byFile.size} files`)
console.log([...folders].sort((a, b) => b[1] - a[1]).map(([folder, count]) => `  ${folder.padEnd(28)} ${count}`).join('\n'))
if (process.argv.includes('--list')) for (const [file, names] of byFile) console.log(`${file}: ${names.join(', ')}`)
