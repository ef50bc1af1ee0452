import { describe, expect, it, vi } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { toProviderTool } from '@toolgate/ai/providers'

vi.spyOn(console, 'warn').mockImplementation(() => {}) // toolDefinition warns about the dotted name, which MCP takes

describe('MCP envelope', () => {
  const weather = toolDefinition({
    name: 'weather.get',
    title: 'Weather',
    description: 'Current weather',
    inputSchema: v.object({ city: v.string() }),
    outputSchema: v.object({ tempC: v.number() }),
    metadata: { annotations: { readOnlyHint: true, openWorldHint: true } },
  })

  it('carries title, output schema and annotations', () => {
    const { tool, warnings } = toProviderTool(weather, 'mcp')
    expect(tool).toEqual({
      name: 'weather.get',
      title: 'Weather',
      description: 'Current weather',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      outputSchema: { type: 'object', properties: { tempC: { type: 'number' } }, required: ['tempC'] },
      annotations: { readOnlyHint: true, openWorldHint: true },
    })
    expect(warnings).toEqual([])
  })

  it('takes annotations from options, and leaves the output schema out on request', () => {
    const { tool } = toProviderTool(weather, 'mcp', { outputSchema: false, annotations: { destructiveHint: false } })
    expect(tool).not.toHaveProperty('outputSchema')
    expect(tool.annotations).toEqual({ destructiveHint: false })
  })

  it('leaves out an output schema whose root is not an object (2025-11-25), with a warning', () => {
    const list = toolDefinition({ name: 'list', description: 'List', outputSchema: v.array(v.string()) })
    const { tool, warnings } = toProviderTool(list, 'mcp')
    expect(tool).not.toHaveProperty('outputSchema')
    expect(tool.inputSchema).toEqual({ type: 'object', properties: {} })
    expect(warnings).toEqual([expect.objectContaining({ code: 'OUTPUT_SCHEMA_OMITTED', path: '/outputSchema/type' })])
  })

  it('publishes the output schema only to MCP', () => {
    expect(JSON.stringify(toProviderTool(weather, 'anthropic').tool)).not.toContain('tempC')
  })
})
