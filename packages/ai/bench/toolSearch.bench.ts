/**
 * Tool search over GitHub's MCP server (117 tools) against the labelled requests in
 * test/fixtures/tool-search/github-requests.json: recall@5 and recall@10 of the built-in BM25
 * ranker beside a naive keyword-overlap ranker, and the tokens a request saves by declaring the
 * selected tools instead of all of them. Run with `npm run bench` in packages/ai.
 */
import { toolSearch, type AnyTool } from '@toolgate/ai'
import { toProviderTool } from '@toolgate/ai/providers'
import { githubTools, labelledRequests, recallAt } from '../test/tools/toolSearchEval.ts'

const tools = githubTools()
const requests = labelledRequests()

/** The peer: counts the request's words found in a tool's name and description, no weighting. */
const keywordOverlap = (text: string, candidates: readonly AnyTool[]) => {
  const words = new Set(text.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 2))
  return candidates.map((tool) => {
    const haystack = `${tool.name.replace(/_/g, ' ')} ${tool.description}`.toLowerCase()
    let hits = 0
    for (const word of words) if (haystack.includes(word)) hits++
    return hits
  })
}

/** Tokens a declaration costs, estimated as characters / 4 of the OpenAI Chat envelope. */
const tokensOf = (declared: readonly AnyTool[]) => declared.reduce((sum, tool) => sum + JSON.stringify(toProviderTool(tool, 'openai-chat').tool).length / 4, 0)
const allTokens = tokensOf(tools)

const rows = []
for (const [label, search] of [
  ['BM25 (built in)', toolSearch({ tools })],
  ['keyword overlap', toolSearch({ tools, rank: keywordOverlap })],
] as const) {
  const at5 = await recallAt(search, requests, 5)
  const at10 = await recallAt(search, requests, 10)
  let declared = 0
  let ms = 0
  for (const { request } of requests) {
    const start = performance.now()
    const selected = await search.select(request, { limit: 10 })
    ms += (performance.now() - start) / requests.length
    declared += tokensOf(selected)
  }
  rows.push({
    ranker: label,
    'recall@5': at5.recall.toFixed(3),
    'recall@10': at10.recall.toFixed(3),
    'tokens declared (top 10)': Math.round(declared / requests.length),
    'tokens saved / request': Math.round(allTokens - declared / requests.length),
    'ms / select': ms.toFixed(2),
  })
}

console.log(`\nTool search, ${tools.length} github-mcp-server tools, ${requests.length} labelled requests (Node ${process.version})`)
console.log(`Declaring every tool costs ~${Math.round(allTokens)} tokens per model call (OpenAI Chat envelopes, chars / 4)\n`)
console.table(rows)
const [bm25, peer] = rows
console.log(`BM25 vs keyword overlap: recall@5 ${(Number(bm25!['recall@5']) / Number(peer!['recall@5'])).toFixed(2)}x, recall@10 ${(Number(bm25!['recall@10']) / Number(peer!['recall@10'])).toFixed(2)}x`)
