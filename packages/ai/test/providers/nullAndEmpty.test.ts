import { describe, expect, it } from 'vitest'
import { toolDefinition, type AnyTool, type JsonSchema } from '@toolgate/ai'
import { fromProviderArgs, toProviderTool } from '@toolgate/ai/providers'
import { VARIANTS } from './corpus.ts'
import { expectSoundConversion } from './roundTrip.ts'

// Two shapes whose values used to come back in another shape: an object parameter that takes no
// keys or any keys (`params`), and enums that list null (or whose type lists null but whose
// values do not).

const toolOf = (name: string, inputSchema: JsonSchema): AnyTool => toolDefinition({ name, description: `The ${name} tool.`, inputSchema })

const step = (params: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: { step: { type: 'object', properties: { action: { type: 'string' }, params }, required: ['action', 'params'] } },
  required: ['step'],
})

const PARAMS: Record<string, JsonSchema> = {
  'params that take no keys': step({ type: 'object', properties: {}, additionalProperties: false, description: 'No options yet' }),
  'free-form params': step({ type: 'object', description: 'Options for the action' }),
  'free-form params, explicitly open': step({ type: 'object', properties: {}, additionalProperties: true }),
}

const units = (unit: JsonSchema, required = true): JsonSchema => ({
  type: 'object',
  properties: { city: { type: 'string' }, unit },
  required: required ? ['city', 'unit'] : ['city'],
  additionalProperties: false,
})

const ENUMS: Record<string, JsonSchema> = {
  'type and enum both list null': units({ type: ['string', 'null'], enum: ['metric', 'imperial', null], description: 'Units, or null for the local default.' }),
  'OpenAPI nullable with null in the enum': units({ type: 'string', nullable: true, enum: ['metric', 'imperial', null] }),
  'enum lists null, no type': units({ enum: ['metric', 'imperial', null] }, false),
  'type lists null, enum does not': units({ type: ['string', 'null'], enum: ['metric', 'imperial'] }),
  'optional, type lists null, enum does not': units({ type: ['string', 'null'], enum: ['metric', 'imperial'] }, false),
  'only null allowed by the enum': units({ type: ['string', 'null'], enum: [null] }),
  'numbers and null': units({ type: ['integer', 'null'], enum: [10, 100, null] }, false),
}

describe('object parameters without declared properties', () => {
  describe.each(Object.entries(PARAMS))('%s', (_, schema) => {
    it.each(VARIANTS)('round-trips for $label', (variant) => {
      expectSoundConversion(toolOf('run_step', schema), schema, variant, 200)
    })
  })

  it('comes back from Gemini as an object, never a string', () => {
    const empty = toolOf('run_step', PARAMS['params that take no keys']!)
    const declared = toProviderTool(empty, 'gemini').tool.parameters?.properties?.step?.properties?.params
    expect(declared).toEqual({ type: 'STRING', format: 'enum', enum: ['{}'], description: 'No options yet. Always the empty object: send "{}".' })
    expect(fromProviderArgs(empty, 'gemini', { step: { action: 'noop', params: '{}' } }).args).toEqual({ step: { action: 'noop', params: {} } })
    const free = toolOf('run_step', PARAMS['free-form params']!)
    const args = fromProviderArgs(free, 'gemini', { step: { action: 'resize', params: [{ key: 'width', value: '640' }, { key: 'crop', value: '{"x":1}' }] } }).args
    expect(args).toEqual({ step: { action: 'resize', params: { width: 640, crop: { x: 1 } } } })
  })
})

describe('enums with null', () => {
  describe.each(Object.entries(ENUMS))('%s', (_, schema) => {
    it.each(VARIANTS)('round-trips for $label', (variant) => {
      expectSoundConversion(toolOf('weather', schema), schema, variant, 200)
    })
  })

  it('keeps null where the original takes it, in each dialect’s spelling, and maps it back as null', () => {
    const tool = toolOf('weather', ENUMS['type and enum both list null']!)
    const unitOf = (target: 'openai-chat' | 'anthropic' | 'gemini', strict: boolean) => {
      const envelope = toProviderTool(tool, target, (target === 'gemini' ? {} : { strict }) as never).tool as any
      return (envelope.function?.parameters ?? envelope.input_schema ?? envelope.parameters).properties.unit
    }
    expect(unitOf('openai-chat', true)).toEqual({ type: ['string', 'null'], enum: ['metric', 'imperial', null], description: 'Units, or null for the local default.' })
    expect(unitOf('anthropic', true)).toEqual({ type: ['string', 'null'], enum: ['metric', 'imperial', null], description: 'Units, or null for the local default.' })
    expect(unitOf('gemini', false)).toEqual({ type: 'STRING', format: 'enum', enum: ['metric', 'imperial'], nullable: true, description: 'Units, or null for the local default.' })
    for (const [target, options] of [['openai-chat', { strict: true }], ['anthropic', { strict: true }], ['gemini', {}]] as const) {
      expect(fromProviderArgs(tool, target, { city: 'Oslo', unit: null }, options as never).args, target).toEqual({ city: 'Oslo', unit: null })
      expect(fromProviderArgs(tool, target, { city: 'Oslo', unit: 'metric' }, options as never).args, target).toEqual({ city: 'Oslo', unit: 'metric' })
    }
  })

  it('offers no null where the type lists it but the enum does not (JSON Schema needs both)', () => {
    const tool = toolOf('weather', ENUMS['type lists null, enum does not']!)
    expect((toProviderTool(tool, 'openai-chat', { strict: true }).tool.function.parameters.properties as any).unit).toEqual({ type: 'string', enum: ['metric', 'imperial'] })
    expect((toProviderTool(tool, 'anthropic', { strict: true }).tool.input_schema.properties as any).unit).toEqual({ type: 'string', enum: ['metric', 'imperial'] })
    expect(toProviderTool(tool, 'gemini').tool.parameters?.properties?.unit).toEqual({ type: 'STRING', format: 'enum', enum: ['metric', 'imperial'] })
    // Optional: strict OpenAI's null then means "absent", not a value the tool refuses.
    const optional = toolOf('weather', ENUMS['optional, type lists null, enum does not']!)
    expect(fromProviderArgs(optional, 'openai-chat', { city: 'Oslo', unit: null }, { strict: true }).args).toEqual({ city: 'Oslo' })
  })
})
