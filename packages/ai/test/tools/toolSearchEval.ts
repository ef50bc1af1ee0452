import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { toolDefinition, type AnyTool, type JsonSchema, type ToolSearch } from '@toolgate/ai'

// The labelled tool-search set over GitHub's MCP server (see fixtures/tool-search/github-requests.json),
// shared by the test and the bench.

const CORPUS = fileURLToPath(new URL('../fixtures/github-mcp-server/', import.meta.url))
const REQUESTS = fileURLToPath(new URL('../fixtures/tool-search/github-requests.json', import.meta.url))

export interface LabelledRequest {
  readonly request: string
  readonly tools: readonly string[]
}

export function githubTools(): AnyTool[] {
  return readdirSync(CORPUS)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(CORPUS + file, 'utf8')) as { name: string; description: string; inputSchema: JsonSchema })
    .map((entry) => toolDefinition({ name: entry.name, description: entry.description, inputSchema: entry.inputSchema }))
}

export function labelledRequests(): LabelledRequest[] {
  return (JSON.parse(readFileSync(REQUESTS, 'utf8')) as { requests: LabelledRequest[] }).requests
}

/** Mean over requests of the share of labelled tools among the first `k` selected. */
export async function recallAt(search: ToolSearch, requests: readonly LabelledRequest[], k: number): Promise<{ recall: number; misses: string[] }> {
  let total = 0
  const misses: string[] = []
  for (const { request, tools } of requests) {
    const picked = new Set((await search.select(request, { limit: k })).map((tool) => tool.name))
    const found = tools.filter((name) => picked.has(name))
    total += found.length / tools.length
    if (found.length < tools.length) misses.push(`${request} → missed ${tools.filter((name) => !picked.has(name)).join(', ')}`)
  }
  return { recall: total / requests.length, misses }
}
