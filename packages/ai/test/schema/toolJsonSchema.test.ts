import { describe, expect, it, vi } from 'vitest'
import * as v from 'valibot'
import { z } from 'zod'
import { SchemaConversionError, toolDefinition, toolJsonSchema, type JsonSchema } from '@toolgate/ai'

const city = v.object({ city: v.pipe(v.string(), v.description('City name')) })

describe('toolJsonSchema', () => {
  it('converts a plain Valibot schema with no wrapper, in draft-2020-12 by default', () => {
    const tool = toolDefinition({ name: 'weather', description: 'Weather', inputSchema: city })
    expect(toolJsonSchema(tool)).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' } },
      required: ['city'],
    })
  })

  it('emits draft-07 and openapi-3.0 on request', () => {
    const tool = toolDefinition({
      name: 'weather',
      description: 'Weather',
      inputSchema: v.object({ city: v.nullable(v.string()) }),
    })
    expect(toolJsonSchema(tool, { target: 'draft-07' })).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#' })
    const openapi = toolJsonSchema(tool, { target: 'openapi-3.0' }) as { properties: { city: JsonSchema } }
    expect(openapi.properties.city).toMatchObject({ type: 'string', nullable: true })
  })

  it("uses a schema's own Standard JSON Schema converter (Zod 4)", () => {
    const tool = toolDefinition({ name: 'z', description: 'Zod', inputSchema: z.object({ n: z.number().int() }) })
    expect(toolJsonSchema(tool)).toMatchObject({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] })
  })

  it('passes a plain JSON Schema through as given', () => {
    const schema = { type: 'object', properties: { q: { type: 'string', minLength: 1 } }, required: ['q'] }
    const tool = toolDefinition({ name: 'search', description: 'Search', inputSchema: schema })
    expect(toolJsonSchema(tool)).toEqual(schema)
    expect(toolJsonSchema(tool)).not.toBe(schema)
  })

  it('lets the tool hook override emission first, and fall back when it returns undefined', () => {
    const hook = vi.fn((_schema: unknown, { io, target }: { io: string; target: string }) =>
      target === 'openapi-3.0' ? { type: 'object', description: `custom ${io}` } : undefined,
    )
    const tool = toolDefinition({ name: 'hooked', description: 'Hooked', inputSchema: city, toJsonSchema: hook })
    expect(toolJsonSchema(tool, { target: 'openapi-3.0' })).toEqual({ type: 'object', description: 'custom input' })
    expect(toolJsonSchema(tool)).toMatchObject({ properties: { city: { type: 'string' } } })
    expect(hook).toHaveBeenCalledWith(city, { io: 'input', target: 'openapi-3.0' })
  })

  it('caches per tool, side and target, and shares the cache with built tools', () => {
    const hook = vi.fn(() => undefined)
    const definition = toolDefinition({
      name: 'cached',
      description: 'Cached',
      inputSchema: city,
      outputSchema: v.object({ ok: v.boolean() }),
      toJsonSchema: hook,
    })
    const server = definition.server(() => ({ ok: true }))
    const first = toolJsonSchema(definition)
    expect(toolJsonSchema(server)).toBe(first)
    expect(toolJsonSchema(server.formatted())).toBe(first)
    expect(toolJsonSchema(definition, { target: 'draft-07' })).not.toBe(first)
    expect(toolJsonSchema(definition, { io: 'output' })).toMatchObject({ properties: { ok: { type: 'boolean' } } })
    expect(hook).toHaveBeenCalledTimes(3)
    expect(Object.isFrozen(first)).toBe(true)
  })

  it('emits the same schema through ~standard.jsonSchema on the tool schemas', () => {
    const definition = toolDefinition({ name: 'std', description: 'Std', inputSchema: city })
    const viaStandard = definition.inputSchema?.['~standard'].jsonSchema.input({ target: 'draft-2020-12' })
    expect(viaStandard).toBe(toolJsonSchema(definition))
    expect(() => definition.inputSchema?.['~standard'].jsonSchema.input({ target: 'draft-04' })).toThrow(/Unsupported/)
  })

  it('gives a tool with no input an empty object schema, and no output schema', () => {
    const tool = toolDefinition({ name: 'ping', description: 'Ping' })
    expect(toolJsonSchema(tool)).toEqual({ type: 'object', properties: {} })
    expect(toolJsonSchema(tool, { io: 'output' })).toBeUndefined()
  })

  it('names the tool and the side when a schema library cannot emit JSON Schema', () => {
    const bare = {
      '~standard': { version: 1, vendor: 'bare', validate: (value: unknown) => ({ value }) },
    } as const
    const tool = toolDefinition({ name: 'bare_tool', description: 'Bare', outputSchema: bare })
    const error = (() => {
      try {
        toolJsonSchema(tool, { io: 'output' })
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(SchemaConversionError)
    expect(error).toMatchObject({ toolName: 'bare_tool', io: 'output' })
    expect((error as Error).message).toMatch(/output of tool "bare_tool".*no JSON Schema support/)
  })

  it('leaves custom Valibot checks out of JSON Schema while still enforcing them', async () => {
    const even = toolDefinition({
      name: 'even',
      description: 'Even',
      inputSchema: v.object({ n: v.pipe(v.number(), v.minValue(0), v.check((n) => n % 2 === 0, 'Must be even')) }),
    })
    expect(toolJsonSchema(even)).toMatchObject({ properties: { n: { type: 'number', minimum: 0 } } })
    await expect(even.server(({ n }) => n).execute({ n: 3 })).rejects.toThrow('- n: Must be even')
  })

  it('points a schema the converter cannot emit (v.custom) to the toJsonSchema hook, which fixes it', () => {
    const isUuid = (value: unknown) => typeof value === 'string' && /^[0-9a-f-]{36}$/.test(value)
    const inputSchema = v.object({ id: v.custom<string>(isUuid, 'Must be a UUID') })
    const tool = toolDefinition({ name: 'find_order', description: 'Finds an order', inputSchema })
    expect(() => toolJsonSchema(tool)).toThrow(SchemaConversionError)
    const message = (() => {
      try {
        toolJsonSchema(tool)
      } catch (error) {
        return (error as Error).message
      }
    })()
    expect(message).toMatch(/^Cannot emit JSON Schema for the input of tool "find_order": .*custom/)
    expect(message).toMatch(/\nGive the tool a toJsonSchema hook that returns it, e\.g\. toJsonSchema: \(schema, \{ io \}\) => \(io === 'input' \? \{ type: 'object', properties: \{ \.\.\. \} \} : undefined\)$/)

    const fixed = toolDefinition({
      name: 'find_order',
      description: 'Finds an order',
      inputSchema,
      toJsonSchema: (_schema, { io }) => (io === 'input' ? { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] } : undefined),
    })
    expect(toolJsonSchema(fixed)).toEqual({ type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] })
  })

  it('wraps a converter failure with the tool and side', () => {
    const tool = toolDefinition({ name: 'dates', description: 'Dates', inputSchema: v.object({ at: v.date() }) })
    expect(() => toolJsonSchema(tool)).toThrow(SchemaConversionError)
    expect(() => toolJsonSchema(tool)).toThrow(/input of tool "dates"/)
  })

  it('handles schemas nested at least 7 levels deep', async () => {
    let schema: v.GenericSchema = v.object({ leaf: v.number() })
    for (let level = 0; level < 8; level++) schema = v.object({ child: schema })
    const tool = toolDefinition({ name: 'deep', description: 'Deep', inputSchema: schema }).server(() => 'ok')
    let emitted = toolJsonSchema(tool) as JsonSchema
    for (let level = 0; level < 8; level++) emitted = (emitted.properties as Record<string, JsonSchema>).child as JsonSchema
    expect(emitted).toMatchObject({ properties: { leaf: { type: 'number' } } })

    let value: unknown = { leaf: 1 }
    for (let level = 0; level < 8; level++) value = { child: value }
    expect(await tool.execute(value as never)).toBe('ok')
    let bad: unknown = { leaf: 'x' }
    for (let level = 0; level < 8; level++) bad = { child: bad }
    await expect(tool.execute(bad as never)).rejects.toThrow(`- ${'child.'.repeat(8)}leaf: `)
  })
})

describe('a plain JSON Schema is checked against its meta-schema when the tool is defined', () => {
  const define = (inputSchema: object) => () => toolDefinition({ name: 'checked', description: 'A tool', inputSchema: inputSchema as never })

  it('refuses a misspelt type, with the path and what would be right', () => {
    expect(define({ type: 'numbr' })).toThrowError(
      expect.objectContaining({ code: 'TOOL_DEFINITION', message: expect.stringMatching(/^The inputSchema of tool "checked" is not a valid JSON Schema at \/type: .*"number"/) }),
    )
  })

  it('finds the problem however deep it sits', () => {
    expect(define({ type: 'object', properties: { name: { type: 'string', minLength: -1 } } })).toThrowError(/at \/properties\/name\/minLength: -1 is less than 0/)
    expect(define({ type: 'object', required: 'name' })).toThrowError(/at \/required:/)
    expect(define({ type: 'object', properties: { tags: { type: 'array', items: { type: ['string', 'nope'] } } } })).toThrowError(/at \/properties\/tags\/items\/type\/1:/)
  })

  it('accepts what the validator reads: 2020-12, draft-07 tuples, OpenAPI nullable and draft-04 bounds', () => {
    expect(define({ type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }], items: false } }, $defs: { x: { type: 'integer' } } })).not.toThrow()
    expect(define({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { pair: { items: [{ type: 'string' }], additionalItems: false } } })).not.toThrow()
    expect(define({ type: 'object', properties: { n: { type: 'number', nullable: true, minimum: 0, exclusiveMinimum: true } } })).not.toThrow()
  })
})
