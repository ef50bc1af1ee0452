/**
 * Learns the lexical ranker's weights from the tuning requests only (the even half of the GitHub
 * set and mcp-tuning-requests.json), by coordinate ascent from the current defaults: each weight
 * in turn takes the candidate value that scores best, two passes. Prints the result to paste into
 * DEFAULT_WEIGHTS (src/tools/search/lexicalIndex.ts). Never reads the held-out requests.
 * Run: npx tsx --conditions=@toolgate/source test/tools/toolSearchTune.ts (in packages/ai).
 */
import type { AnyTool } from '@toolgate/ai'
import { DEFAULT_WEIGHTS, lexicalIndex, type LexicalWeights } from '../../src/tools/search/lexicalIndex.ts'
import { TOOL_SYNONYMS } from '../../src/tools/search/synonyms.ts'
import { catalogRequests, catalogTools, githubSplit, githubTools, type LabelledRequest } from './toolSearchEval.ts'

const sets: [AnyTool[], LabelledRequest[]][] = [
  [githubTools(), githubSplit().tuning],
  [catalogTools(), catalogRequests({ tuning: true })],
]

/** Mean over the sets of recall@5 and hit@5, with a little recall@10 to break ties. */
function objective(weights: LexicalWeights): number {
  let total = 0
  for (const [tools, requests] of sets) {
    const index = lexicalIndex(tools, TOOL_SYNONYMS, { weights })
    let recall5 = 0
    let hit5 = 0
    let recall10 = 0
    for (const { request, tools: wanted } of requests) {
      const scores = Array.from(index.score(request))
      const ranked = scores.map((score, i) => [score, i] as const).filter(([score]) => score > 0).sort((a, b) => b[0] - a[0] || a[1] - b[1]).map(([, i]) => tools[i]!.name)
      const found5 = wanted.filter((name) => ranked.slice(0, 5).includes(name)).length
      recall5 += found5 / wanted.length
      hit5 += found5 > 0 ? 1 : 0
      recall10 += wanted.filter((name) => ranked.slice(0, 10).includes(name)).length / wanted.length
    }
    total += (recall5 + hit5 + 0.25 * recall10) / requests.length
  }
  return total / sets.length
}

type Knob = { get: (w: LexicalWeights) => number; set: (w: LexicalWeights, v: number) => LexicalWeights; candidates: number[] }
const field = (name: keyof LexicalWeights['fields'], candidates: number[]): Knob => ({
  get: (w) => w.fields[name],
  set: (w, v) => ({ ...w, fields: { ...w.fields, [name]: v } }),
  candidates,
})
const b = (name: keyof LexicalWeights['b'], candidates: number[]): Knob => ({ get: (w) => w.b[name], set: (w, v) => ({ ...w, b: { ...w.b, [name]: v } }), candidates })
const top = (name: 'k1' | 'synonym' | 'nameBonus', candidates: number[]): Knob => ({ get: (w) => w[name], set: (w, v) => ({ ...w, [name]: v }), candidates })

const knobs: Knob[] = [
  field('name', [1.5, 2, 3, 4, 5]),
  field('title', [1, 2, 3]),
  field('summary', [0.75, 1, 1.5, 2, 3]),
  field('description', [0.2, 0.4, 0.6, 1]),
  field('parameters', [0.2, 0.4, 0.6, 1]),
  field('parameterText', [0.1, 0.2, 0.4, 0.6]),
  field('values', [0.25, 0.5, 1]),
  b('name', [0, 0.3, 0.6]),
  b('summary', [0.25, 0.5, 0.75]),
  b('description', [0.5, 0.75, 0.9]),
  top('k1', [0.8, 1.2, 1.6, 2]),
  top('synonym', [0.3, 0.4, 0.5, 0.7]),
  top('nameBonus', [0, 0.15, 0.3, 0.6]),
]

let best = DEFAULT_WEIGHTS
let bestScore = objective(best)
console.log(`start ${bestScore.toFixed(4)}`)
for (let pass = 0; pass < 2; pass++) {
  for (const knob of knobs) {
    for (const value of knob.candidates) {
      if (value === knob.get(best)) continue
      const candidate = knob.set(best, value)
      const score = objective(candidate)
      if (score > bestScore + 1e-9) {
        best = candidate
        bestScore = score
      }
    }
  }
  console.log(`pass ${pass + 1} ${bestScore.toFixed(4)}`)
}
console.log(JSON.stringify(best))
