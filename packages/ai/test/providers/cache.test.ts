import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, toolJsonSchema, type AnyTool, type JsonSchema } from '@toolgate/ai'
import { fromProviderArgs, toProviderSchema, toProviderTool } from '@toolgate/ai/providers'

const tool = toolDefinition({ name: 'cached', description: 'Cached', inputSchema: v.object({ q: v.string(), n: v.optional(v.number()) }) })

describe('caching', () => {
  it('returns the same frozen result for the same tool, target and options', () => {
    const first = toProviderTool(tool, 'openai-chat', { strict: true })
    expect(toProviderTool(tool, 'openai-chat', { strict: true })).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
    expect(Object.isFrozen(first.tool.function.parameters)).toBe(true)
    expect(toProviderTool(tool, 'openai-chat', { strict: false })).not.toBe(first)
    expect(toProviderTool(tool, 'openai-chat')).toBe(toProviderTool(tool, 'openai-chat', { strict: false }))
  })

  it('never converts twice in a chat turn: listing, calling and mapping back share one conversion', () => {
    // A tool-shaped object has no emission cache in the core, so its hook runs once per conversion.
    let emitted = 0
    const schema = { type: 'object', properties: { q: { type: 'string' } } }
    const turnTool = { kind: 'definition', name: 'turn', description: 'Turn', needsApproval: false, metadata: {}, toJsonSchema: () => (emitted++, schema) } as AnyTool
    const listed = toProviderTool(turnTool, 'anthropic', { strict: true })
    expect(toProviderTool(turnTool, 'anthropic', { strict: true })).toBe(listed)
    expect(fromProviderArgs(turnTool, 'anthropic', { q: 'x' }, { strict: true })).toEqual({ toolName: 'turn', args: { q: 'x' } })
    fromProviderArgs(turnTool, 'anthropic', '{"q":"y"}', { strict: true })
    expect(emitted).toBe(1)
    toProviderTool(turnTool, 'gemini')
    expect(emitted).toBe(2)
  })

  it('shares the conversion of a frozen schema between toProviderSchema and toProviderTool', () => {
    const schema = toolJsonSchema(tool) as JsonSchema
    expect(toProviderSchema(schema, 'anthropic')).toBe(toProviderSchema(schema, 'anthropic'))
    expect(toProviderSchema(schema, 'anthropic').schema).toBe(toProviderTool(tool, 'anthropic').tool.input_schema)
  })

  it('hands out Gemini envelopes as editable copies (@google/genai edits them in place), converted once', () => {
    const first = toProviderTool(tool, 'gemini').tool
    const second = toProviderTool(tool, 'gemini').tool
    expect(first).toEqual(second)
    expect(first).not.toBe(second)
    expect(Object.isFrozen(first)).toBe(false)
    expect(first.parameters).toEqual(toProviderSchema(toolJsonSchema(tool) as JsonSchema, 'gemini').schema)
  })

  it('does not cache a schema that can still change', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } }
    const first = toProviderSchema(schema, 'gemini')
    schema.properties.a.type = 'integer'
    expect(toProviderSchema(schema, 'gemini').schema.properties?.a?.type).toBe('INTEGER')
    expect(first.schema.properties?.a?.type).toBe('STRING')
  })
})
