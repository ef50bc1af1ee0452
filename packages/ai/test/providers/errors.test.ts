import { describe, expect, it } from 'vitest'
import { ToolgateError, toolDefinition, type JsonSchema } from '@toolgate/ai'
import { PROVIDER_TARGETS, ProviderSchemaError, toProviderSchema, toProviderTool, type ProviderSchemaErrorCode } from '@toolgate/ai/providers'

function expectError(run: () => unknown, code: ProviderSchemaErrorCode, path: string): void {
  let error: unknown
  try {
    run()
  } catch (caught) {
    error = caught
  }
  expect(error).toBeInstanceOf(ProviderSchemaError)
  expect(error).toBeInstanceOf(ToolgateError)
  expect(error).toMatchObject({ code, path, name: 'ProviderSchemaError' })
}

describe('bad input throws ProviderSchemaError with a code and a JSON Pointer', () => {
  it.each(PROVIDER_TARGETS)('a non-object root, for %s', (target) => {
    expectError(() => toProviderSchema({ type: 'string' }, target), 'ROOT_NOT_OBJECT', '/type')
    expectError(() => toProviderSchema({ type: 'array', items: { type: 'string' } }, target), 'ROOT_NOT_OBJECT', '/type')
    expectError(() => toProviderSchema({ items: { type: 'string' } }, target), 'ROOT_NOT_OBJECT', '')
    expectError(() => toProviderSchema(false, target), 'ROOT_NOT_OBJECT', '')
    expectError(() => toProviderSchema({ anyOf: [{ type: 'string' }, { type: 'number' }] }, target), 'ROOT_NOT_OBJECT', '/anyOf')
    expectError(() => toProviderSchema({ $ref: '#/$defs/S', $defs: { S: { type: 'string' } } }, target), 'ROOT_NOT_OBJECT', '/$defs/S/type')
  })

  it.each(PROVIDER_TARGETS)('a $ref that does not resolve, for %s', (target) => {
    const schema = { type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } }
    expectError(() => toProviderSchema(schema, target), 'UNRESOLVED_REF', '/properties/a/$ref')
    expectError(() => toProviderSchema({ type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } }, target), 'UNRESOLVED_REF', '/properties/a/$ref')
    // Unused definitions are checked too: the provider would see them (or the author has a typo).
    expectError(() => toProviderSchema({ type: 'object', $defs: { X: { $ref: '#/$defs/Y' } } }, target), 'UNRESOLVED_REF', '/$defs/X/$ref')
  })

  it('a cyclic schema under Anthropic strict, which forbids recursion: sent non-strict, never thrown', () => {
    const list = { type: 'object', $defs: { Cell: { type: 'object', properties: { next: { $ref: '#/$defs/Cell' } } } }, properties: { head: { $ref: '#/$defs/Cell' } } }
    const mutual = { type: 'object', $defs: { A: { type: 'object', properties: { b: { $ref: '#/$defs/B' } } }, B: { type: 'array', items: { $ref: '#/$defs/A' } } }, properties: { a: { $ref: '#/$defs/A' } } }
    const self = { type: 'object', properties: { self: { $ref: '#' } } }
    for (const [schema, at] of [[list, '/$defs/Cell/properties/next/$ref'], [mutual, '/$defs/B/items/$ref'], [self, '/properties/self/$ref']] as const) {
      const result = toProviderSchema(schema, 'anthropic', { strict: true })
      expect(result.strict).toBe(false)
      expect(result.warnings[0]).toMatchObject({ code: 'STRICT_DISABLED', message: expect.stringContaining(`(at ${at})`) })
      expect(result.schema).toEqual(toProviderSchema(schema, 'anthropic').schema)
    }
  })

  it('a reference that aliases itself through allOf', () => {
    const schema = { type: 'object', $defs: { A: { allOf: [{ $ref: '#/$defs/A' }] } }, properties: { a: { $ref: '#/$defs/A' } } }
    expectError(() => toProviderSchema(schema, 'gemini'), 'RECURSIVE_SCHEMA', '/$defs/A/allOf/0/$ref')
  })

  it('something that is not a schema', () => {
    expectError(() => toProviderSchema({ type: 'object', properties: { a: 42 } } as JsonSchema, 'gemini'), 'INVALID_SCHEMA', '/properties/a')
    expectError(() => toProviderSchema('{}' as unknown as JsonSchema, 'mcp'), 'ROOT_NOT_OBJECT', '')
  })

  it('an unknown target', () => {
    expectError(() => toProviderSchema({ type: 'object' }, 'openai' as never), 'UNKNOWN_TARGET', '')
  })

  it('surfaces through toProviderTool as well', () => {
    const tool = toolDefinition({ name: 'bad', description: 'Bad.', inputSchema: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } })
    expectError(() => toProviderTool(tool, 'openai-chat', { strict: true }), 'UNRESOLVED_REF', '/properties/a/$ref')
  })
})
