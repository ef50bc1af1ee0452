import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, toolJsonSchema, ToolValidationError } from '@toolgate/ai'

describe('smoke', () => {
  it('validates and emits', async () => {
    const def = toolDefinition({
      name: 'get_weather',
      description: 'Weather',
      inputSchema: v.object({ city: v.string() }),
      outputSchema: v.object({ tempC: v.number() }),
      needsApproval: (input) => (input.city === 'Paris' ? { reason: 'Paris' } : false),
    })
    const tool = def.server(async (input) => ({ tempC: input.city.length }))
    expect(await tool.execute({ city: 'Oslo' })).toEqual({ tempC: 4 })
    await expect(tool.execute({ city: 4 } as never)).rejects.toBeInstanceOf(ToolValidationError)
    expect(toolJsonSchema(def)).toMatchObject({ type: 'object', properties: { city: { type: 'string' } } })
    expect(toolJsonSchema(tool)).toBe(toolJsonSchema(def))
  })
})
