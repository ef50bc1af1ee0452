import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, toolJsonSchema, type AnyTool, type JsonSchema } from '@toolgate/ai'
import { fromProviderArgs, toProviderSchema, toProviderTool, type ProviderWarningCode } from '@toolgate/ai/providers'
import { VARIANTS } from './corpus.ts'
import { expectSoundConversion } from './roundTrip.ts'
import { ruleFailures } from './rules.ts'

const toolOf = (inputSchema: JsonSchema, name = 'hard_case'): AnyTool => toolDefinition({ name, description: 'A hard case.', inputSchema })

const codes = (warnings: readonly { code: ProviderWarningCode }[]) => warnings.map((warning) => warning.code)

const address = { type: 'object', properties: { street: { type: 'string' }, zip: { type: 'string', pattern: '^[0-9]{5}$' } }, required: ['street'] }

/** Real-world shapes; each must convert soundly for every target and strict variant. */
const CASES: Record<string, JsonSchema> = {
  'local $ref/$defs used twice': {
    type: 'object',
    $defs: { Address: address },
    properties: { home: { $ref: '#/$defs/Address' }, work: { $ref: '#/$defs/Address', description: 'Office' } },
    required: ['home'],
  },
  'draft-07 definitions and $schema': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    definitions: { Id: { type: 'string', minLength: 3 } },
    properties: { id: { $ref: '#/definitions/Id' }, tuple: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false, minItems: 2 } },
    required: ['id'],
  },
  'root $ref': { $ref: '#/$defs/Input', $defs: { Input: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } },
  'allOf with $ref and extra properties': {
    type: 'object',
    $defs: { Base: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] } },
    properties: { item: { allOf: [{ $ref: '#/$defs/Base' }, { properties: { label: { type: 'string' } }, required: ['label'] }] } },
    required: ['item'],
  },
  'oneOf of objects under a typed parent': {
    type: 'object',
    properties: {
      ref: {
        type: 'object',
        oneOf: [
          { properties: { id: { type: 'integer' } }, required: ['id'], additionalProperties: false },
          { properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
        ],
      },
    },
  },
  'nullable in every spelling': {
    type: 'object',
    properties: {
      a: { type: ['string', 'null'] },
      b: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
      c: { type: 'string', nullable: true },
      d: { type: ['string', 'null'], enum: ['x', 'y', null] },
      typed: { type: 'string', enum: ['x', null] },
      e: { oneOf: [{ type: 'null' }, { type: 'object', properties: { f: { type: 'boolean' } } }] },
    },
    required: ['a'],
  },
  'const and numeric enums': {
    type: 'object',
    properties: {
      kind: { const: 'circle' },
      version: { const: 2 },
      level: { type: 'integer', enum: [1, 2, 3] },
      mixed: { enum: ['auto', 0, true] },
      clash: { enum: ['1', 1] },
    },
    required: ['kind', 'level'],
  },
  '2020-12 tuple, open and closed': {
    type: 'object',
    properties: {
      point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false, minItems: 2 },
      row: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'integer' } },
    },
  },
  'maps and free-form objects': {
    type: 'object',
    properties: {
      scores: { type: 'object', additionalProperties: { type: 'number' } },
      labels: { type: 'object', propertyNames: { pattern: '^[a-z]+$' }, additionalProperties: { type: 'string' } },
      env: { type: 'object', patternProperties: { '^[A-Z_]+$': { type: 'string' } }, additionalProperties: false },
      metadata: { type: 'object' },
      open: { type: 'object', additionalProperties: true },
      anything: {},
    },
  },
  '$-prefixed and odd property names': {
    type: 'object',
    properties: { $type: { type: 'string' }, '@id': { type: 'string' }, 'filter[name]': { type: 'string' }, _type: { type: 'integer' }, '2fa': { type: 'boolean' } },
    required: ['$type'],
  },
  'type arrays': {
    type: 'object',
    properties: { value: { type: ['string', 'number', 'boolean'] }, either: { type: ['object', 'string'], properties: { x: { type: 'string' } } } },
    required: ['value'],
  },
  'arrays without items': { type: 'object', properties: { list: { type: 'array' }, bounded: { type: 'array', minItems: 2, maxItems: 4 } } },
  'formats and bounds': {
    type: 'object',
    properties: {
      site: { type: 'string', format: 'uri' },
      email: { type: 'string', format: 'email' },
      day: { type: 'string', format: 'date' },
      ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1, multipleOf: 0.5 },
      word: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
      tags: { type: 'array', items: { type: 'string' }, minItems: 2, uniqueItems: true },
      legacy: { type: 'number', minimum: 0, exclusiveMinimum: true },
    },
  },
  'composition keywords': {
    type: 'object',
    properties: {
      code: { type: 'string', not: { const: 'x' } },
      mode: { type: 'string', enum: ['a', 'b'], default: 'a', examples: ['b'], deprecated: true },
      shipping: { type: 'object', properties: { method: { type: 'string' }, address: { type: 'string' } }, if: { properties: { method: { const: 'post' } } }, then: { required: ['address'] }, dependentRequired: { address: ['method'] } },
    },
  },
  'recursive tree': {
    type: 'object',
    $defs: {
      Node: { type: 'object', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }, required: ['label'] },
    },
    properties: { tree: { $ref: '#/$defs/Node' } },
    required: ['tree'],
  },
  'pydantic v1 style: described recursive field through allOf': {
    type: 'object',
    definitions: {
      Node: { title: 'Node', type: 'object', properties: { name: { type: 'string' }, parent: { allOf: [{ $ref: '#/definitions/Node' }], description: 'The parent' } }, required: ['name'] },
    },
    properties: { node: { $ref: '#/definitions/Node' } },
    required: ['node'],
  },
  'recursive $ref with constraints beside it': {
    type: 'object',
    $defs: { List: { type: 'object', properties: { value: { type: 'integer' }, next: { $ref: '#/$defs/List', minProperties: 1 } } } },
    properties: { list: { $ref: '#/$defs/List' } },
  },
  'root union': {
    anyOf: [
      { type: 'object', properties: { action: { const: 'create' }, title: { type: 'string' } }, required: ['action', 'title'] },
      { type: 'object', properties: { action: { const: 'delete' }, id: { type: 'integer' } }, required: ['action', 'id'] },
    ],
  },
  'root free-form map': { type: 'object', additionalProperties: { type: 'string' } },
  'root nullable object': { type: ['object', 'null'], properties: { q: { type: 'string' } } },
  'no parameters': { type: 'object', properties: {}, additionalProperties: false },
}

describe('hard cases', () => {
  describe.each(Object.entries(CASES))('%s', (_, schema) => {
    const recursive = /Node|List/.test(JSON.stringify(schema))
    it.each(VARIANTS.filter((variant) => !(variant.label === 'anthropic strict' && recursive)))('$label', (variant) => {
      expectSoundConversion(toolOf(schema), schema, variant)
    })
  })
})

describe('what each dialect does with them', () => {
  it('keeps $defs for OpenAI strict, inlines them for Gemini', () => {
    const tool = toolOf(CASES['local $ref/$defs used twice'] as JsonSchema)
    const openai = toProviderTool(tool, 'openai-responses', { strict: true }).tool
    expect(openai.parameters.$defs).toMatchObject({ Address: { type: 'object', additionalProperties: false, required: ['street', 'zip'] } })
    // OpenAI strict: "$ref cannot have keywords {'description'}".
    expect(openai.parameters.properties).toEqual({ home: { $ref: '#/$defs/Address' }, work: { anyOf: [{ $ref: '#/$defs/Address' }, { type: 'null' }], description: 'Office' } })
    expect(toProviderTool(toolOf({ type: 'object', $defs: { A: { type: 'string' } }, properties: { a: { $ref: '#/$defs/A', description: 'An A' } }, required: ['a'] }), 'openai-chat', { strict: true }).tool.function.parameters.properties).toEqual({
      a: { anyOf: [{ $ref: '#/$defs/A' }], description: 'An A' },
    })
    const gemini = toProviderTool(tool, 'gemini').tool
    expect(gemini.parameters?.properties?.home).toMatchObject({ type: 'OBJECT', properties: { street: { type: 'STRING' }, zip: { type: 'STRING', pattern: '^[0-9]{5}$' } } })
    expect(JSON.stringify(gemini)).not.toContain('$ref')
  })

  it('moves a constraint the dialect lacks into the description, with a warning at the keyword', () => {
    const result = toProviderTool(toolOf(CASES['formats and bounds'] as JsonSchema), 'anthropic', { strict: true })
    const properties = result.tool.input_schema.properties as Record<string, JsonSchema>
    expect(properties.ratio?.description).toBe('Greater than 0. Maximum 1. A multiple of 0.5.')
    expect(properties.ratio).not.toHaveProperty('maximum')
    expect(properties.tags).toMatchObject({ minItems: 1, description: 'At least 2 items. Items must be unique.' })
    expect(properties.site).toMatchObject({ format: 'uri' })
    expect(result.warnings).toContainEqual({ path: '/inputSchema/properties/ratio/maximum', code: 'CONSTRAINT_IN_DESCRIPTION', message: expect.stringContaining('"maximum"') })
    expect(result.lossy).toBe(true) // the provider no longer enforces the maximum
    const openai = toProviderTool(toolOf(CASES['formats and bounds'] as JsonSchema), 'openai-chat', { strict: true })
    const site = (openai.tool.function.parameters.properties as Record<string, JsonSchema>).site
    expect(site).toEqual({ type: ['string', 'null'], description: 'Format: uri.' })
    expect(openai.warnings).toContainEqual(expect.objectContaining({ path: '/inputSchema/properties/site/format', code: 'FORMAT_IN_DESCRIPTION' }))
  })

  it('turns oneOf into anyOf with the rule in words', () => {
    const result = toProviderTool(toolOf(CASES['oneOf of objects under a typed parent'] as JsonSchema), 'gemini')
    const ref = result.tool.parameters?.properties?.ref
    expect(ref?.anyOf).toHaveLength(2)
    expect(ref?.description).toBe('Exactly one of the alternatives applies.')
    expect(result.warnings).toContainEqual(expect.objectContaining({ code: 'ONE_OF_AS_ANY_OF', path: '/inputSchema/properties/ref/oneOf' }))
  })

  it('spells null the way each dialect wants', () => {
    const tool = toolOf(CASES['nullable in every spelling'] as JsonSchema)
    const gemini = toProviderTool(tool, 'gemini').tool.parameters?.properties ?? {}
    expect(gemini.a).toEqual({ type: 'STRING', nullable: true })
    expect(gemini.b).toEqual({ type: 'INTEGER', nullable: true })
    expect(gemini.d).toEqual({ type: 'STRING', format: 'enum', enum: ['x', 'y'], nullable: true })
    const openai = toProviderTool(tool, 'openai-chat', { strict: true }).tool.function.parameters.properties as Record<string, JsonSchema>
    expect(openai.c).toEqual({ type: ['string', 'null'] })
    expect(openai.d).toEqual({ type: ['string', 'null'], enum: ['x', 'y', null] })
    const mcp = toProviderTool(tool, 'mcp').tool.inputSchema.properties as Record<string, JsonSchema>
    expect(mcp.c).toEqual({ type: ['string', 'null'] })
  })

  it('sends Gemini enums as strings and maps them back', () => {
    const tool = toolOf(CASES['const and numeric enums'] as JsonSchema)
    const result = toProviderTool(tool, 'gemini')
    const properties = result.tool.parameters?.properties ?? {}
    expect(properties.level).toEqual({ type: 'STRING', format: 'enum', enum: ['1', '2', '3'] })
    expect(properties.kind).toEqual({ type: 'STRING', format: 'enum', enum: ['circle'] })
    expect(properties.clash?.enum).toEqual(['"1"', '1'])
    const { args } = fromProviderArgs(tool, 'gemini', { kind: 'circle', level: '3', version: '2', mixed: 'true', clash: '"1"' })
    expect(args).toEqual({ kind: 'circle', level: 3, version: 2, mixed: true, clash: '1' })
    expect(codes(result.warnings)).toContain('ENUM_AS_STRINGS')
  })

  it('sends tuples and maps in shapes strict mode can declare, and maps them back', () => {
    const tool = toolOf({ ...(CASES['2020-12 tuple, open and closed'] as JsonSchema), properties: { ...(CASES['2020-12 tuple, open and closed'] as { properties: object }).properties, ...(CASES['maps and free-form objects'] as { properties: object }).properties } })
    const { tool: envelope, warnings } = toProviderTool(tool, 'openai-chat', { strict: true })
    const properties = envelope.function.parameters.properties as Record<string, JsonSchema>
    expect(properties.point).toMatchObject({ type: ['object', 'null'], properties: { _0: { type: 'number' }, _1: { type: 'number' } }, required: ['_0', '_1'] })
    expect(properties.scores).toMatchObject({ type: ['array', 'null'], items: { properties: { key: { type: 'string' }, value: { type: 'number' } } } })
    expect(properties.labels).toMatchObject({ items: { properties: { key: { type: 'string', pattern: '^[a-z]+$' } } } })
    expect(properties.anything).toMatchObject({ type: ['string', 'null'] })
    expect(codes(warnings)).toEqual(expect.arrayContaining(['TUPLE_AS_OBJECT', 'MAP_AS_ENTRIES', 'JSON_ENCODED']))
    const sent = {
      point: { _0: 1.5, _1: 2 },
      row: { _0: 'a', _rest: [1, 2] },
      scores: [{ key: 'alice', value: 3 }],
      labels: null,
      env: [{ key: 'HOME', value: '/root' }],
      metadata: [{ key: 'a', value: '{"b":1}' }],
      open: null,
      anything: '[1,2]',
    }
    expect(fromProviderArgs(tool, 'openai-chat', sent, { strict: true }).args).toEqual({
      point: [1.5, 2],
      row: ['a', 1, 2],
      scores: { alice: 3 },
      env: { HOME: '/root' },
      metadata: { a: { b: 1 } },
      anything: [1, 2],
    })
  })

  it('renames property names a provider refuses, reversibly', () => {
    const tool = toolOf(CASES['$-prefixed and odd property names'] as JsonSchema)
    const gemini = toProviderTool(tool, 'gemini')
    expect(Object.keys(gemini.tool.parameters?.properties ?? {})).toEqual(['_type_2', '_id', 'filter_name_', '_type', '_2fa'])
    expect(gemini.tool.parameters?.required).toEqual(['_type_2'])
    const anthropic = toProviderTool(tool, 'anthropic')
    expect(Object.keys(anthropic.tool.input_schema.properties as object)).toEqual(['_type_2', '_id', 'filter_name_', '_type', '2fa'])
    const { args } = fromProviderArgs(tool, 'gemini', { _type_2: 'a', _id: 'b', filter_name_: 'c', _type: 1, _2fa: true })
    expect(args).toEqual({ $type: 'a', '@id': 'b', 'filter[name]': 'c', _type: 1, '2fa': true })
    expect(toProviderTool(tool, 'mcp').tool.inputSchema.properties).toHaveProperty('$type')
  })

  it('cuts recursion for Gemini, keeps it where it is allowed, and sends it non-strict under Anthropic strict', () => {
    const tool = toolOf(CASES['recursive tree'] as JsonSchema)
    const gemini = toProviderTool(tool, 'gemini', { recursionDepth: 2 })
    expect(gemini.lossy).toBe(true)
    expect(gemini.warnings).toContainEqual(expect.objectContaining({ code: 'RECURSION_CUT', path: '/inputSchema/$defs/Node/properties/children/items/$ref' }))
    let levels = 0
    for (let node = gemini.tool.parameters?.properties?.tree; node?.type === 'OBJECT'; levels++) node = node.properties?.children?.items
    expect(levels).toBe(2)
    expect(toProviderTool(tool, 'openai-chat', { strict: true }).tool.function.parameters.$defs).toHaveProperty('Node')
    expect(toProviderTool(tool, 'gemini-json-schema').tool.parametersJsonSchema?.$defs).toHaveProperty('Node')
    const anthropicStrict = toProviderTool(tool, 'anthropic', { strict: true })
    expect(anthropicStrict.tool).not.toHaveProperty('strict')
    expect(anthropicStrict.tool.input_schema.$defs).toHaveProperty('Node')
    expect(anthropicStrict.warnings[0]).toEqual({
      path: '/inputSchema',
      code: 'STRICT_DISABLED',
      message: expect.stringContaining('does not accept recursive schemas (at /$defs/Node/properties/children/items/$ref)'),
    })
    expect(toProviderTool(tool, 'anthropic').tool.input_schema.$defs).toHaveProperty('Node')
  })

  it('resolves $anchor and embedded $id references', () => {
    const schema = {
      type: 'object',
      $defs: { Tag: { $anchor: 'tag', type: 'string', maxLength: 20 }, Money: { $id: 'urn:example:money', type: 'object', properties: { cents: { type: 'integer' } }, required: ['cents'] } },
      properties: { tag: { $ref: '#tag' }, price: { $ref: 'urn:example:money' } },
    }
    const tool = toolOf(schema)
    for (const { target, options, label } of VARIANTS) expect(ruleFailures(target, toProviderTool(tool, target, options).tool), label).toEqual([])
    for (const variant of VARIANTS) expectSoundConversion(tool, schema, variant, 10)
    expect(toProviderTool(tool, 'gemini').tool.parameters?.properties).toEqual({
      tag: { type: 'STRING', maxLength: '20' },
      price: { type: 'OBJECT', properties: { cents: { type: 'INTEGER' } }, required: ['cents'] },
    })
    expect(toProviderTool(tool, 'mcp').tool.inputSchema).toEqual({
      type: 'object',
      properties: { tag: { $ref: '#/$defs/Tag' }, price: { $ref: '#/$defs/Money' } },
      $defs: { Tag: { type: 'string', maxLength: 20 }, Money: { type: 'object', properties: { cents: { type: 'integer' } }, required: ['cents'] } },
    })
  })

  it('recursion through the root itself ($ref: "#")', () => {
    const schema = { type: 'object', properties: { name: { type: 'string' }, parent: { $ref: '#' } }, required: ['name'] }
    const openai = toProviderTool(toolOf(schema), 'openai-chat', { strict: true }).tool.function.parameters
    expect(openai.$defs).toHaveProperty('root')
    expect((openai.properties as Record<string, unknown>).parent).toEqual({ anyOf: [{ $ref: '#/$defs/root' }, { type: 'null' }] })
    for (const variant of VARIANTS.filter((variant) => variant.label !== 'anthropic strict')) expectSoundConversion(toolOf(schema), schema, variant, 10)
  })

  it('wraps a root union, inlines a root $ref, narrows a nullable root', () => {
    const union = toProviderTool(toolOf(CASES['root union'] as JsonSchema), 'openai-chat', { strict: true })
    expect(union.tool.function.parameters).toMatchObject({ type: 'object', properties: { input: { anyOf: [{}, {}] } }, required: ['input'], additionalProperties: false })
    expect(fromProviderArgs(toolOf(CASES['root union'] as JsonSchema), 'openai-chat', '{"input":{"action":"delete","id":4}}', { strict: true }).args).toEqual({ action: 'delete', id: 4 })
    expect(toProviderTool(toolOf(CASES['root union'] as JsonSchema), 'mcp').tool.inputSchema).toMatchObject({ type: 'object', anyOf: [{}, {}] })
    expect(toProviderTool(toolOf(CASES['root $ref'] as JsonSchema), 'mcp').tool.inputSchema).toEqual({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] })
    const narrowed = toProviderTool(toolOf(CASES['root nullable object'] as JsonSchema), 'anthropic')
    expect(narrowed.tool.input_schema.type).toBe('object')
    expect(codes(narrowed.warnings)).toEqual(['ROOT_NARROWED'])
  })

  it('leaves out the parameters of a tool without any for Gemini', () => {
    const tool = toolOf(CASES['no parameters'] as JsonSchema)
    expect(toProviderTool(tool, 'gemini').tool).toEqual({ name: 'hard_case', description: 'A hard case.' })
    expect(toProviderTool(tool, 'gemini-json-schema').tool).not.toHaveProperty('parametersJsonSchema')
    expect(toProviderTool(tool, 'openai-chat', { strict: true }).tool.function.parameters).toEqual({ type: 'object', properties: {}, required: [], additionalProperties: false })
  })

  it('puts OpenAI-strict-only defaults and examples into words', () => {
    const result = toProviderTool(toolOf(CASES['composition keywords'] as JsonSchema), 'openai-chat', { strict: true })
    const properties = result.tool.function.parameters.properties as Record<string, JsonSchema>
    expect(properties.mode?.description).toBe('Default: "a". Example: "b". Deprecated.')
    expect(properties.code?.description).toBe('Must not match {"const":"x"}.')
    expect(properties.shipping?.description).toBe('If it matches {"properties":{"method":{"const":"post"}}}, it must match {"required":["address"]}. If "address" is given, also give "method".')
    expect(codes(result.warnings).filter((code) => code === 'CONSTRAINT_IN_DESCRIPTION')).toHaveLength(4)
  })
})

describe('strict-mode limits', () => {
  it('falls back to strict: false past OpenAI nesting limits', () => {
    let schema: JsonSchema = { type: 'object', properties: { leaf: { type: 'string' } } }
    for (let i = 0; i < 11; i++) schema = { type: 'object', properties: { next: schema } }
    const result = toProviderTool(toolOf(schema), 'openai-chat', { strict: true })
    expect(result.tool.function.strict).toBe(false)
    expect(result.warnings[0]).toMatchObject({ code: 'STRICT_DISABLED', path: '/inputSchema' })
  })

  it('fits Anthropic strict in 24 optional properties by making some required-and-nullable', () => {
    const properties = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, { type: 'string' }]))
    const tool = toolOf({ type: 'object', properties })
    const result = toProviderTool(tool, 'anthropic', { strict: true })
    expect(result.tool.strict).toBe(true)
    const input = result.tool.input_schema
    expect(input.required).toEqual(['p24', 'p25', 'p26', 'p27', 'p28', 'p29'])
    expect((input.properties as Record<string, JsonSchema>).p29).toEqual({ type: ['string', 'null'] })
    expect(fromProviderArgs(tool, 'anthropic', { p0: 'a', p24: null, p25: 'b', p26: null, p27: null, p28: null, p29: null }, { strict: true }).args).toEqual({ p0: 'a', p25: 'b' })
    expectSoundConversion(tool, { type: 'object', properties }, { label: 'anthropic strict', target: 'anthropic', options: { strict: true } })
  })

  it('falls back when the optional budget cannot be met without too many unions', () => {
    const properties = Object.fromEntries(Array.from({ length: 42 }, (_, i) => [`p${i}`, { type: 'string' }]))
    const result = toProviderTool(toolOf({ type: 'object', properties }), 'anthropic', { strict: true })
    expect(result.tool).not.toHaveProperty('strict')
    expect(result.warnings[0]?.code).toBe('STRICT_DISABLED')
  })
})

describe('typed options', () => {
  it('takes only the options a target has', () => {
    const tool = toolOf({ type: 'object', properties: { a: { type: 'string' } } })
    // @ts-expect-error Gemini has no strict mode
    toProviderTool(tool, 'gemini', { strict: true })
    // @ts-expect-error OpenAI has no recursion depth
    toProviderTool(tool, 'openai-chat', { recursionDepth: 2 })
    const chat: { type: 'function'; function: { strict: boolean } } = toProviderTool(tool, 'openai-chat', { strict: true }).tool
    const mcp: { inputSchema: { type: 'object' } } = toProviderTool(tool, 'mcp', { outputSchema: false }).tool
    expect([chat.function.strict, mcp.inputSchema.type]).toEqual([true, 'object'])
  })
})

describe('tools built with toolDefinition', () => {
  const search = toolDefinition({
    name: 'search_docs',
    description: 'Search the docs',
    inputSchema: v.object({
      query: v.pipe(v.string(), v.minLength(2)),
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50))),
      since: v.optional(v.pipe(v.string(), v.isoTimestamp())),
      kind: v.picklist(['guide', 'api']),
      filters: v.optional(v.record(v.string(), v.string())),
      owner: v.nullable(v.object({ login: v.string() })),
    }),
  })

  it.each(VARIANTS)('a Valibot tool converts soundly for $label', (variant) => {
    expectSoundConversion(search, toolJsonSchema(search) as JsonSchema, variant)
  })

  it('toProviderSchema converts the same schema as toProviderTool', () => {
    const schema = toolJsonSchema(search) as JsonSchema
    expect(toProviderSchema(schema, 'openai-chat', { strict: true }).schema).toBe(toProviderTool(search, 'openai-chat', { strict: true }).tool.function.parameters)
    expect(toProviderSchema(schema, 'anthropic', { strict: true }).strict).toBe(true)
  })
})
