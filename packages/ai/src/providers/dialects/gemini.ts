import type { JsonSchema } from '../../schema/types.ts'
import { PASS_THROUGH, type Dialect } from '../dialect.ts'
import { isPlainObject } from '../../util/isPlainObject.ts'
import { declaresNoParameters, type EnvelopeParts } from './envelope.ts'

/** docs/provider-rules.md GM-N1 (Gemini API; Vertex AI allows no colon and 64 characters). */
export const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/

/** GA6: parameter names. */
const PROPERTY_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/

/** GA2: the fields of `Schema` that are not structure the converter rebuilds. */
const SCHEMA_FIELDS: ReadonlySet<string> = new Set([
  'format', 'title', 'description', 'default', 'example', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern',
  'minItems', 'maxItems', 'minProperties', 'maxProperties',
])

/** GA-F: the formats `Schema` knows, per type. */
const FORMATS: Readonly<Record<string, readonly string[]>> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
}

/** GB-K, plus annotations that are never rejected ("the full JSON Schema may be sent"). */
const JSON_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'format', 'title', 'description', 'default', 'examples', 'minimum', 'maximum', 'minItems', 'maxItems',
])

export function geminiDialect(recursionDepth: number): Dialect {
  return {
    ...PASS_THROUGH,
    target: 'gemini',
    label: 'Gemini parameters',
    passThrough: false,
    flavor: 'openapi',
    refs: 'inline',
    recursion: 'cut',
    recursionDepth,
    keywords: SCHEMA_FIELDS,
    formatAllowed: (format, type) => FORMATS[type]?.includes(format) ?? false,
    enumValueAllowed: (value) => typeof value === 'string',
    stringEnums: true,
    constAllowed: false,
    nullInEnum: false,
    typeArrays: false,
    openValues: false,
    tuples: false,
    propertyName: PROPERTY_NAME,
    refSiblings: false,
    wrapRootUnion: true,
  }
}

export function geminiJsonSchemaDialect(): Dialect {
  return {
    ...PASS_THROUGH,
    target: 'gemini-json-schema',
    label: 'Gemini parametersJsonSchema',
    passThrough: false,
    keywords: JSON_SCHEMA_KEYWORDS,
    enumValueAllowed: (value) => typeof value === 'string' || typeof value === 'number',
    constAllowed: false,
    nullInEnum: false,
    propertyName: PROPERTY_NAME,
    refSiblings: false,
    wrapRootUnion: true,
  }
}

/** Counts are int64 in `Schema`: strings in the API's JSON. */
const INT64_FIELDS: ReadonlySet<string> = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties'])

/** Gemini's `Type` enum is upper-case in REST (`STRING`, `OBJECT`, ...); int64 counts are strings. */
export function upperCaseTypes(schema: JsonSchema): JsonSchema {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit)
    if (!isPlainObject(node)) return node
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === 'type' && typeof value === 'string') out[key] = value.toUpperCase()
      else if (INT64_FIELDS.has(key) && typeof value === 'number') out[key] = String(value)
      else if (key === 'properties' && isPlainObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, visit(child)]))
      else if (key === 'items' || key === 'anyOf') out[key] = visit(value)
      else out[key] = value
    }
    return out
  }
  return visit(schema) as JsonSchema
}

/** GM-E1: a function without parameters leaves `parameters` unset (an empty OBJECT is refused). */
export function geminiTool(parts: EnvelopeParts) {
  return {
    name: parts.name,
    description: parts.description,
    ...(declaresNoParameters(parts.parameters) ? {} : { parameters: parts.parameters }),
  }
}

export function geminiJsonSchemaTool(parts: EnvelopeParts) {
  return {
    name: parts.name,
    description: parts.description,
    ...(declaresNoParameters(parts.parameters) ? {} : { parametersJsonSchema: parts.parameters }),
  }
}
