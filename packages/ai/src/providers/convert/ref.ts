import type { JsonSchema } from '../../schema/types.ts'
import { acceptsNull } from '../acceptsNull.ts'
import { withNotes } from '../describe.ts'
import type { MutableSchema } from '../json.ts'
import { ANNOTATION_KEYWORDS, META_KEYWORDS, refOf } from '../keywords.ts'
import { childPointer, escapeToken } from '../pointer.ts'
import { ProviderSchemaError } from '../ProviderSchemaError.ts'
import type { Plan } from '../plan.ts'
import type { ResolvedRef } from '../refs.ts'
import type { ConvertContext, Converted, DefEntry, Want } from './context.ts'
import { convertNode, honour } from './convertNode.ts'
import { finishNode } from './finish.ts'
import { derive, mergeSchemas } from './merge.ts'
import { admitNull } from './nullable.ts'

const REF_KEYWORDS: ReadonlySet<string> = new Set(['$ref', '$dynamicRef', '$recursiveRef'])

/** A `$ref`, kept as a reference to a converted `$defs` entry or expanded in place, as the dialect wants. */
export function convertRef(node: JsonSchema, at: string, cx: ConvertContext, want: Want): Converted {
  const target = cx.refs.resolve(refOf(node) as string, at)
  const siblings = derive(node, at, (keyword) => !REF_KEYWORDS.has(keyword) && !META_KEYWORDS.has(keyword))
  const constrained = Object.keys(siblings).some((keyword) => !ANNOTATION_KEYWORDS.has(keyword))
  if (constrained) return intersect(target, siblings, at, cx, want)
  return cx.dialect.refs === 'inline' ? expand(target, siblings, at, cx, want) : reference(target, siblings, at, cx, want)
}

/**
 * `{ $ref, minLength: 3 }` is an intersection: the target is merged in here. When the target is
 * already being converted further up (a recursion), Gemini cuts; dialects that keep `$ref` refer
 * to it and say the extra constraints in words.
 */
function intersect(target: ResolvedRef, siblings: JsonSchema, at: string, cx: ConvertContext, want: Want): Converted {
  const depth = timesExpanding(target, cx)
  if (depth > 0 && cx.dialect.recursion === 'forbid') throw recursionError(at, cx)
  const limit = cx.dialect.refs === 'inline' ? cx.dialect.recursionDepth : 1
  if (depth >= limit) {
    if (cx.dialect.refs === 'inline') return cutRecursion(at, cx)
    const plain = reference(target, {}, at, cx, {})
    const schema = finishNode({ anyOf: [plain.schema] }, siblings, at, cx, 'any', { carry: false })
    return honour(want, { ...plain, schema }, cx)
  }
  return whileExpanding(target, cx, () => convertNode(mergeSchemas({ schema: siblings, at }, { schema: target.schema, at: target.pointer }, cx), at, cx, want))
}

function timesExpanding(target: ResolvedRef, cx: ConvertContext): number {
  return cx.expanding.filter((pointer) => pointer === target.pointer).length
}

/** Runs `convert` with `target` marked as being expanded, so a path back to it is seen as recursion. */
function whileExpanding(target: ResolvedRef, cx: ConvertContext, convert: () => Converted): Converted {
  cx.expanding.push(target.pointer)
  try {
    return convert()
  } finally {
    cx.expanding.pop()
  }
}

/** Inline the target; a target already being expanded `recursionDepth` times on this path is cut. */
function expand(target: ResolvedRef, annotations: JsonSchema, at: string, cx: ConvertContext, want: Want): Converted {
  const depth = timesExpanding(target, cx)
  if (depth > 0 && cx.dialect.recursion === 'forbid') throw recursionError(at, cx)
  if (depth >= cx.dialect.recursionDepth) return cutRecursion(at, cx)
  const converted = whileExpanding(target, cx, () => convertNode(target.schema, target.pointer, cx, want))
  const description = withNotes(annotations.description, [])
  if (description !== undefined) converted.schema.description = withNotes(description, [String(converted.schema.description ?? '')])
  if (typeof annotations.title === 'string' && cx.dialect.keywords.has('title')) converted.schema.title = annotations.title
  return converted
}

/** A `$ref` to the converted target in the output's `$defs`, converted once however often it is used. */
function reference(target: ResolvedRef, annotations: JsonSchema, at: string, cx: ConvertContext, want: Want): Converted {
  const entry = cx.defs.get(target.pointer) ?? convertDef(target, cx)
  if (entry.converting && cx.dialect.recursion === 'forbid') throw recursionError(at, cx)
  let schema: MutableSchema = { $ref: `#/$defs/${escapeToken(entry.name)}` }
  const description = typeof annotations.description === 'string' ? annotations.description : undefined
  if (description !== undefined) schema = cx.dialect.refSiblings ? { ...schema, description } : { anyOf: [schema], description }
  const plan: Plan = { kind: 'ref', target: entry.holder }
  const admitsNull = entry.converting ? acceptsNull(target.schema, cx.refs, at) : entry.admitsNull
  const converted: Converted = { schema, plan, admitsNull }
  return want.nullable && !admitsNull ? admitNull(converted, cx) : converted
}

function convertDef(target: ResolvedRef, cx: ConvertContext): DefEntry {
  const entry = cx.defs.create(target.pointer)
  const converted = whileExpanding(target, cx, () => convertNode(target.schema, target.pointer, cx))
  entry.holder.plan = converted.plan
  entry.holder.schema = converted.schema
  entry.admitsNull = converted.admitsNull
  entry.converting = false
  return entry
}

function cutRecursion(at: string, cx: ConvertContext): Converted {
  cx.warnings.add('RECURSION_CUT', childPointer(at, '$ref'), `A recursive reference is expanded ${cx.dialect.recursionDepth} times for ${cx.dialect.label}; deeper levels cannot be sent`)
  return {
    schema: { type: 'string', description: 'Nesting stops here: leave this out.' },
    plan: { kind: 'json' },
    admitsNull: false,
    absent: 'cut',
  }
}

function recursionError(at: string, cx: ConvertContext): ProviderSchemaError {
  return new ProviderSchemaError('RECURSIVE_SCHEMA', childPointer(at, '$ref'), `The schema is recursive and ${cx.dialect.label} does not accept recursive schemas`)
}
