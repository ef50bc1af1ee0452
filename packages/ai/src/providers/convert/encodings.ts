import type { JsonSchema } from '../../schema/types.ts'
import { omit, type MutableSchema } from '../json.ts'
import type { Plan } from '../plan.ts'
import type { ConvertContext, Converted } from './context.ts'
import { convertNode } from './convertNode.ts'
import { finishNode } from './finish.ts'
import type { Located } from './merge.ts'
import { buildRecord } from './record.ts'

const JSON_PLAN: Plan = Object.freeze({ kind: 'json' })

const ANY_JSON_NOTE = 'Send any JSON value as a JSON-encoded string (for example "42", "\\"text\\"" or "{\\"a\\":1}").'

/**
 * A value with no shape the dialect can declare, sent as a JSON string and parsed back.
 * `null` stays free to mean "absent": a real null is the string "null".
 */
export function encodeAsJson(node: JsonSchema, at: string, cx: ConvertContext, note = ANY_JSON_NOTE): Converted {
  cx.warnings.add('JSON_ENCODED', at, `This value has no fixed shape ${cx.dialect.label} can declare; it is sent as a JSON string and parsed back`)
  const schema = finishNode({ type: 'string' }, node, at, cx, 'any', { notes: [note], carry: false })
  return { schema, plan: JSON_PLAN, admitsNull: false }
}

/**
 * The empty object where the dialect cannot declare one (Gemini refuses an OBJECT without
 * properties): the one string "{}", as an enum so the model cannot send anything else.
 */
export function encodeEmptyObject(node: JsonSchema, at: string, cx: ConvertContext): Converted {
  cx.warnings.add('JSON_ENCODED', at, `${cx.dialect.label} cannot declare an object without properties; it is sent as the string "{}" and parsed back`)
  const enumSchema: MutableSchema = cx.dialect.stringEnums ? { type: 'string', format: 'enum', enum: ['{}'] } : { type: 'string', enum: ['{}'] }
  const schema = finishNode(enumSchema, node, at, cx, 'any', { notes: ['Always the empty object: send "{}".'], carry: false })
  return { schema, plan: JSON_PLAN, admitsNull: false }
}

/**
 * An object with free keys, sent as a list of `{ key, value }` entries: strict dialects cannot
 * declare open objects, and Gemini refuses an OBJECT without properties.
 */
export function encodeAsEntries(node: JsonSchema, at: string, value: Located, key: Located, cx: ConvertContext): Converted {
  cx.warnings.add('MAP_AS_ENTRIES', at, `An object with free keys cannot be declared in ${cx.dialect.label}; it is sent as a list of {key, value} entries and mapped back`)
  const keyConverted = convertNode(key.schema, key.at, cx)
  const valueConverted = convertNode(value.schema, value.at, cx)
  const entry = buildRecord(
    [
      { key: 'key', at: key.at, required: true, converted: keyConverted },
      { key: 'value', at: value.at, required: true, converted: valueConverted },
    ],
    cx,
  )
  const consumed = ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'unevaluatedProperties']
  const schema = finishNode({ type: 'array', items: entry.schema }, omit(node, consumed), at, cx, 'object', {
    notes: ['Given as a list of {"key", "value"} entries, one per key.'],
    carry: false,
  })
  return { schema, plan: { kind: 'entries', key: keyConverted.plan, value: valueConverted.plan }, admitsNull: false }
}
