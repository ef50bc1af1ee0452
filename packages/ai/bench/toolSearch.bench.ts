/**
 * Tool search on two labelled sets, each ranker on the same requests:
 * - GitHub's MCP server (117 tools, test/fixtures/tool-search/github-requests.json), split in two:
 *   the even positions tuned the ranker (weights, synonyms), the odd ones are held out;
 * - a catalog of 233 tools from 21 kinds of MCP servers (mcp-catalog.json) with requests written
 *   and committed before any tuning (mcp-requests.json, held out), beside the requests written
 *   later to tune on it (mcp-tuning-requests.json).
 * recall@k: mean share of a request's labelled tools among the first k; hit@k: share of requests
 * with a labelled tool among the first k. Peers: plain BM25 over names and descriptions, the
 * previous built-in ranker, and naive keyword overlap. Then the cost: index build and selection
 * over 500 tools, index size, tokens saved. Run with `npm run bench` in packages/ai.
 */
import { lexicalRanker, toolDefinition, toolSearch, type AnyTool, type ToolRanker } from '@toolgate/ai'
import { toProviderTool } from '@toolgate/ai/providers'
// The index's size is not public API: read from the source.
import { lexicalIndex } from '../src/tools/search/lexicalIndex.ts'
import { TOOL_SYNONYMS } from '../src/tools/search/synonyms.ts'
import { catalogRequests, catalogTools, githubSplit, githubTools, recallAt, type LabelledRequest } from '../test/tools/toolSearchEval.ts'

const github = githubTools()
const catalog = catalogTools()
const { tuning, heldOut } = githubSplit()

const words = (text: string) => text.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 0)

/** Okapi BM25 (k1 1.2, b 0.75) over name + description, words as they are: the textbook baseline. */
function bm25(documents: (tool: AnyTool) => string[][], weights: number[]): ToolRanker {
  const indexes = new WeakMap<readonly AnyTool[], (text: string) => number[]>()
  return (text, tools) => {
    let score = indexes.get(tools)
    if (!score) {
      const docs = tools.map((tool) => {
        const terms = new Map<string, number>()
        documents(tool).forEach((field, i) => field.forEach((term) => terms.set(term, (terms.get(term) ?? 0) + weights[i]!)))
        return { terms, length: [...terms.values()].reduce((a, b) => a + b, 0) }
      })
      const average = docs.reduce((sum, doc) => sum + doc.length, 0) / docs.length
      const df = new Map<string, number>()
      for (const doc of docs) for (const term of doc.terms.keys()) df.set(term, (df.get(term) ?? 0) + 1)
      score = (query) => {
        const terms = [...new Set(words(query))].filter((term) => df.has(term))
        return docs.map((doc) => {
          let total = 0
          for (const term of terms) {
            const tf = doc.terms.get(term)
            if (!tf) continue
            const idf = Math.log(1 + (docs.length - df.get(term)! + 0.5) / (df.get(term)! + 0.5))
            total += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * doc.length) / average))
          }
          return total
        })
      }
      indexes.set(tools, score)
    }
    return score(text)
  }
}

const plainBm25 = bm25((tool) => [words(tool.name), words(tool.description)], [1, 1])

/** The ranker this package shipped before: BM25, name counted three times, parameter names, suffix stripping. */
const previous = (() => {
  const stop = new Set('a an and are as at be by can do does for from get has have how i in into is it its me my of on or our please show that the their them there this to use used using was we what when where which who will with you your'.split(' '))
  const stem = (word: string) => {
    let s = word
    if (word.length > 4 && word.endsWith('ies')) s = `${word.slice(0, -3)}y`
    else if (word.length > 5 && word.endsWith('ing')) s = word.slice(0, -3)
    else if (word.length > 4 && word.endsWith('ed') && !word.endsWith('eed')) s = word.slice(0, -2)
    else if (word.length > 4 && /(ss|x|ch|sh)es$/.test(word)) s = word.slice(0, -2)
    else if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) s = word.slice(0, -1)
    return s.length > 4 && s.endsWith('e') ? s.slice(0, -1) : s
  }
  const tokens = (text: string) => text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 2 && !stop.has(w)).map(stem)
  const parameterNames = (tool: AnyTool) => Object.keys(((tool as { inputSchema?: { properties?: object } }).inputSchema?.properties ?? {}) as object)
  const ranker = bm25((tool) => [tokens(tool.name), tokens(tool.title ?? ''), tokens(tool.description), tokens(parameterNames(tool).join(' '))], [3, 1, 1, 1])
  return ((text, tools) => ranker(tokens(text).join(' '), tools)) as ToolRanker
})()

/** The naive peer: counts the request's words found in a tool's name and description. */
const keywordOverlap: ToolRanker = (text, candidates) => {
  const asked = new Set(words(text).filter((word) => word.length > 2))
  return candidates.map((tool) => {
    const haystack = `${tool.name.replace(/_/g, ' ')} ${tool.description}`.toLowerCase()
    let hits = 0
    for (const word of asked) if (haystack.includes(word)) hits++
    return hits
  })
}

const rankers: [string, ToolRanker | undefined][] = [
  ['built in (BM25F + synonyms)', undefined],
  ['plain BM25 (name + description)', plainBm25],
  ['previous built in', previous],
  ['keyword overlap', keywordOverlap],
]

const sets: [string, AnyTool[], LabelledRequest[]][] = [
  ['GitHub, tuning half', github, tuning],
  ['GitHub, held out', github, heldOut],
  ['catalog, held out', catalog, catalogRequests()],
  ['catalog, tuning', catalog, catalogRequests({ tuning: true })],
]

console.log(`\nTool search recall (Node ${process.version}); GitHub: ${github.length} tools, ${tuning.length} + ${heldOut.length} requests; catalog: ${catalog.length} tools, ${catalogRequests().length} held-out + ${catalogRequests({ tuning: true }).length} tuning requests\n`)
const pct = (value: number) => `${(100 * value).toFixed(1)}%`
const table: Record<string, string>[] = []
for (const [set, tools, requests] of sets) {
  for (const [label, rank] of rankers) {
    const search = rank ? toolSearch({ tools, rank }) : toolSearch({ tools })
    const at5 = await recallAt(search, requests, 5)
    const at10 = await recallAt(search, requests, 10)
    table.push({ set, ranker: label, 'recall@5': pct(at5.recall), 'recall@10': pct(at10.recall), 'hit@5': pct(at5.hit), 'hit@10': pct(at10.hit) })
  }
}
console.table(table)

// Cost over 500 tools: both catalogs, and catalog tools again under other names to reach 500.
const many: AnyTool[] = [...github, ...catalog]
for (let i = 0; many.length < 500; i++) {
  const source = catalog[i % catalog.length]!
  many.push(toolDefinition({ name: `${source.name}_v${2 + Math.floor(i / catalog.length)}`, description: source.description, inputSchema: (source as unknown as { inputSchema: never }).inputSchema }))
}
const requests = [...heldOut, ...catalogRequests()].map((entry) => entry.request)
const timeBuild = (rank: ToolRanker) => {
  const copies = Array.from({ length: 5 }, () => [...many])
  const start = performance.now()
  for (const copy of copies) rank('warm', copy)
  return (performance.now() - start) / copies.length
}
const timeSelect = async (rank: ToolRanker | undefined) => {
  const search = rank ? toolSearch({ tools: many, rank }) : toolSearch({ tools: many })
  for (const text of requests.slice(0, 50)) await search.select(text) // builds the index and warms up
  const rounds = 5
  const start = performance.now()
  for (let round = 0; round < rounds; round++) for (const text of requests) await search.select(text)
  return (1000 * (performance.now() - start)) / (rounds * requests.length)
}
const costs: Record<string, string | number>[] = []
for (const [label, rank] of rankers.slice(0, 3)) {
  costs.push({ ranker: label, 'index build, ms (500 tools)': timeBuild(rank ?? lexicalRanker()).toFixed(1), 'select, µs (500 tools)': (await timeSelect(rank)).toFixed(0) })
}
console.log(`\nCost over ${many.length} tools, ${requests.length} requests`)
console.table(costs)
const { size } = lexicalIndex(many, TOOL_SYNONYMS)
console.log(`Built-in index for ${many.length} tools: ${size.terms} terms, ${size.postings} postings (~${Math.round((size.postings * 12 + size.terms * 24) / 1024)} KiB: a tool index and a score per posting, plus the terms)`)

const tokensOf = (declared: readonly AnyTool[]) => declared.reduce((sum, tool) => sum + JSON.stringify(toProviderTool(tool, 'openai-chat').tool).length / 4, 0)
const search = toolSearch({ tools: github })
let declared = 0
for (const { request } of heldOut) declared += tokensOf(await search.select(request, { limit: 10 }))
console.log(`\nGitHub: declaring all ${github.length} tools costs ~${Math.round(tokensOf(github))} tokens per model call; the top 10 cost ~${Math.round(declared / heldOut.length)} (OpenAI Chat envelopes, chars / 4)`)
