import { describe, expect, it } from 'vitest'
import { toolDefinition, type AnyTool, type JsonSchema } from '@toolgate/ai'
import { fromProviderArgs, toProviderTool, toProviderTools } from '@toolgate/ai/providers'
import { VARIANTS } from './corpus.ts'
import { expectSoundConversion } from './roundTrip.ts'
import { ruleFailures } from './rules.ts'

// Strict modes close every object, limit optional properties per request and (Anthropic) refuse
// recursion. A tool converted alone must never come out strict where strict cannot hold: it goes
// non-strict, with a STRICT_DISABLED warning that says why, and still maps back exactly.

const toolOf = (name: string, inputSchema: JsonSchema): AnyTool => toolDefinition({ name, description: `The ${name} tool.`, inputSchema })

const httpRequest: JsonSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', description: 'Where to send the request' },
    options: {
      type: 'object',
      description: 'Method and headers',
      properties: { method: { type: 'string', enum: ['GET', 'POST'] } },
      additionalProperties: { type: 'string', description: 'A header value, keyed by header name' },
    },
  },
  required: ['url'],
}

const labelledEnv: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, vars: { type: 'object', properties: { PATH: { type: 'string' } }, patternProperties: { '^[A-Z_]+$': { type: 'string' } }, additionalProperties: false } },
  required: ['name'],
}

const listingFilters: JsonSchema = {
  type: 'object',
  properties: Object.fromEntries([['query', { type: 'string' }], ...Array.from({ length: 46 }, (_, i) => [`filter_${i}`, { type: 'string', description: `Filter number ${i}` }])]),
  required: ['query'],
}

const commentThread: JsonSchema = {
  type: 'object',
  $defs: {
    Comment: {
      type: 'object',
      properties: { author: { type: 'string' }, text: { type: 'string' }, replies: { type: 'array', items: { $ref: '#/$defs/Comment' } } },
      required: ['author', 'text', 'replies'],
      additionalProperties: false,
    },
  },
  properties: { thread: { $ref: '#/$defs/Comment' } },
  required: ['thread'],
  additionalProperties: false,
}

const filterTree: JsonSchema = {
  type: 'object',
  $defs: {
    Filter: {
      anyOf: [
        { type: 'object', properties: { field: { type: 'string' }, equals: { type: 'string' } }, required: ['field', 'equals'], additionalProperties: false },
        { type: 'object', properties: { all: { type: 'array', items: { $ref: '#/$defs/Filter' } } }, required: ['all'], additionalProperties: false },
      ],
    },
  },
  properties: { where: { $ref: '#/$defs/Filter' } },
  required: ['where'],
  additionalProperties: false,
}

const SCHEMAS = { httpRequest, labelledEnv, listingFilters, commentThread, filterTree }

describe('strict modes fall back instead of sending a schema they refuse', () => {
  describe.each(Object.entries(SCHEMAS))('%s', (name, schema) => {
    it.each(VARIANTS)('converts soundly for $label', (variant) => {
      expectSoundConversion(toolOf(name, schema), schema, variant, 50)
    })
  })

  it('sends a map beside declared properties non-strict, saying why, and keeps its entries', () => {
    const tool = toolOf('http_request', httpRequest)
    for (const result of [toProviderTool(tool, 'anthropic', { strict: true }), toProviderTool(tool, 'openai-chat', { strict: true })]) {
      expect(result.warnings[0]).toEqual({
        path: '/inputSchema',
        code: 'STRICT_DISABLED',
        message: expect.stringMatching(/requires additionalProperties: false, and this object takes extra keys of a given schema beside its declared properties \(at \/properties\/options\/additionalProperties\)$/),
      })
      expect(result.lossy).toBe(false)
    }
    const anthropic = toProviderTool(tool, 'anthropic', { strict: true })
    expect(anthropic.tool).not.toHaveProperty('strict')
    expect(anthropic.tool.input_schema.properties).toMatchObject({ options: { additionalProperties: { type: 'string' } } })
    expect(toProviderTool(tool, 'openai-chat', { strict: true }).tool.function.strict).toBe(false)
    const args = { url: 'https://example.test', options: { method: 'POST', 'X-Trace': 'abc' } }
    expect(fromProviderArgs(tool, 'anthropic', args, { strict: true }).args).toEqual(args)
  })

  it('does the same for patternProperties beside declared properties', () => {
    const result = toProviderTool(toolOf('set_env', labelledEnv), 'anthropic', { strict: true })
    expect(result.tool).not.toHaveProperty('strict')
    expect(result.warnings[0]?.message).toContain('keys matching patternProperties beside its declared properties (at /properties/vars/patternProperties)')
  })

  it('keeps a pure map strict as {key, value} entries and maps them back', () => {
    const schema: JsonSchema = { type: 'object', properties: { labels: { type: 'object', additionalProperties: { type: 'integer' } } }, required: ['labels'] }
    const tool = toolOf('tag', schema)
    const result = toProviderTool(tool, 'anthropic', { strict: true })
    expect(result.tool.strict).toBe(true)
    expect(ruleFailures('anthropic', result.tool)).toEqual([])
    expect(fromProviderArgs(tool, 'anthropic', { labels: [{ key: 'a', value: 1 }, { key: 'b', value: 2 }] }, { strict: true }).args).toEqual({ labels: { a: 1, b: 2 } })
  })

  it('gives an undeclared required key of a map-like object the map value schema (Gemini)', () => {
    const schema: JsonSchema = { type: 'object', properties: { limits: { type: 'object', required: ['default'], additionalProperties: { type: 'integer' } } }, required: ['limits'] }
    const result = toProviderTool(toolOf('quota', schema), 'gemini')
    expect(result.tool.parameters?.properties?.limits).toMatchObject({ type: 'OBJECT', properties: { default: { type: 'INTEGER' } }, required: ['default'] })
    expect(result.lossy).toBe(true) // the other keys cannot be sent
  })

  it('sends a tool with more optional properties than a request allows non-strict when converted alone, as in a request of one', () => {
    const tool = toolOf('search_listings', listingFilters)
    const alone = toProviderTool(tool, 'anthropic', { strict: true })
    expect(alone.tool).not.toHaveProperty('strict')
    expect(alone.warnings[0]).toMatchObject({ path: '/inputSchema', code: 'STRICT_DISABLED' })
    expect(alone.tool.input_schema.required).toEqual(['query']) // non-strict: optional stays optional
    const [inRequest] = toProviderTools([tool], 'anthropic', { strict: true })
    expect(inRequest!.tool).toEqual(alone.tool)
    // Mapped back with the options given to toProviderTool: nothing is dropped or invented.
    expect(fromProviderArgs(tool, 'anthropic', { query: 'flat', filter_45: 'x' }, { strict: true }).args).toEqual({ query: 'flat', filter_45: 'x' })
  })

  it('sends recursive $defs non-strict under Anthropic strict and keeps them strict under OpenAI strict', () => {
    for (const [name, schema] of [['thread', commentThread], ['query', filterTree]] as const) {
      const tool = toolOf(name, schema)
      const anthropic = toProviderTool(tool, 'anthropic', { strict: true })
      expect(anthropic.tool, name).not.toHaveProperty('strict')
      expect(anthropic.warnings[0]?.message, name).toMatch(/^Sent with strict: false: Anthropic strict mode does not accept recursive schemas \(at \/\$defs\/\w+\//)
      expect(ruleFailures('anthropic', anthropic.tool)).toEqual([])
      const openai = toProviderTool(tool, 'openai-responses', { strict: true })
      expect(openai.tool.strict, name).toBe(true)
      expect(Object.keys(openai.tool.parameters.$defs as object), name).toHaveLength(1)
    }
    const tool = toolOf('thread', commentThread)
    const args = { thread: { author: 'a', text: 'hi', replies: [{ author: 'b', text: 'yo', replies: [] }] } }
    expect(fromProviderArgs(tool, 'anthropic', args, { strict: true }).args).toEqual(args)
  })
})
