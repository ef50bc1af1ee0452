import { InvalidOptionError } from '../../errors.ts'
import type { ToolRanker } from './toolRanker.ts'
import type { AnyTool } from '../types.ts'
import { lexicalIndex, type LexicalIndex } from './lexicalIndex.ts'
import { assertSynonyms, TOOL_SYNONYMS, type ToolSynonyms } from './synonyms.ts'

export interface LexicalRankerOptions {
  /** Added to the built-in synonym table (`TOOL_SYNONYMS`). */
  readonly synonyms?: ToolSynonyms | undefined
  /** `false` leaves the built-in table out: only `synonyms` apply. Default true. */
  readonly builtInSynonyms?: boolean | undefined
}

const WHERE = 'lexicalRanker'

/**
 * The built-in ranker of `toolSearch` as a `rank` function: BM25F over each tool's name, title,
 * description, parameter names and descriptions and enum values, with stemming and synonyms. Use
 * it to blend with another scorer (embeddings). The index is built on first use per tool list,
 * and kept while the list is.
 */
export function lexicalRanker(options: LexicalRankerOptions = {}): ToolRanker {
  if (typeof options !== 'object' || options === null) throw new InvalidOptionError(WHERE, 'options', 'must be an object')
  const { synonyms, builtInSynonyms = true } = options
  if (synonyms !== undefined) assertSynonyms(WHERE, synonyms)
  const indexes = new WeakMap<readonly AnyTool[], LexicalIndex>()
  return (text, tools) => {
    let index = indexes.get(tools)
    if (!index) indexes.set(tools, (index = lexicalIndex(tools, builtInSynonyms ? TOOL_SYNONYMS : {}, { synonyms })))
    return Array.from(index.score(String(text)))
  }
}
