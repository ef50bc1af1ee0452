import type { JsonSchema } from '../../schema/types.ts'
import { omit, stringList, type MutableSchema } from '../json.ts'
import { isPlainObject } from '../../util/isPlainObject.ts'
import { describeKeyword } from '../describe.ts'
import type { ConvertContext, Converted } from './context.ts'
import { convertNode } from './convertNode.ts'
import { encodeAsEntries, encodeAsJson, encodeEmptyObject } from './encodings.ts'
import { finishNode } from './finish.ts'
import { derive, locate, type Located } from './merge.ts'
import { buildRecord, type Field } from './record.ts'
import { StrictUnfit } from './strictUnfit.ts'

/**
 * How an object node is built: declared properties (`record`), nothing allowed (`empty`), keys
 * with one value schema (`map`), or anything (`free`).
 */
export type ObjectLayout = 'record' | 'empty' | 'map' | 'free'

export function objectLayout(node: JsonSchema, isRoot: boolean): ObjectLayout {
  const declared = isPlainObject(node.properties) ? Object.keys(node.properties).length : 0
  if (declared > 0 || stringList(node.required).length > 0) return 'record'
  const extra = node.additionalProperties
  const patterns = isPlainObject(node.patternProperties) && Object.keys(node.patternProperties).length > 0
  const names = node.propertyNames !== undefined && node.propertyNames !== true
  if (patterns || names || (isPlainObject(extra) && Object.keys(extra).length > 0)) return 'map'
  if (extra === false) return 'empty'
  // MCP4: `{ type: "object" }` at the root declares a tool without parameters.
  if (isRoot && extra === undefined) return 'empty'
  return 'free'
}

export function convertObject(node: JsonSchema, at: string, cx: ConvertContext, isRoot = false): Converted {
  switch (objectLayout(node, isRoot)) {
    case 'record': return convertRecord(node, at, cx)
    case 'empty': return convertEmpty(node, at, cx)
    case 'map': return convertMap(node, at, cx)
    case 'free': return convertFree(node, at, cx)
  }
}

const RECORD_KEYWORDS = ['properties', 'required', 'additionalProperties', 'patternProperties', 'unevaluatedProperties']

function convertRecord(node: JsonSchema, at: string, cx: ConvertContext): Converted {
  const dialect = cx.dialect
  const properties = isPlainObject(node.properties) ? node.properties : {}
  const required = new Set(stringList(node.required))
  if (dialect.strict) refuseTypedExtras(node, at, cx)
  const fields: Field[] = Object.entries(properties).map(([key, schema]) => ({ key, schema, at: locate(node, at, 'properties', key), required: required.has(key) }))
  // A closed object must declare every key it requires, with the schema extra keys have.
  if (dialect.closedObjects || dialect.flavor === 'openapi') {
    const extra = isPlainObject(node.additionalProperties) ? { schema: node.additionalProperties, at: locate(node, at, 'additionalProperties') } : { schema: {}, at: locate(node, at, 'required') }
    for (const key of required) if (!Object.hasOwn(properties, key)) fields.push({ key, ...extra, required: true })
  }
  const record = buildRecord(fields, cx)
  // Every property was cut (recursion): Gemini refuses an OBJECT without properties.
  if (dialect.flavor === 'openapi' && at !== '' && Object.keys(record.schema.properties as object).length === 0) {
    return encodeAsJson(omit(node, RECORD_KEYWORDS), at, cx, 'Send the object as a JSON-encoded string.')
  }
  const keepsExtras = !dialect.closedObjects && dialect.flavor === 'json-schema'
  const notes = keepsExtras ? keepExtras(record.schema, node, at, cx, [...required].filter((key) => !Object.hasOwn(properties, key))) : []
  if (!keepsExtras) reportDroppedExtras(node, at, cx)
  const schema = finishNode(record.schema, omit(node, RECORD_KEYWORDS), at, cx, 'object', { notes })
  return { schema, plan: record.plan, admitsNull: false }
}

/** JSON Schema dialects that allow open objects keep extra keys (and undeclared required keys) as they were. */
function keepExtras(schema: MutableSchema, node: JsonSchema, at: string, cx: ConvertContext, undeclaredRequired: readonly string[]): string[] {
  const extra = node.additionalProperties
  if (typeof extra === 'boolean') schema.additionalProperties = extra
  else if (isPlainObject(extra)) schema.additionalProperties = convertNode(extra, locate(node, at, 'additionalProperties'), cx).schema
  if (undeclaredRequired.length > 0) schema.required = [...stringList(schema.required), ...undeclaredRequired]
  if (node.patternProperties === undefined) return []
  cx.warnings.add('CONSTRAINT_IN_DESCRIPTION', locate(node, at, 'patternProperties'), `"patternProperties" is not supported by ${cx.dialect.label}; it is in the description`)
  return [describeKeyword('patternProperties', node.patternProperties)]
}

/**
 * A strict mode closes every object, so a map beside declared properties (typed extra keys) would
 * lose its entries: the tool goes non-strict instead (strict modes refuse the open object).
 */
function refuseTypedExtras(node: JsonSchema, at: string, cx: ConvertContext): void {
  const extra = node.additionalProperties
  if (isPlainObject(extra) && Object.keys(extra).length > 0) {
    throw new StrictUnfit(locate(node, at, 'additionalProperties'), `${cx.dialect.label} requires additionalProperties: false, and this object takes extra keys of a given schema beside its declared properties`)
  }
  if (isPlainObject(node.patternProperties) && Object.keys(node.patternProperties).length > 0) {
    throw new StrictUnfit(locate(node, at, 'patternProperties'), `${cx.dialect.label} requires additionalProperties: false, and this object takes keys matching patternProperties beside its declared properties`)
  }
}

function reportDroppedExtras(node: JsonSchema, at: string, cx: ConvertContext): void {
  const extra = node.additionalProperties
  const typed = (isPlainObject(extra) && Object.keys(extra).length > 0) || (isPlainObject(node.patternProperties) && Object.keys(node.patternProperties).length > 0)
  if (typed) {
    const keyword = isPlainObject(extra) && Object.keys(extra).length > 0 ? 'additionalProperties' : 'patternProperties'
    cx.warnings.add('EXTRA_PROPERTIES_DROPPED', locate(node, at, keyword), `${cx.dialect.label} cannot send keys beyond the declared properties; the typed extra keys are dropped`)
  } else if (extra === true || isPlainObject(extra)) {
    cx.warnings.add('OPEN_OBJECT_CLOSED', locate(node, at, 'additionalProperties'), `${cx.dialect.label} needs closed objects; only the declared properties can be sent`)
  }
}

/** An object that takes no keys. Gemini refuses an OBJECT without properties, so there it is the JSON "{}". */
function convertEmpty(node: JsonSchema, at: string, cx: ConvertContext): Converted {
  const dialect = cx.dialect
  if (dialect.flavor === 'openapi' && at !== '') return encodeEmptyObject(omit(node, RECORD_KEYWORDS), at, cx)
  const schema: MutableSchema = { type: 'object', properties: {} }
  if (dialect.allRequired) schema.required = []
  if (dialect.closedObjects || (node.additionalProperties === false && dialect.flavor === 'json-schema')) schema.additionalProperties = false
  return { schema: finishNode(schema, omit(node, RECORD_KEYWORDS), at, cx, 'object'), plan: { kind: 'same' }, admitsNull: false }
}

/** An object whose keys all take one kind of value. */
function convertMap(node: JsonSchema, at: string, cx: ConvertContext): Converted {
  const value = mapValueOf(node, at)
  const key = mapKeyOf(node, at)
  if (cx.dialect.openValues && cx.dialect.flavor === 'json-schema' && !cx.dialect.closedObjects) {
    const schema: MutableSchema = { type: 'object', additionalProperties: convertNode(value.schema, value.at, cx).schema }
    const rest = omit(node, [...RECORD_KEYWORDS, ...(node.patternProperties === undefined ? [] : ['propertyNames'])])
    const notes = node.patternProperties === undefined ? [] : [`Keys match ${JSON.stringify(key.schema)}.`]
    if (node.patternProperties !== undefined) {
      cx.warnings.add('CONSTRAINT_IN_DESCRIPTION', locate(node, at, 'patternProperties'), `"patternProperties" is not supported by ${cx.dialect.label}; it is in the description`)
    }
    return { schema: finishNode(schema, rest, at, cx, 'object', { notes }), plan: { kind: 'same' }, admitsNull: false }
  }
  return encodeAsEntries(node, at, value, key, cx)
}

/** An object that takes any keys and values. */
function convertFree(node: JsonSchema, at: string, cx: ConvertContext): Converted {
  if (cx.dialect.openValues) {
    return { schema: finishNode({ type: 'object' }, omit(node, RECORD_KEYWORDS), at, cx, 'object'), plan: { kind: 'same' }, admitsNull: false }
  }
  return encodeAsEntries(node, at, { schema: {}, at: locate(node, at, 'additionalProperties') }, { schema: { type: 'string' }, at }, cx)
}

/** The schema every value of a map matches: `additionalProperties`, or the pattern schemas. */
function mapValueOf(node: JsonSchema, at: string): Located {
  const extra = node.additionalProperties
  const patterns = isPlainObject(node.patternProperties) ? Object.entries(node.patternProperties) : []
  const hasExtra = isPlainObject(extra) && Object.keys(extra).length > 0
  if (patterns.length === 0) return { schema: hasExtra ? extra : {}, at: locate(node, at, 'additionalProperties') }
  const schemas = [...patterns.map(([, schema]) => schema), ...(hasExtra ? [extra] : [])]
  if (schemas.length === 1) return { schema: schemas[0], at: locate(node, at, 'patternProperties', patterns[0]?.[0] ?? '') }
  return { schema: { anyOf: schemas }, at: locate(node, at, 'patternProperties') }
}

/** The schema every key of a map matches: `propertyNames`, or the one pattern. */
function mapKeyOf(node: JsonSchema, at: string): Located {
  const patterns = isPlainObject(node.patternProperties) ? Object.keys(node.patternProperties) : []
  const names = node.propertyNames
  if (isPlainObject(names)) return { schema: derive(names, locate(node, at, 'propertyNames'), () => true, { type: 'string' }), at: locate(node, at, 'propertyNames') }
  const hasExtra = isPlainObject(node.additionalProperties) && Object.keys(node.additionalProperties).length > 0
  if (patterns.length === 1 && !hasExtra) return { schema: { type: 'string', pattern: patterns[0] }, at: locate(node, at, 'patternProperties') }
  return { schema: { type: 'string' }, at }
}
