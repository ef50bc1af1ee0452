import type { JsonSchema } from '../../schema/types.ts'
import { withNotes } from '../describe.ts'
import type { MutableSchema } from '../json.ts'
import { ANNOTATION_KEYWORDS, isNullOnly, META_KEYWORDS } from '../keywords.ts'
import { isSame, SAME, type Plan, type UnionBranch } from '../plan.ts'
import type { ConvertContext, Converted, Want } from './context.ts'
import { convertNever, convertNode, convertNullOnly } from './convertNode.ts'
import { finishNode } from './finish.ts'
import { derive, locate, mergeSchemas, type Located } from './merge.ts'
import { admitNull } from './nullable.ts'

/**
 * `anyOf`/`oneOf` as an `anyOf` whose branches stand alone: the parent's own keywords are merged
 * into every branch, `null` branches become nullability, and a single branch left is no union.
 */
export function convertUnion(node: JsonSchema, at: string, cx: ConvertContext, want: Want): Converted {
  const notes: string[] = []
  if (Array.isArray(node.oneOf)) {
    cx.warnings.add('ONE_OF_AS_ANY_OF', locate(node, at, 'oneOf'), `${cx.dialect.label} has no oneOf; it is sent as anyOf, and "exactly one" is in the description`)
    notes.push('Exactly one of the alternatives applies.')
  }
  let admitsNull = false
  const branches: Converted[] = []
  for (const alternative of alternativesOf(node, at, cx)) {
    if (alternative.schema === false) continue
    if (isNullOnly(alternative.schema)) {
      admitsNull = true
      continue
    }
    const converted = convertNode(alternative.schema, alternative.at, cx)
    if (converted.absent) continue
    admitsNull ||= converted.admitsNull
    branches.push(...flatten(converted))
  }
  const annotations = derive(node, at, (keyword) => ANNOTATION_KEYWORDS.has(keyword))
  if (branches.length === 0) return admitsNull ? convertNullOnly(annotations, at, cx) : convertNever(at, cx)
  // One branch left is no union, unless it is a `$ref` that may not carry a description beside it.
  const single = branches.length === 1 && (cx.dialect.refSiblings || branches[0]?.schema.$ref === undefined) ? branches[0] : undefined
  const schema: MutableSchema = single ? single.schema : { anyOf: branches.map((branch) => branch.schema) }
  const ownDescription = single ? withNotes(annotations.description, [String(single.schema.description ?? '')]) : annotations.description
  finishNode(schema, { ...annotations, description: ownDescription }, at, cx, 'union', { notes })
  const converted: Converted = { schema, plan: single ? single.plan : unionPlan(branches), admitsNull }
  return admitsNull || want.nullable ? admitNull(converted, cx) : converted
}

/** The branches to convert, each with the parent's non-union keywords merged in. */
function alternativesOf(node: JsonSchema, at: string, cx: ConvertContext): Located[] {
  const lists: Located[][] = []
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const list = node[keyword]
    if (Array.isArray(list)) lists.push(list.map((schema, i) => ({ schema, at: locate(node, at, keyword, i) })))
  }
  let alternatives = lists[0] ?? []
  const second = lists[1]
  if (second) {
    // anyOf and oneOf together: a value matches one of each.
    alternatives = alternatives.flatMap((a) => second.map((b) => ({ schema: mergeSchemas(a, b, cx), at: a.at })))
  }
  const base = derive(node, at, (keyword) => keyword !== 'anyOf' && keyword !== 'oneOf' && !ANNOTATION_KEYWORDS.has(keyword) && !META_KEYWORDS.has(keyword))
  if (Object.keys(base).length === 0) return alternatives
  return alternatives.map((alternative) => ({ schema: mergeSchemas({ schema: base, at }, alternative, cx), at: alternative.at }))
}

/** A branch that is itself a bare `anyOf` contributes its branches. */
function flatten(converted: Converted): Converted[] {
  const { schema, plan } = converted
  const keys = Object.keys(schema)
  if (!Array.isArray(schema.anyOf) || keys.some((key) => key !== 'anyOf')) return [converted]
  const nested = schema.anyOf as MutableSchema[]
  return nested.map((branch, i) => ({
    schema: branch,
    plan: plan.kind === 'union' ? (plan.branches[i]?.plan ?? SAME) : plan,
    admitsNull: converted.admitsNull,
  }))
}

function unionPlan(branches: readonly Converted[]): Plan {
  if (branches.every((branch) => isSame(branch.plan))) return SAME
  const routed: UnionBranch[] = branches.map((branch) => ({ schema: branch.schema, plan: branch.plan }))
  return { kind: 'union', branches: routed }
}
