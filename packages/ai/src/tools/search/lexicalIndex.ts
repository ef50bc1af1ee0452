import type { AnyTool } from '../types.ts'
import { compiledSynonyms, expandSynonyms, phraseWords, type SynonymTable, type ToolSynonyms } from './synonyms.ts'
import { stem } from './stem.ts'
import { tokenize, wordsOf } from './tokenize.ts'
import { FIELD_NAMES, toolFields, type FieldName } from './toolFields.ts'

// BM25F (Robertson, Zaragoza & Taylor 2004): each field's term counts are normalised by that
// field's length and weighted before one saturation, so a word in the name counts more than the
// same word deep in a parameter description, and a long description does not drown a short one.
// The per-term contribution of every tool is computed when the index is built: a selection only
// adds up the postings of the request's terms.

export interface LexicalWeights {
  /** Weight of a term in each field, relative to the description. */
  readonly fields: Readonly<Record<FieldName, number>>
  /** Length normalisation per field (BM25's b). */
  readonly b: Readonly<Record<FieldName, number>>
  /** Saturation (BM25's k1). */
  readonly k1: number
  /** Weight of a term the synonym table added, relative to one the user typed. */
  readonly synonym: number
  /** Share of the score added when every word of a tool's name is in the request. */
  readonly nameBonus: number
}

export const DEFAULT_WEIGHTS: LexicalWeights = {
  fields: { name: 3, title: 2, summary: 2, description: 0.6, parameters: 0.2, parameterText: 0.4, values: 0.5 },
  b: { name: 0.3, title: 0.3, summary: 0.5, description: 0.75, parameters: 0.75, parameterText: 0.75, values: 0.75 },
  k1: 1.2,
  synonym: 0.7,
  nameBonus: 0.3,
}

export interface LexicalIndex {
  /** One score per tool, aligned with the tools the index was built from. */
  score(text: string): Float64Array
  /** Distinct terms and postings held, for the bench. */
  readonly size: { readonly terms: number; readonly postings: number }
}

export interface LexicalIndexOptions {
  readonly synonyms?: ToolSynonyms | undefined
  readonly weights?: LexicalWeights | undefined
  /** The built-in table; tests and the bench pass `{}` to measure without it. */
  readonly baseSynonyms?: ToolSynonyms | undefined
}

export function lexicalIndex(tools: readonly AnyTool[], baseSynonyms: ToolSynonyms, options: LexicalIndexOptions = {}): LexicalIndex {
  const weights = options.weights ?? DEFAULT_WEIGHTS
  const synonyms: SynonymTable = compiledSynonyms(baseSynonyms, options.synonyms)
  const fieldTerms = tools.map((tool) => {
    const fields = toolFields(tool)
    // A name is all signal: its stop words stay ("get_me", "list_my_tasks").
    return Object.fromEntries(FIELD_NAMES.map((field) => [field, field === 'name' ? phraseWords(fields[field]) : tokenize(fields[field])])) as Record<FieldName, string[]>
  })
  const averageLength = Object.fromEntries(
    FIELD_NAMES.map((field) => [field, fieldTerms.reduce((sum, doc) => sum + doc[field].length, 0) / Math.max(tools.length, 1) || 1]),
  ) as Record<FieldName, number>

  // term → tool → weighted, length-normalised count over the fields
  const counts = new Map<string, Map<number, number>>()
  fieldTerms.forEach((doc, position) => {
    for (const field of FIELD_NAMES) {
      const terms = doc[field]
      if (terms.length === 0) continue
      const norm = weights.fields[field] / (1 - weights.b[field] + (weights.b[field] * terms.length) / averageLength[field])
      for (const term of terms) {
        let byTool = counts.get(term)
        if (!byTool) counts.set(term, (byTool = new Map()))
        byTool.set(position, (byTool.get(position) ?? 0) + norm)
      }
    }
  })
  const postings = new Map<string, { readonly tools: Int32Array; readonly scores: Float64Array }>()
  let postingCount = 0
  for (const [term, byTool] of counts) {
    const idf = Math.log(1 + (tools.length - byTool.size + 0.5) / (byTool.size + 0.5))
    const toolPositions = new Int32Array(byTool.size)
    const scores = new Float64Array(byTool.size)
    let i = 0
    for (const [position, tf] of byTool) {
      toolPositions[i] = position
      scores[i] = (idf * tf * (weights.k1 + 1)) / (tf + weights.k1)
      i++
    }
    postings.set(term, { tools: toolPositions, scores })
    postingCount += byTool.size
  }
  const nameTerms = fieldTerms.map((doc) => [...new Set(doc.name)])

  return {
    size: { terms: postings.size, postings: postingCount },
    score(text) {
      const query = new Map<string, number>()
      const rawWords = wordsOf(text)
      const words = rawWords.map(stem)
      for (const term of [...expandSynonyms(synonyms, words), ...shapeTerms(text)]) if (postings.has(term)) query.set(term, weights.synonym)
      // "on call" meets "oncall", "work log" meets "worklog": two words a catalog writes as one.
      for (let i = 0; i + 1 < words.length; i++) {
        const joined = stem(`${rawWords[i]}${rawWords[i + 1]}`)
        if (postings.has(joined)) query.set(joined, 1)
      }
      for (const term of tokenize(text)) if (postings.has(term)) query.set(term, 1)
      const scores = new Float64Array(tools.length)
      for (const [term, weight] of query) {
        const posting = postings.get(term)!
        for (let i = 0; i < posting.tools.length; i++) scores[posting.tools[i]!]! += weight * posting.scores[i]!
      }
      if (weights.nameBonus > 0) {
        for (let position = 0; position < scores.length; position++) {
          const name = nameTerms[position]!
          if (scores[position]! > 0 && name.length > 0 && name.every((term) => query.has(term))) scores[position]! *= 1 + weights.nameBonus
        }
      }
      return scores
    },
  }
}

/**
 * What a request's literal values say about the tool it needs: a path asks for files, an email
 * address for mail. Their words alone ("./scripts", "bob@acme.test") say little.
 */
const SHAPES: readonly (readonly [RegExp, readonly string[]])[] = [
  [/(^|\s)(\.{1,2}\/|~\/|\/[\w.-]+\/)[\w./-]*/, ['file', 'directory', 'folder', 'path']],
  [/[\w.+-]+@[\w-]+\.[\w.]+/, ['email']],
  [/\b[\w-]+\.(com|org|net|io|dev|app|ai|co)\b/i, ['url', 'web', 'page']],
  [/\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|morning|afternoon|evening|weekend|next week)\b/i, ['calendar', 'event', 'schedule']],
]

function shapeTerms(text: string): string[] {
  return SHAPES.flatMap(([pattern, terms]) => (pattern.test(text) ? terms : []))
}
