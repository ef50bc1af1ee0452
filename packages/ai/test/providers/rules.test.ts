import { describe, expect, it } from 'vitest'
import { RULES, ruleIdsFor, type RuleSubject } from './rules.ts'

/** Each predicate must catch what it is about, at the right place; otherwise green tests mean nothing. */
const subject = (schema: Record<string, unknown>, name = 'ok'): RuleSubject => ({ name, schema, strict: true })

const VIOLATIONS: [rule: string, schema: Record<string, unknown>, path: string][] = [
  ['OA1', { type: 'array' }, '/type'],
  ['OA2', { type: 'object', anyOf: [] }, '/anyOf'],
  ['OA3', { type: 'object', properties: { a: { type: 'object', properties: {} } }, additionalProperties: false }, '/properties/a'],
  ['OA4', { type: 'object', properties: { a: {}, b: {} }, required: ['a'] }, ''],
  ['OA5', { type: 'object', properties: { a: { allOf: [] } } }, '/properties/a/allOf'],
  ['OA5b', { type: 'object', properties: { a: { oneOf: [] } } }, '/properties/a/oneOf'],
  ['OA6', { type: 'object', properties: { a: { type: 'string', format: 'uri' } } }, '/properties/a'],
  ['OA7', { type: 'object', properties: Object.fromEntries(Array.from({ length: 5001 }, (_, i) => [`p${i}`, {}])) }, ''],
  ['OA8', Array.from({ length: 11 }).reduce<Record<string, unknown>>((inner) => ({ type: 'object', properties: { x: inner } }), { type: 'string' }), ''],
  ['OA9', { type: 'object', properties: { a: { enum: Array.from({ length: 1001 }, (_, i) => i) } } }, ''],
  ['OA10', { type: 'object', properties: { a: { enum: ['x'.repeat(120_001)] } } }, ''],
  ['AN1', { properties: {} }, '/type'],
  ['AN-P1', { type: 'object', properties: { $top: {} } }, '/properties/$top'],
  ['AS1', { type: 'object' }, ''],
  ['AS2', { type: 'object', properties: { n: { type: 'number', minimum: 1 } } }, '/properties/n/minimum'],
  ['AS3', { type: 'object', properties: { l: { type: 'array', minItems: 2 } } }, '/properties/l/minItems'],
  ['AS4', { type: 'object', properties: { e: { enum: [{ a: 1 }] } } }, '/properties/e/enum'],
  ['AS5', { type: 'object', properties: { d: { type: 'string', format: 'regex' } } }, '/properties/d'],
  ['AS6', { type: 'object', properties: { d: { $ref: 'https://x/y.json' } } }, '/properties/d/$ref'],
  ['AS7', { type: 'object', $defs: { N: { type: 'object', properties: { n: { $ref: '#/$defs/N' } } } }, properties: { n: { $ref: '#/$defs/N' } } }, '/properties/n/$ref'],
  ['AS8', { type: 'object', properties: { a: { allOf: [{ $ref: '#/$defs/A' }] } }, $defs: { A: {} } }, '/properties/a/allOf'],
  ['AS9', { type: 'object', properties: Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`p${i}`, {}])) }, ''],
  ['AS10', { type: 'object', properties: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`p${i}`, { type: ['string', 'null'] }])) }, ''],
  ['GA6', { type: 'OBJECT', properties: { '1st': {} } }, '/properties/1st'],
  ['GA1', { type: 'object' }, '/type'],
  ['GA2', { type: 'OBJECT', properties: { a: { type: 'STRING', const: 'x' } } }, '/properties/a/const'],
  ['GA3', { type: 'OBJECT', properties: { a: { type: ['STRING', 'NULL'] } } }, '/properties/a/type'],
  ['GA4', { type: 'OBJECT', properties: { a: { type: 'INTEGER', enum: [1] } } }, '/properties/a/enum'],
  ['GA5', { type: 'OBJECT', properties: { a: { type: 'STRING', anyOf: [] } } }, '/properties/a'],
  ['GB1', { anyOf: [] }, '/type'],
  ['GB2', { type: 'object', properties: { a: { $ref: '#/$defs/A', description: 'x' } } }, '/properties/a'],
  ['GB3', { type: 'object', properties: { a: { enum: [true] } } }, '/properties/a/enum'],
  ['MCP2', { type: 'array' }, '/type'],
]

describe('rule predicates', () => {
  it.each(VIOLATIONS)('%s reports its violation and where', (rule, schema, path) => {
    expect(RULES[rule]?.check(subject(schema))).toMatchObject({ path })
  })

  it('name rules report /name', () => {
    for (const rule of ['OA-N1', 'AN-N1', 'GM-N1', 'MCP-N']) expect(RULES[rule]?.check(subject({}, 'a tool'))).toMatchObject({ path: '/name' })
    expect(RULES['GM-N1']?.check(subject({}, 'admin.tools.list'))).toBeUndefined()
    expect(RULES['OA-N1']?.check(subject({}, 'admin.tools.list'))).toMatchObject({ path: '/name' })
  })

  it('every rule ID used for a target exists', () => {
    for (const target of ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'gemini-json-schema', 'mcp'] as const) {
      for (const id of [...ruleIdsFor(target, true), ...ruleIdsFor(target, false)]) expect(RULES, id).toHaveProperty(id)
    }
  })
})
