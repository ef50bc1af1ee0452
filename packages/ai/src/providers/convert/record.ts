import type { MutableSchema } from '../json.ts'
import { isSame, SAME, type FieldPlan, type Plan } from '../plan.ts'
import type { ConvertContext, Converted } from './context.ts'
import { convertNode } from './convertNode.ts'
import { providerPropertyNames } from './propertyNames.ts'

/** One property of an object being built: a schema to convert, or one converted already. */
export interface Field {
  readonly key: string
  readonly at: string
  readonly required: boolean
  readonly schema?: unknown
  readonly converted?: Converted
}

/**
 * An object node with the given properties: names the provider refuses are renamed, and in
 * strict dialects every property is required, an optional one accepting `null` for "absent".
 */
export function buildRecord(fields: readonly Field[], cx: ConvertContext): { schema: MutableSchema; plan: Plan } {
  const dialect = cx.dialect
  const names = providerPropertyNames(fields.map((field) => field.key), dialect.propertyName)
  const properties: MutableSchema = {}
  const required: string[] = []
  const plans = new Map<string, FieldPlan>()
  for (const field of fields) {
    const name = names.get(field.key) ?? field.key
    const forced = !field.required && (dialect.allRequired || cx.forceRequired.has(field.at))
    const converted = field.converted ?? convertNode(field.schema, field.at, cx, { nullable: forced })
    if (converted.absent && !field.required) continue
    if (name !== field.key) {
      cx.warnings.add('PROPERTY_RENAMED', field.at, `Property "${field.key}" is sent as "${name}" (${dialect.label} refuses the name) and mapped back`)
    }
    properties[name] = converted.schema
    if (field.required || forced) required.push(name)
    else cx.optionals.push({ at: field.at, union: isUnion(converted.schema), nullable: converted.admitsNull })
    if (forced && converted.admitsNull) {
      cx.warnings.add('ABSENCE_NOT_EXPRESSIBLE', field.at, `"${field.key}" is optional and accepts null; ${dialect.label} must always send it, so leaving it out cannot be told from null`)
    }
    const dropNull = forced && !converted.admitsNull
    if (name !== field.key || dropNull || !isSame(converted.plan)) plans.set(name, { key: field.key, plan: converted.plan, dropNull })
  }
  const schema: MutableSchema = { type: 'object', properties }
  if (required.length > 0 || dialect.allRequired) schema.required = required
  if (dialect.closedObjects) schema.additionalProperties = false
  return { schema, plan: plans.size > 0 ? { kind: 'object', fields: plans } : SAME }
}

function isUnion(schema: MutableSchema): boolean {
  return Array.isArray(schema.anyOf) || Array.isArray(schema.type)
}
