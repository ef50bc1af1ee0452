import type { JsonSchema } from '../schema/types.ts'
import { isPlainObject } from '../util/isPlainObject.ts'
import { childPointer } from './pointer.ts'

/** Keywords holding one subschema. */
const SINGLE = ['additionalProperties', 'additionalItems', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema']
/** Keywords holding a list of subschemas. */
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems']
/** Keywords holding a map of subschemas. */
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']

type SubschemaVisitor = (child: unknown, pointer: string) => void

/** Calls `visit` for every direct subschema of `node`, with its pointer. */
function forEachSubschema(node: JsonSchema, at: string, visit: SubschemaVisitor): void {
  for (const keyword of SINGLE) if (keyword in node) visit(node[keyword], childPointer(at, keyword))
  if (Array.isArray(node.items)) node.items.forEach((child, i) => visit(child, childPointer(at, 'items', i)))
  else if ('items' in node) visit(node.items, childPointer(at, 'items'))
  for (const keyword of LIST) {
    const list = node[keyword]
    if (Array.isArray(list)) list.forEach((child, i) => visit(child, childPointer(at, keyword, i)))
  }
  for (const keyword of MAP) {
    const map = node[keyword]
    if (isPlainObject(map)) for (const [key, child] of Object.entries(map)) visit(child, childPointer(at, keyword, key))
  }
  // draft-07 `dependencies` mixes schemas with lists of names.
  if (isPlainObject(node.dependencies)) {
    for (const [key, child] of Object.entries(node.dependencies)) {
      if (!Array.isArray(child)) visit(child, childPointer(at, 'dependencies', key))
    }
  }
}

/** Visits every schema object in the tree (not following `$ref`), parents first. */
export function walkSchema(root: unknown, visit: (node: JsonSchema, pointer: string) => void, at = ''): void {
  if (!isPlainObject(root)) return
  visit(root, at)
  forEachSubschema(root, at, (child, pointer) => walkSchema(child, visit, pointer))
}
