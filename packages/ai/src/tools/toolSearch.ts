import { InvalidOptionError } from '../errors.ts'
import { toolJsonSchema } from './toolJsonSchema.ts'
import type { AnyTool } from './types.ts'

// Dynamic tool selection for catalogs of dozens to hundreds of tools: declaring them all costs
// tokens on every model call and makes models pick worse. A search picks the few that fit the
// conversation; the embedded ranker is lexical (BM25 over names, descriptions and parameter
// names), and a `rank` hook takes any other scorer (embeddings, a reranker).

/** Scores each tool for `text`, aligned with `tools`; higher is better, 0 or less leaves a tool out. */
export type ToolRanker = (text: string, tools: readonly AnyTool[]) => readonly number[] | Promise<readonly number[]>

export interface ToolSearchOptions<TTools extends readonly AnyTool[]> {
  readonly tools: TTools
  /** Tools a selection returns at most. Default 10. */
  readonly limit?: number
  /** Replaces the built-in BM25 ranker, e.g. with embeddings. */
  readonly rank?: ToolRanker
}

export interface ToolSearch<TTools extends readonly AnyTool[] = readonly AnyTool[]> {
  readonly kind: 'tool-search'
  /** Every tool of the catalog: a chat handler given the search can run any of them. */
  readonly tools: TTools
  readonly limit: number
  /** The tools that fit `text`, best first, at most `limit`. */
  select(text: string, options?: { readonly limit?: number }): Promise<TTools[number][]>
}

const WHERE = 'toolSearch'

export function toolSearch<const TTools extends readonly AnyTool[]>(options: ToolSearchOptions<TTools>): ToolSearch<TTools> {
  if (typeof options !== 'object' || options === null) throw new InvalidOptionError(WHERE, 'options', 'must be an object')
  const { tools, limit = 10, rank } = options
  if (!Array.isArray(tools)) throw new InvalidOptionError(WHERE, 'tools', 'must be an array of tools')
  if (!Number.isSafeInteger(limit) || limit < 1) throw new InvalidOptionError(WHERE, 'limit', 'must be a positive integer')
  if (rank !== undefined && typeof rank !== 'function') throw new InvalidOptionError(WHERE, 'rank', 'must be a function')
  let index: Bm25Index | undefined // built on first use: emitting every schema is work a cold start need not do
  const scorer: ToolRanker = rank ?? ((text) => (index ??= bm25Index(tools)).score(text))

  return {
    kind: 'tool-search',
    tools,
    limit,
    async select(text, selectOptions) {
      const max = selectOptions?.limit ?? limit
      const scores = await scorer(String(text), tools)
      if (!Array.isArray(scores) || scores.length !== tools.length) {
        throw new InvalidOptionError(WHERE, 'rank', `must return one score per tool (${tools.length}), got ${Array.isArray(scores) ? scores.length : typeof scores}`)
      }
      return tools
        .map((tool, position) => ({ tool, score: scores[position] as number, position }))
        .filter(({ score }) => Number.isFinite(score) && score > 0)
        .sort((a, b) => b.score - a.score || a.position - b.position)
        .slice(0, max)
        .map(({ tool }) => tool)
    },
  }
}

export function isToolSearch(value: unknown): value is ToolSearch {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'tool-search' && Array.isArray((value as ToolSearch).tools)
}

// BM25 (Robertson & Zaragoza) over one document per tool. The name counts three times: it is the
// densest statement of what a tool does.

const K1 = 1.2
const B = 0.75
const NAME_WEIGHT = 3

interface Bm25Index {
  score(text: string): number[]
}

function bm25Index(tools: readonly AnyTool[]): Bm25Index {
  const docs = tools.map((tool) => {
    const terms = new Map<string, number>()
    const add = (text: string, weight: number) => {
      for (const term of tokenize(text)) terms.set(term, (terms.get(term) ?? 0) + weight)
    }
    add(tool.name, NAME_WEIGHT)
    add(tool.title ?? '', 1)
    add(tool.description, 1)
    add(parameterNames(tool).join(' '), 1)
    let length = 0
    for (const count of terms.values()) length += count
    return { terms, length }
  })
  const average = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(docs.length, 1)
  const documentFrequency = new Map<string, number>()
  for (const doc of docs) for (const term of doc.terms.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1)
  const idf = (term: string) => {
    const df = documentFrequency.get(term) ?? 0
    return Math.log(1 + (docs.length - df + 0.5) / (df + 0.5))
  }

  return {
    score(text) {
      const query = [...new Set(tokenize(text))].filter((term) => documentFrequency.has(term))
      return docs.map((doc) => {
        let score = 0
        for (const term of query) {
          const tf = doc.terms.get(term)
          if (!tf) continue
          score += (idf(term) * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / (average || 1)))
        }
        return score
      })
    },
  }
}

/** Property names of the input schema, nested ones included (`issue_number`, `pullNumber`, ...). */
function parameterNames(tool: AnyTool): string[] {
  let schema: unknown
  try {
    schema = toolJsonSchema(tool)
  } catch {
    return []
  }
  const names: string[] = []
  const visit = (node: unknown, depth: number) => {
    if (typeof node !== 'object' || node === null || depth > 4) return
    const properties = (node as { properties?: unknown }).properties
    if (typeof properties === 'object' && properties !== null) {
      for (const [name, child] of Object.entries(properties)) {
        names.push(name)
        visit(child, depth + 1)
      }
    }
    visit((node as { items?: unknown }).items, depth + 1)
  }
  visit(schema, 0)
  return names
}

const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from get has have how i in into is it its me my of on or our please show that the their them there this to use used using was we what when where which who will with you your'.split(' '),
)

/** Words of `text`: split on anything not a letter or digit and at camelCase humps, lower-cased, stemmed. */
export function tokenize(text: string): string[] {
  const words = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/)
  const terms: string[] = []
  for (const word of words) {
    if (word.length < 2 || STOP_WORDS.has(word)) continue
    terms.push(stem(word))
  }
  return terms
}

/** A light suffix stripper: enough to meet "issues"/"issue", "comments"/"commented", "listing"/"list". */
function stem(word: string): string {
  let stemmed = word
  if (word.length > 4 && word.endsWith('ies')) stemmed = `${word.slice(0, -3)}y`
  else if (word.length > 5 && word.endsWith('ing')) stemmed = word.slice(0, -3)
  else if (word.length > 4 && word.endsWith('ed') && !word.endsWith('eed')) stemmed = word.slice(0, -2)
  else if (word.length > 4 && /(ss|x|ch|sh)es$/.test(word)) stemmed = word.slice(0, -2)
  else if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) stemmed = word.slice(0, -1)
  // "create", "created" and "creating" all become "creat".
  return stemmed.length > 4 && stemmed.endsWith('e') ? stemmed.slice(0, -1) : stemmed
}
