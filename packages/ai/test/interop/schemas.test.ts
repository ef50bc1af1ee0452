import { describe, expect, it } from 'vitest'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { SchemaConversionError, toolDefinition, toolJsonSchema, ToolValidationError, type JsonSchema } from '@toolgate/ai'
import type { StandardTool } from '@toolgate/ai/interop'
import { libraries, strictSchemas, weatherSchemas } from './libraries.ts'

const DIALECTS = {
  'draft-2020-12': 'https://json-schema.org/draft/2020-12/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  'openapi-3.0': undefined, // OpenAPI 3.0 schemas carry no `$schema`
} as const
const targets = Object.keys(DIALECTS) as (keyof typeof DIALECTS)[]

function weatherTool(library: (typeof libraries)[number], extra: { toJsonSchema?: () => JsonSchema } = {}): StandardTool {
  const { input, output } = weatherSchemas[library]
  return toolDefinition({ name: 'get_weather', description: 'Weather', inputSchema: input, outputSchema: output, ...extra }).server(
    ({ city }) => ({ tempC: city.length }),
  )
}

describe.each(libraries)("JSON Schema from a tool's schemas (%s)", (library) => {
  const tool = weatherTool(library)
  const supported = library === 'arktype' ? targets.filter((t) => t !== 'openapi-3.0') : targets

  it.each(supported)('emits %s for input and output', (target) => {
    const input = tool.inputSchema!['~standard'].jsonSchema.input({ target })
    const output = tool.outputSchema!['~standard'].jsonSchema.output({ target })
    expect(input).toMatchObject({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] })
    expect(output).toMatchObject({ type: 'object', properties: { tempC: { type: 'number' } }, required: ['tempC'] })
    expect(input.$schema).toBe(DIALECTS[target])
    expect(output.$schema).toBe(DIALECTS[target])
  })

  if (library === 'arktype') {
    it('openapi-3.0: ArkType has no such target, so emission fails naming the tool and side', () => {
      const emit = () => tool.inputSchema!['~standard'].jsonSchema.input({ target: 'openapi-3.0' })
      expect(emit).toThrow(SchemaConversionError)
      expect(emit).toThrow(/input of tool "get_weather".*openapi-3\.0/)
      // A toJsonSchema hook fills the gap.
      const hooked = weatherTool(library, { toJsonSchema: () => ({ type: 'object', properties: { city: { type: 'string' } } }) })
      expect(hooked.inputSchema!['~standard'].jsonSchema.input({ target: 'openapi-3.0' })).toMatchObject({ type: 'object' })
    })
  }
})

describe.each(libraries)('bad input through execute (%s)', (library) => {
  const tool = weatherTool(library)

  it.each([
    ['a missing field', {}],
    ['a wrong type', { city: 42 }],
    ['a null field', { city: null }],
  ])('rejects %s with the path in the message', async (_case, input) => {
    const run = tool.execute(input)
    await expect(run).rejects.toBeInstanceOf(ToolValidationError)
    await expect(run).rejects.toMatchObject({ code: 'TOOL_INPUT_INVALID', message: expect.stringContaining('- city: ') })
  })

  it.each([null, 'Oslo', undefined])('rejects a non-object input (%s)', async (input) => {
    await expect(tool.execute(input)).rejects.toMatchObject({ target: 'input', issues: expect.arrayContaining([expect.any(Object)]) })
  })

  it('rejects an unknown key with a closed object schema', async () => {
    const closed = toolDefinition({ name: 'closed', description: 'Closed', inputSchema: strictSchemas[library] }).server(({ city }) => city)
    await expect(closed.execute({ city: 'Oslo' })).resolves.toBe('Oslo')
    await expect(closed.execute({ city: 'Oslo', country: 'NO' } as never)).rejects.toMatchObject({
      target: 'input',
      message: expect.stringMatching(/country/),
    })
    expect(toolJsonSchema(closed)).toMatchObject({ additionalProperties: false })
  })
})

describe('a Standard Schema library without JSON Schema support', () => {
  /** The least a Standard Schema can be: `version`, `vendor` and `validate`. */
  const evenNumber: StandardSchemaV1<{ n: number }> = {
    '~standard': {
      version: 1,
      vendor: 'hand-made',
      validate: (value) => {
        const n = (value as { n?: unknown } | null)?.n
        return typeof n === 'number' && n % 2 === 0 ? { value: { n } } : { issues: [{ message: 'Expected an even number', path: ['n'] }] }
      },
    },
  }
  const built = toolDefinition({ name: 'halve', description: 'Halves', inputSchema: evenNumber, outputSchema: evenNumber }).server(
    ({ n }) => ({ n: n / 2 }),
  )
  const tool: StandardTool = built

  it('still validates', async () => {
    await expect(tool.execute({ n: 8 })).resolves.toEqual({ n: 4 })
    await expect(tool.execute({ n: 3 })).rejects.toMatchObject({ target: 'input', message: expect.stringContaining('- n: Expected an even number') })
    await expect(tool.execute({ n: 6 })).rejects.toMatchObject({ target: 'output' })
  })

  it.each(targets)('fails to emit %s with a SchemaConversionError naming the tool and the side', (target) => {
    const cases = [
      ['input', () => tool.inputSchema!['~standard'].jsonSchema.input({ target }), () => toolJsonSchema(built, { target })],
      ['output', () => tool.outputSchema!['~standard'].jsonSchema.output({ target }), () => toolJsonSchema(built, { io: 'output', target })],
    ] as const
    for (const [io, ...emitters] of cases) {
      for (const emit of emitters) {
        expect(emit).toThrow(SchemaConversionError)
        expect(emit).toThrow(`Cannot emit JSON Schema for the ${io} of tool "halve"`)
        expect(catching(emit)).toMatchObject({ toolName: 'halve', io, code: 'SCHEMA_CONVERSION' })
      }
    }
  })
})

function catching(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}
