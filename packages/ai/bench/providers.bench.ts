/**
 * Provider conversions over the github-mcp-server corpus: schemas per second per target, cold
 * (every conversion runs) and cached (what a chat turn pays after the first), and the cost of
 * mapping arguments back. Run with `npm run bench` in packages/ai.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { toolDefinition, type AnyTool, type JsonSchema } from '../src/index.ts'
import { fromProviderArgs, toProviderSchema, toProviderTool, type ProviderOptions, type ProviderTarget } from '../src/providers/index.ts'
import { conversionStats } from '../src/providers/cache.ts'

const CORPUS = fileURLToPath(new URL('../test/fixtures/github-mcp-server/', import.meta.url))
const BUDGET_MS = 300

const corpus = readdirSync(CORPUS)
  .filter((file) => file.endsWith('.json'))
  .map((file) => JSON.parse(readFileSync(CORPUS + file, 'utf8')) as { name: string; description: string; inputSchema: JsonSchema })
const tools: AnyTool[] = corpus.map((entry) => toolDefinition({ name: entry.name, description: entry.description, inputSchema: entry.inputSchema }))

const VARIANTS: [label: string, target: ProviderTarget, options: ProviderOptions][] = [
  ['openai-chat', 'openai-chat', {}],
  ['openai-chat strict', 'openai-chat', { strict: true }],
  ['openai-responses strict', 'openai-responses', { strict: true }],
  ['anthropic', 'anthropic', {}],
  ['anthropic strict', 'anthropic', { strict: true }],
  ['gemini', 'gemini', {}],
  ['gemini-json-schema', 'gemini-json-schema', {}],
  ['mcp', 'mcp', {}],
]

/** Operations per second of `pass` (which does `size` operations), over about BUDGET_MS. */
function throughput(size: number, pass: (round: number) => void): number {
  pass(-1) // warm up
  let rounds = 0
  const start = performance.now()
  while (performance.now() - start < BUDGET_MS || rounds < 3) pass(rounds++)
  return (rounds * size) / ((performance.now() - start) / 1000)
}

const format = (n: number) => Math.round(n).toLocaleString('en-US')

const rows = VARIANTS.map(([label, target, options]) => {
  // Cold: unfrozen copies are never cached, so every call converts. Copies are made before timing.
  const copies = Array.from({ length: 64 }, () => corpus.map((entry) => structuredClone(entry.inputSchema)))
  const cold = throughput(corpus.length, (round) => {
    for (const schema of copies[(round + 64) % 64] as JsonSchema[]) toProviderSchema(schema, target, options)
  })
  for (const tool of tools) toProviderTool(tool, target, options) // first conversion of each tool
  const cached = throughput(tools.length, () => {
    for (const tool of tools) toProviderTool(tool, target, options)
  })
  const args = throughput(tools.length, () => {
    for (const tool of tools) fromProviderArgs(tool, target, { owner: 'octo', repo: 'cat', page: null }, options)
  })
  return { target: label, 'cold schemas/s': format(cold), 'cached tools/s': format(cached), 'speed-up': `${Math.round(cached / cold)}x`, 'fromProviderArgs/s': format(args) }
})

console.log(`\nProvider conversions, ${corpus.length} github-mcp-server tools (Node ${process.version})\n`)
console.table(rows)

// A chat turn: list every tool for the model, then map a call back; no second conversion.
const before = { ...conversionStats }
const first = toProviderTool(tools[0] as AnyTool, 'openai-chat', { strict: true })
const again = toProviderTool(tools[0] as AnyTool, 'openai-chat', { strict: true })
for (const tool of tools) toProviderTool(tool, 'openai-chat', { strict: true })
fromProviderArgs(tools[0] as AnyTool, 'openai-chat', '{}', { strict: true })
console.log(`second toProviderTool(tool, 'openai-chat', { strict: true }) returns the cached result: ${first === again}`)
console.log(`conversions run for a whole turn after the first (tools / schemas): ${conversionStats.tools - before.tools} / ${conversionStats.schemas - before.schemas}\n`)
