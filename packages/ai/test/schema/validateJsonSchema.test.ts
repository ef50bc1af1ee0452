import { afterEach, describe, expect, it, vi } from 'vitest'
import { toolDefinition, validateJsonSchema, type JsonSchema } from '@toolgate/ai'

const paths = (schema: JsonSchema | boolean, value: unknown) =>
  validateJsonSchema(schema, value).map((issue) => [issue.path?.join('/') ?? '', issue.message])

describe('validateJsonSchema', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('never evaluates code, so it runs under a strict Content-Security-Policy', () => {
    const refuse = () => {
      throw new EvalError('CSP: unsafe-eval')
    }
    vi.stubGlobal('eval', refuse)
    vi.stubGlobal('Function', refuse)
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '^x' } }, required: ['a'] }
    expect(validateJsonSchema(schema, { a: 'xyz' })).toEqual([])
    expect(validateJsonSchema(schema, { a: 'abc' })).toHaveLength(1)
  })

  it('checks types, required properties and unknown keys with paths', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
      required: ['name'],
      additionalProperties: false,
    }
    expect(paths(schema, { name: 'a', age: 3 })).toEqual([])
    expect(paths(schema, { age: 1.5, extra: true })).toEqual([
      ['name', 'Required'],
      ['age', 'Expected integer, received number'],
      ['extra', 'Unknown property "extra"'],
    ])
    expect(paths(schema, [])).toEqual([['', 'Expected object, received array']])
  })

  it('checks strings, numbers and arrays', () => {
    expect(paths({ type: 'string', minLength: 2, maxLength: 3, format: 'email' }, 'a')).toEqual([
      ['', 'Expected at least 2 characters, received 1'],
      ['', 'Expected a valid email'],
    ])
    expect(paths({ type: 'number', exclusiveMaximum: 10, multipleOf: 0.5 }, 10)).toEqual([
      ['', 'Expected a number < 10, received 10'],
    ])
    expect(paths({ type: 'number', multipleOf: 0.1 }, 0.3)).toEqual([])
    expect(paths({ type: 'array', items: { type: 'number' }, minItems: 1, uniqueItems: true }, [1, 'x', 1])).toEqual([
      ['1', 'Expected number, received string'],
      ['2', 'Duplicate item; items must be unique'],
    ])
  })

  it('checks tuples in both spellings', () => {
    const modern = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false }
    const draft07 = { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false }
    for (const schema of [modern, draft07]) {
      expect(paths(schema, ['a', 1])).toEqual([])
      expect(paths(schema, [1, 1, 1])).toEqual([
        ['0', 'Expected string, received integer'],
        ['2', 'Expected at most 2 items'],
      ])
    }
  })

  it('checks enum, const, nullable type arrays and OpenAPI nullable', () => {
    expect(paths({ enum: [1, 'two'] }, 'two')).toEqual([])
    expect(paths({ enum: [1, 'two'] }, 2)).toEqual([['', 'Expected one of 1, "two"']])
    expect(paths({ const: { a: [1] } }, { a: [1] })).toEqual([])
    expect(paths({ type: ['string', 'null'] }, null)).toEqual([])
    expect(paths({ type: 'string', nullable: true }, null)).toEqual([])
    expect(paths({ type: 'string' }, null)).toEqual([['', 'Expected string, received null']])
  })

  it('checks anyOf, oneOf, allOf, not and if/then/else', () => {
    const anyOf = { anyOf: [{ type: 'string' }, { type: 'number' }] }
    expect(paths(anyOf, true)[0]?.[1]).toMatch(/Does not match any of the 2 allowed alternatives/)
    const oneOf = { oneOf: [{ type: 'number' }, { type: 'integer' }] }
    expect(paths(oneOf, 1.5)).toEqual([])
    expect(paths(oneOf, 1)).toEqual([['', 'Matches 2 alternatives, expected exactly one']])
    const allOf = { allOf: [{ required: ['a'] }, { required: ['b'] }] }
    expect(paths(allOf, { a: 1 })).toEqual([['b', 'Required']])
    expect(paths({ not: { type: 'string' } }, 'x')).toEqual([['', 'Matches a schema it must not match']])
    const conditional = { if: { properties: { kind: { const: 'a' } } }, then: { required: ['a'] }, else: { required: ['b'] } }
    expect(paths(conditional, { kind: 'a' })).toEqual([['a', 'Required']])
    expect(paths(conditional, { kind: 'z' })).toEqual([['b', 'Required']])
  })

  it('checks maps: additionalProperties schemas, patternProperties and propertyNames', () => {
    const map = { type: 'object', additionalProperties: { type: 'number' }, propertyNames: { pattern: '^[a-z]+$' } }
    expect(paths(map, { a: 1, b: 2 })).toEqual([])
    expect(paths(map, { a: 'x', B: 1 })).toEqual(
      expect.arrayContaining([
        ['a', 'Expected number, received string'],
        ['B', 'Property name is not allowed: Expected to match the pattern ^[a-z]+$'],
      ]),
    )
    expect(paths(map, { a: 'x', B: 1 })).toHaveLength(2)
    const patterned = { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false }
    expect(paths(patterned, { 'x-a': 'ok', y: 1 })).toEqual([['y', 'Unknown property "y"']])
  })

  it('resolves local and recursive $refs, and reports one that does not resolve', () => {
    const tree = {
      $defs: { node: { type: 'object', properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['value'] } },
      $ref: '#/$defs/node',
    }
    expect(paths(tree, { value: 1, children: [{ value: 2, children: [{ value: 3 }] }] })).toEqual([])
    expect(paths(tree, { value: 1, children: [{ children: [] }] })).toEqual([['children/0/value', 'Required']])
    const draft07 = { definitions: { n: { type: 'number' } }, properties: { a: { $ref: '#/definitions/n' } } }
    expect(paths(draft07, { a: 'x' })).toEqual([['a', 'Expected number, received string']])
    expect(paths({ $ref: '#/$defs/missing' }, 1)).toEqual([['', 'Schema reference #/$defs/missing does not resolve']])
  })

  it('resolves $anchor, draft-07 plain-name $id and embedded $id references', () => {
    const anchored = { $defs: { code: { $anchor: 'code', type: 'string', pattern: '^[A-Z]{3}$' } }, properties: { a: { $ref: '#code' } } }
    expect(paths(anchored, { a: 'EUR' })).toEqual([])
    expect(paths(anchored, { a: 'eur' })).toEqual([['a', 'Expected to match the pattern ^[A-Z]{3}$']])
    const draft07 = { definitions: { n: { $id: '#num', type: 'number' } }, properties: { a: { $ref: '#num' } } }
    expect(paths(draft07, { a: 'x' })).toEqual([['a', 'Expected number, received string']])
    const embedded = {
      $id: 'https://example.test/root.json',
      $defs: { money: { $id: 'money.json', type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } },
      properties: { price: { $ref: 'money.json' }, cost: { $ref: 'https://example.test/money.json#/properties/amount' } },
    }
    expect(paths(embedded, { price: { amount: 1 }, cost: 2 })).toEqual([])
    expect(paths(embedded, { price: {}, cost: 'x' })).toEqual([
      ['price/amount', 'Required'],
      ['cost', 'Expected number, received string'],
    ])
  })

  it('stops a $ref that loops without consuming input instead of overflowing the stack', () => {
    const loop = { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }
    expect(paths(loop, 1)[0]?.[1]).toMatch(/recursive \$ref/)
  })

  it('supports boolean schemas', () => {
    expect(validateJsonSchema(true, 'anything')).toEqual([])
    expect(paths(false, 1)).toEqual([['', 'No value is allowed here']])
  })

  it('validates the input of tools defined with plain JSON Schema', async () => {
    const tool = toolDefinition({
      name: 'imported',
      description: 'Imported from an MCP server',
      inputSchema: { type: 'object', properties: { owner: { type: 'string' } }, required: ['owner'], additionalProperties: false },
    }).server((input) => input)
    expect(await tool.execute({ owner: 'octo' })).toEqual({ owner: 'octo' })
    await expect(tool.execute({ owner: 1, x: 1 } as never)).rejects.toThrow(
      '- owner: Expected string, received integer\n- x: Unknown property "x"',
    )
  })
})
