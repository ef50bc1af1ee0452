import type { MutableSchema } from '../json.ts'
import { isNullOnly } from '../keywords.ts'
import type { ConvertContext, Converted } from './context.ts'

const NULL_TYPE = Object.freeze({ type: 'null' })

/** The same node, accepting `null` too, spelled the way the dialect wants. */
export function admitNull(converted: Converted, cx: ConvertContext): Converted {
  return { ...converted, schema: withNull(converted.schema, cx) }
}

function withNull(schema: MutableSchema, cx: ConvertContext): MutableSchema {
  if (cx.dialect.flavor === 'openapi') {
    schema.nullable = true
    return schema
  }
  if (typeof schema.$ref === 'string') return wrapInAnyOf(schema)
  if (Array.isArray(schema.anyOf)) {
    if (!schema.anyOf.some(isNullOnly)) schema.anyOf = [...schema.anyOf, { ...NULL_TYPE }]
    return schema
  }
  if (schema.type === undefined) return schema // untyped: null is already valid
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  if (types.includes('null')) return schema
  const hasValues = Array.isArray(schema.enum) || Object.hasOwn(schema, 'const')
  if (hasValues && !cx.dialect.nullInEnum) return wrapInAnyOf(schema)
  schema.type = [...types, 'null']
  if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null]
  else if (Object.hasOwn(schema, 'const')) {
    schema.enum = [schema.const, null]
    delete schema.const
  }
  return schema
}

/** `{ anyOf: [node, { type: "null" }] }`, the node's description lifted to the union. */
function wrapInAnyOf(schema: MutableSchema): MutableSchema {
  const { description, title, ...inner } = schema
  return {
    anyOf: [inner, { ...NULL_TYPE }],
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
  }
}
