import type { JsonSchema } from '../../schema/types.ts'
import { describeKeyword, withNotes } from '../describe.ts'
import type { MutableSchema } from '../json.ts'
import { ANNOTATION_KEYWORDS, GENERAL_CONSTRAINTS, isKnownKeyword, META_KEYWORDS, STRUCTURAL_KEYWORDS, TYPE_KEYWORDS } from '../keywords.ts'
import type { ConvertContext } from './context.ts'
import { locate } from './merge.ts'

/** What a node turned into, which decides the constraints that apply to it. */
export type NodeKind = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object' | 'scalars' | 'any' | 'union'

export interface FinishOptions {
  /** Sentences to append after the author's description and the moved constraints. */
  readonly notes?: readonly string[]
  /**
   * `false` when the node was re-encoded (a map as entries, a value as a JSON string): its
   * constraints no longer fit the new shape, so all of them become text.
   */
  readonly carry?: boolean
}

/**
 * Copies a node's annotations and the constraints the dialect carries onto `out`; every other
 * constraint becomes a sentence in the description, with a warning, so the model still sees it.
 */
export function finishNode(out: MutableSchema, node: JsonSchema, at: string, cx: ConvertContext, kind: NodeKind, options: FinishOptions = {}): MutableSchema {
  const carry = options.carry ?? true
  const notes: string[] = []
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword === 'description' || STRUCTURAL_KEYWORDS.has(keyword) || META_KEYWORDS.has(keyword)) continue
    if (ANNOTATION_KEYWORDS.has(keyword)) carryAnnotation(out, keyword, value, node, at, cx, notes)
    else if (appliesTo(keyword, kind)) carryConstraint(out, keyword, value, node, at, cx, notes, carry)
    else if (!isKnownKeyword(keyword) && !keyword.startsWith('$')) {
      cx.warnings.add('KEYWORD_DROPPED', locate(node, at, keyword), `"${keyword}" is not a JSON Schema keyword ${cx.dialect.label} accepts; dropped`)
    }
  }
  const description = withNotes(node.description, [...notes, ...(options.notes ?? [])])
  if (description !== undefined) out.description = description
  return out
}

function appliesTo(keyword: string, kind: NodeKind): boolean {
  if (GENERAL_CONSTRAINTS.includes(keyword)) return true
  switch (kind) {
    case 'string': return TYPE_KEYWORDS.string.includes(keyword)
    case 'number':
    case 'integer': return TYPE_KEYWORDS.number.includes(keyword)
    case 'array': return TYPE_KEYWORDS.array.includes(keyword)
    case 'object': return TYPE_KEYWORDS.object.includes(keyword)
    case 'scalars': return TYPE_KEYWORDS.string.includes(keyword) || TYPE_KEYWORDS.number.includes(keyword)
    case 'any': return Object.values(TYPE_KEYWORDS).some((list) => list.includes(keyword))
    default: return false
  }
}

function carryAnnotation(out: MutableSchema, keyword: string, value: unknown, node: JsonSchema, at: string, cx: ConvertContext, notes: string[]): void {
  const { keywords } = cx.dialect
  if (keyword === 'title') {
    if (keywords.has('title') && typeof value === 'string') out.title = value
    return
  }
  if (keywords.has(keyword)) {
    out[keyword] = value
    return
  }
  // One example is enough for a model; each dialect spells it differently.
  const examples = keyword === 'example' ? [value] : keyword === 'examples' && Array.isArray(value) ? value : undefined
  if (examples && examples.length > 0 && keywords.has('example')) {
    out.example = examples[0]
    return
  }
  if (examples && examples.length > 0 && keywords.has('examples')) {
    out.examples = examples
    return
  }
  const text = describeKeyword(keyword, value, node)
  if (text === '') return
  notes.push(text)
  cx.warnings.add('ANNOTATION_IN_DESCRIPTION', locate(node, at, keyword), `"${keyword}" is not accepted by ${cx.dialect.label}; it is in the description`)
}

function carryConstraint(out: MutableSchema, keyword: string, value: unknown, node: JsonSchema, at: string, cx: ConvertContext, notes: string[], carry: boolean): void {
  const dialect = cx.dialect
  const where = locate(node, at, keyword)
  // draft-04 spells exclusive bounds as booleans beside minimum/maximum: the pair is one constraint.
  const exclusive = keyword === 'minimum' ? 'exclusiveMinimum' : keyword === 'maximum' ? 'exclusiveMaximum' : undefined
  if (exclusive !== undefined && node[exclusive] === true) {
    if (carry && dialect.keywords.has(exclusive)) return
    if (carry && dialect.keywords.has(keyword)) out[keyword] = value // weaker, still true
    else cx.warnings.add('CONSTRAINT_IN_DESCRIPTION', where, `"${keyword}" is not supported by ${dialect.label}; it is in the description`)
    return
  }
  const bound = keyword === 'exclusiveMinimum' && value === true ? node.minimum : keyword === 'exclusiveMaximum' && value === true ? node.maximum : value
  if (carry && keyword === 'format') {
    if (typeof value === 'string' && dialect.keywords.has('format') && dialect.formatAllowed(value, String(out.type ?? 'string'))) {
      out.format = value
      return
    }
    notes.push(describeKeyword(keyword, value))
    cx.warnings.add('FORMAT_IN_DESCRIPTION', where, `Format "${String(value)}" is not supported by ${dialect.label}; it is in the description`)
    return
  }
  if (carry && dialect.keywords.has(keyword) && carries(keyword, bound, cx)) {
    out[keyword] = bound
    return
  }
  if (carry && keyword === 'minItems' && dialect.minItemsCap !== undefined && typeof value === 'number') {
    // Keep what can be kept: "at least 1" still holds for "at least 3".
    out.minItems = Math.min(value, dialect.minItemsCap)
  }
  const text = describeKeyword(keyword, value, node)
  if (text !== '') notes.push(text)
  cx.warnings.add('CONSTRAINT_IN_DESCRIPTION', where, `"${keyword}" is not supported by ${dialect.label}; it is in the description`)
}

function carries(keyword: string, value: unknown, cx: ConvertContext): boolean {
  const dialect = cx.dialect
  if (keyword === 'pattern') return typeof value === 'string' && dialect.patternAllowed(value)
  if (keyword === 'minItems' && dialect.minItemsCap !== undefined) return typeof value === 'number' && value <= dialect.minItemsCap
  return true
}
