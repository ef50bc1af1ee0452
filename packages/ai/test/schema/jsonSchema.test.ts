import { describe, expect, expectTypeOf, it } from 'vitest'
import { jsonSchema, toolDefinition, toolJsonSchema, type InferToolInput } from '@toolgate/ai'

const citySchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }

describe('jsonSchema()', () => {
  it('types a plain JSON Schema, validates it and emits it as given', async () => {
    const weather = toolDefinition({ name: 'weather', description: 'Weather', inputSchema: jsonSchema<{ city: string }>(citySchema) })
    expectTypeOf<InferToolInput<typeof weather>>().toEqualTypeOf<{ city: string }>()
    expect(toolJsonSchema(weather)).toEqual(citySchema)
    const tool = weather.server(({ city }) => city.toUpperCase())
    expect(await tool.execute({ city: 'oslo' })).toBe('OSLO')
    await expect(tool.execute({ city: 1, x: 2 } as never)).rejects.toThrow(
      '- city: Expected string, received integer\n- x: Unknown property "x"',
    )
  })

  it('is a Standard Schema and a Standard JSON Schema on its own', async () => {
    const schema = jsonSchema(citySchema)
    expect(await schema['~standard'].validate({ city: 'a' })).toEqual({ value: { city: 'a' } })
    expect(schema['~standard'].jsonSchema.input({ target: 'draft-07' })).toBe(citySchema)
  })
})
