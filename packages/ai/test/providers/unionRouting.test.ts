import { describe, expect, it } from 'vitest'
import { toolDefinition, type AnyTool, type JsonSchema } from '@toolgate/ai'
import { fromProviderArgs, toProviderTool } from '@toolgate/ai/providers'
import { VARIANTS } from './corpus.ts'
import { expectSoundConversion } from './roundTrip.ts'

// Encodings can make two branches of a union look alike: a map sent as {key, value} entries and a
// real list of {key, value} objects, a tuple sent as {_0, _1} and an object with such keys. A value
// must go back through a branch it truly fits, or it comes back in a shape the tool refuses.

const toolOf = (name: string, inputSchema: JsonSchema): AnyTool => toolDefinition({ name, description: `The ${name} tool.`, inputSchema })
const one = (schema: JsonSchema): JsonSchema => ({ type: 'object', properties: { value: schema }, required: ['value'] })

const CASES: Record<string, JsonSchema> = {
  'a map or a list of pairs': one({
    anyOf: [
      { type: 'object', additionalProperties: { type: 'number' } },
      { type: 'array', items: { type: 'object', properties: { key: { type: 'string' }, value: { type: ['number', 'null'] } } } },
    ],
  }),
  'a tuple or an object with positional keys': one({
    anyOf: [{ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] }, { type: 'object', properties: { _0: { type: 'string' }, label: { type: 'string' } } }],
  }),
  'a tuple whose positions are all optional': one({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }] }),
  'any object or any list': one({ type: ['object', 'array'] }),
  'two maps told apart by their values': one({
    anyOf: [
      { type: 'object', additionalProperties: { type: 'string', format: 'date-time' } },
      { type: 'object', additionalProperties: { enum: [1, 'x', null] } },
    ],
  }),
}

describe('union branches that encode alike', () => {
  describe.each(Object.entries(CASES))('%s', (_, schema) => {
    it.each(VARIANTS)('round-trips for $label', (variant) => {
      expectSoundConversion(toolOf('pick', schema), schema, variant, 300)
    })
  })

  it('routes a list of pairs with a null value to the list, and true entries to the map', () => {
    const tool = toolOf('pick', CASES['a map or a list of pairs']!)
    const list = [{ key: 'a', value: null }]
    expect(fromProviderArgs(tool, 'openai-chat', { value: list }, { strict: true }).args).toEqual({ value: [{ key: 'a', value: null }] })
    expect(fromProviderArgs(tool, 'anthropic', { value: [{ key: 'a', value: 2 }] }, { strict: true }).args).toEqual({ value: { a: 2 } })
  })

  it('routes by value format where the branches differ only there (Gemini)', () => {
    const tool = toolOf('pick', CASES['two maps told apart by their values']!)
    expect(fromProviderArgs(tool, 'gemini', { value: [{ key: 'due', value: '2025-01-02T10:00:00Z' }] }).args).toEqual({ value: { due: '2025-01-02T10:00:00Z' } })
    expect(fromProviderArgs(tool, 'gemini', { value: [{ key: 'n', value: '1' }] }).args).toEqual({ value: { n: 1 } })
  })

  it('ends a tuple sent as an object at its first missing position', () => {
    const tool = toolOf('pick', CASES['a tuple whose positions are all optional']!)
    expect(toProviderTool(tool, 'anthropic', { strict: true }).warnings.map((warning) => warning.code)).toContain('TUPLE_AS_OBJECT')
    expect(fromProviderArgs(tool, 'anthropic', { value: { _0: 'a', _1: 2 } }, { strict: true }).args).toEqual({ value: ['a', 2] })
    expect(fromProviderArgs(tool, 'anthropic', { value: { _0: 'a', _2: true } }, { strict: true }).args).toEqual({ value: ['a'] })
    expect(fromProviderArgs(tool, 'openai-chat', { value: { _0: null, _1: 3, _2: null } }, { strict: true }).args).toEqual({ value: [] })
  })
})
