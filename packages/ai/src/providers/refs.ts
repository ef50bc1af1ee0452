import type { JsonSchema } from '../schema/types.ts'
import { isPlainObject } from '../util/isPlainObject.ts'
import { ANNOTATION_KEYWORDS, refOf } from './keywords.ts'
import { childPointer, pointerTokens } from './pointer.ts'
import { ProviderSchemaError } from './ProviderSchemaError.ts'
import { walkSchema } from './walk.ts'

export interface ResolvedRef {
  readonly schema: unknown
  /** Where the target lives in the document, as a JSON Pointer. */
  readonly pointer: string
}

/**
 * Resolves the references of one document: JSON Pointers (`#/$defs/x`, `#/definitions/x`, `#`),
 * plain-name anchors (`#name`) and embedded `$id`s. Anything else is external and does not resolve:
 * no provider fetches schemas.
 */
export class RefResolver {
  readonly #root: unknown
  readonly #anchors = new Map<string, string>()
  readonly #ids = new Map<string, string>()

  constructor(root: unknown) {
    this.#root = root
    walkSchema(root, (node, pointer) => {
      if (typeof node.$anchor === 'string') this.#anchors.set(node.$anchor, pointer)
      if (typeof node.$dynamicAnchor === 'string' && !this.#anchors.has(node.$dynamicAnchor)) this.#anchors.set(node.$dynamicAnchor, pointer)
      if (typeof node.$id === 'string' && pointer !== '') this.#ids.set(node.$id.replace(/#$/, ''), pointer)
    })
  }

  /** The target of `ref` found at `at`; throws `UNRESOLVED_REF` when there is none. */
  resolve(ref: string, at: string): ResolvedRef {
    const pointer = this.#pointerOf(ref)
    const schema = pointer === undefined ? undefined : lookup(this.#root, pointer)
    if (pointer === undefined || schema === undefined) {
      throw new ProviderSchemaError('UNRESOLVED_REF', childPointer(at, '$ref'), `The reference ${JSON.stringify(ref)} does not resolve inside the schema`)
    }
    return { schema, pointer }
  }

  #pointerOf(ref: string): string | undefined {
    const hash = ref.indexOf('#')
    const base = hash === -1 ? ref : ref.slice(0, hash)
    const fragment = hash === -1 ? '' : safeDecode(ref.slice(hash + 1))
    if (fragment === undefined) return undefined
    let basePointer = ''
    if (base !== '') {
      const id = this.#ids.get(base) ?? (isRootId(this.#root, base) ? '' : undefined)
      if (id === undefined) return undefined
      basePointer = id
    }
    if (fragment === '') return basePointer
    if (fragment.startsWith('/')) return basePointer + fragment
    return this.#anchors.get(fragment)
  }
}

/**
 * Resolves every reference in the document, so a broken one fails now and not at the provider,
 * and refuses references that only lead to references and back: they describe no value.
 */
export function assertRefsResolve(root: unknown, resolver: RefResolver): void {
  walkSchema(root, (node, pointer) => {
    const ref = refOf(node)
    if (ref === undefined) return
    const seen = new Set<string>()
    let hop = { ref, at: pointer }
    for (let target = resolver.resolve(ref, pointer); ; ) {
      if (seen.has(target.pointer)) {
        throw new ProviderSchemaError('RECURSIVE_SCHEMA', childPointer(hop.at, '$ref'), `The reference ${JSON.stringify(hop.ref)} leads back to itself without describing a value`)
      }
      seen.add(target.pointer)
      const next = aliasOf(target.schema, target.pointer)
      if (next === undefined) break
      hop = next
      target = resolver.resolve(next.ref, next.at)
    }
  })
}

/** The reference a schema only stands for (`{ $ref }`, or `{ allOf: [{ $ref }] }`), if that is all it is. */
function aliasOf(schema: unknown, at: string): { ref: string; at: string } | undefined {
  if (!isPlainObject(schema)) return undefined
  const ref = refOf(schema)
  const onlyAnnotationsBeside = (keep: string) => Object.keys(schema).every((keyword) => keyword === keep || keyword.startsWith('$') || ANNOTATION_KEYWORDS.has(keyword))
  if (ref !== undefined) return onlyAnnotationsBeside('$ref') ? { ref, at } : undefined
  const branches = schema.allOf
  if (!Array.isArray(branches) || branches.length !== 1 || !onlyAnnotationsBeside('allOf')) return undefined
  return aliasOf(branches[0], childPointer(at, 'allOf', 0))
}

function lookup(root: unknown, pointer: string): unknown {
  let node = root
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(node)) node = node[Number(token)]
    else if (isPlainObject(node) && Object.hasOwn(node, token)) node = node[token]
    else return undefined
  }
  return node
}

function isRootId(root: unknown, base: string): boolean {
  return isPlainObject(root) && typeof (root as JsonSchema).$id === 'string' && ((root as JsonSchema).$id as string).replace(/#$/, '') === base
}

function safeDecode(fragment: string): string | undefined {
  try {
    return decodeURIComponent(fragment)
  } catch {
    return undefined
  }
}
