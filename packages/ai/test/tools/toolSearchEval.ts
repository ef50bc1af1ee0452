import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { toolDefinition, type AnyTool, type JsonSchema, type ToolSearch } from '@toolgate/ai'

// The labelled tool-search sets, shared by the test and the bench: GitHub's MCP server (117 tools,
// fixtures/tool-search/github-requests.json), split into a tuning half and a held-out half, and a
// catalog of 233 tools from 21 kinds of MCP servers (fixtures/tool-search/mcp-catalog.json) with
// requests written before any tuning (mcp-requests.json), all held out, and a few written later
// for tuning (mcp-tuning-requests.json).

const CORPUS = fileURLToPath(new URL('../fixtures/github-mcp-server/', import.meta.url))
const REQUESTS = fileURLToPath(new URL('../fixtures/tool-search/github-requests.json', import.meta.url))
const CATALOG = fileURLToPath(new URL('../fixtures/tool-search/mcp-catalog.json', import.meta.url))
const CATALOG_REQUESTS = fileURLToPath(new URL('../fixtures/tool-search/mcp-requests.json', import.meta.url))
const CATALOG_TUNING = fileURLToPath(new URL('../fixtures/tool-search/mcp-tuning-requests.json', import.meta.url))

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

/**
 * The GitHub set split in two by position: even positions tune the ranker (weights, synonyms),
 * odd ones are never looked at while tuning and are reported as held out.
 */
export function githubSplit(): { tuning: LabelledRequest[]; heldOut: LabelledRequest[] } {
  const requests = labelledRequests()
  return { tuning: requests.filter((_, i) => i % 2 === 0), heldOut: requests.filter((_, i) => i % 2 === 1) }
}

export function catalogTools(): AnyTool[] {
  const { servers } = JSON.parse(readFileSync(CATALOG, 'utf8')) as { servers: { tools: { name: string; description: string; inputSchema: JsonSchema }[] }[] }
  return servers.flatMap((server) => server.tools).map((entry) => toolDefinition({ name: entry.name, description: entry.description, inputSchema: entry.inputSchema }))
}

/** The held-out requests over the catalog (`tuning: true`: the ones written later for tuning). */
export function catalogRequests(options: { tuning?: boolean } = {}): LabelledRequest[] {
  return (JSON.parse(readFileSync(options.tuning ? CATALOG_TUNING : CATALOG_REQUESTS, 'utf8')) as { requests: LabelledRequest[] }).requests
}

export interface Recall {
  /** Mean over requests of the share of labelled tools among the first `k` selected. */
  readonly recall: number
  /** Share of requests with at least one labelled tool among the first `k`. */
  readonly hit: number
  readonly misses: string[]
}

export async function recallAt(search: ToolSearch, requests: readonly LabelledRequest[], k: number): Promise<Recall> {
  let total = 0
  let hits = 0
  const misses: string[] = []
  for (const { request, tools } of requests) {
    const selected = (await search.select(request, { limit: k })).map((tool) => tool.name)
    const picked = new Set(selected)
    const found = tools.filter((name) => picked.has(name))
    total += found.length / tools.length
    if (found.length > 0) hits++
    else misses.push(`${request} → wanted ${tools.join(', ')}; got ${selected.slice(0, 5).join(', ')}`)
  }
  return { recall: total / requests.length, hit: hits / requests.length, misses }
}
