import { InvalidOptionError } from '../errors.ts'
import { lexicalRanker } from './search/lexicalRanker.ts'
import { assertSynonyms, type ToolSynonyms } from './search/synonyms.ts'
import type { ToolRanker } from './search/toolRanker.ts'
import type { AnyTool } from './types.ts'

// Dynamic tool selection for catalogs of dozens to hundreds of tools: declaring them all costs
// tokens on every model call and makes models pick worse. A search picks the few that fit the
// conversation; the embedded ranker is lexical (BM25F over names, titles, descriptions and
// parameters, with stemming and a synonym table of tool vocabulary; see search/), and a `rank`
// hook takes any other scorer (embeddings, a reranker, or a blend with the lexical one).

export type { ToolRanker } from './search/toolRanker.ts'

export interface ToolSearchOptions<TTools extends readonly AnyTool[]> {
  readonly tools: TTools
  /** Tools a selection returns at most. Default 10. */
  readonly limit?: number
  /** Replaces the built-in lexical ranker, e.g. with embeddings (`lexicalRanker()` blends them). */
  readonly rank?: ToolRanker
  /**
   * Words and phrases your users say for what your tools call otherwise, added to the built-in
   * table (`TOOL_SYNONYMS`): `{ invoice: ['bill'], 'on call': ['pager rotation'] }`.
   */
  readonly synonyms?: ToolSynonyms
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
  const { tools, limit = 10, rank, synonyms } = options
  if (!Array.isArray(tools)) throw new InvalidOptionError(WHERE, 'tools', 'must be an array of tools')
  if (!Number.isSafeInteger(limit) || limit < 1) throw new InvalidOptionError(WHERE, 'limit', 'must be a positive integer')
  if (rank !== undefined && typeof rank !== 'function') throw new InvalidOptionError(WHERE, 'rank', 'must be a function')
  if (rank !== undefined && synonyms !== undefined) throw new InvalidOptionError(WHERE, 'synonyms', 'applies to the built-in ranker; with `rank`, pass them to lexicalRanker({ synonyms })')
  if (synonyms !== undefined) assertSynonyms(WHERE, synonyms)
  const scorer: ToolRanker = rank ?? lexicalRanker({ synonyms })

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
      const ranked: number[] = []
      for (let position = 0; position < scores.length; position++) {
        const score = scores[position] as number
        if (Number.isFinite(score) && score > 0) ranked.push(position)
      }
      ranked.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b)
      return ranked.slice(0, max).map((position) => tools[position] as TTools[number])
    },
  }
}

export function isToolSearch(value: unknown): value is ToolSearch {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'tool-search' && Array.isArray((value as ToolSearch).tools)
}
