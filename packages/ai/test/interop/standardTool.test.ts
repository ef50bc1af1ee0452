import { describe, expect, it, vi } from 'vitest'
import * as v from 'valibot'
import * as z from 'zod'
import { toolDefinition, ToolValidationError, type ToolContext } from '@toolgate/ai'
import type { StandardTool } from '@toolgate/ai/interop'
import { libraries, weatherSchemas } from './libraries.ts'

/** Runs a check against a tool through the StandardTool view only, as a consumer would. */
function asStandard<I, O, F>(tool: StandardTool<I, O, F>): StandardTool<I, O, F> {
  return tool
}

describe.each(libraries)('every built tool is a StandardTool (%s schemas)', (library) => {
  const { input, output } = weatherSchemas[library]
  const definition = toolDefinition({ name: 'get_weather', title: 'Weather', description: 'Current weather', inputSchema: input, outputSchema: output })

  function build(side: 'server' | 'client', handler = (input: { city: string }) => ({ tempC: input.city.length })) {
    const spy = vi.fn(handler)
    const tool = side === 'server' ? definition.server(spy) : definition.client(spy)
    return { tool: asStandard(tool), handler: spy }
  }

  it.each(['server', 'client'] as const)('.%s(): has the StandardTool fields', (side) => {
    const { tool } = build(side)
    expect(tool).toMatchObject({ name: 'get_weather', title: 'Weather', description: 'Current weather' })
    for (const schema of [tool.inputSchema!, tool.outputSchema!]) {
      expect(schema['~standard']).toMatchObject({ version: 1, validate: expect.any(Function) })
      expect(schema['~standard'].jsonSchema).toEqual({ input: expect.any(Function), output: expect.any(Function) })
    }
  })

  it.each(['server', 'client'] as const)('.%s(): execute validates input and output, and throws on a violation', async (side) => {
    const { tool, handler } = build(side)
    await expect(tool.execute({ city: 'Oslo' })).resolves.toEqual({ tempC: 4 })

    const badInput = tool.execute({ city: 4 } as never)
    await expect(badInput).rejects.toBeInstanceOf(ToolValidationError)
    await expect(badInput).rejects.toMatchObject({ target: 'input', toolName: 'get_weather', message: expect.stringContaining('- city:') })
    expect(handler).toHaveBeenCalledOnce()

    const { tool: liar } = build(side, () => ({ tempC: 'warm' }) as never)
    await expect(liar.execute({ city: 'Oslo' })).rejects.toMatchObject({ target: 'output', message: expect.stringContaining('- tempC:') })
  })

  it('formatted() turns errors into { error } instead of throwing', async () => {
    const { tool } = build('server', ({ city }) => {
      if (city === 'Atlantis') throw new Error('No such city')
      return { tempC: city.length }
    })
    const formatted = tool.formatted()
    await expect(formatted.execute({ city: 'Oslo' })).resolves.toEqual({ tempC: 4 })
    await expect(formatted.execute({ city: 'Atlantis' })).resolves.toEqual({ error: 'No such city' })
    await expect(formatted.execute({} as never)).resolves.toEqual({ error: expect.stringContaining('Invalid input for tool "get_weather"') })
    await expect(tool.execute({} as never)).rejects.toThrow(ToolValidationError)
  })

  it('formatted(format) receives the validated output or the Error', async () => {
    const format = vi.fn((result: { tempC: number } | Error) => (result instanceof Error ? `failed: ${result.name}` : `${result.tempC}°C`))
    const formatted = build('client').tool.formatted(format)
    await expect(formatted.execute({ city: 'Oslo' })).resolves.toBe('4°C')
    await expect(formatted.execute({ city: null } as never)).resolves.toBe('failed: ToolValidationError')
    expect(format.mock.calls[1]![0]).toBeInstanceOf(ToolValidationError)
  })

  it('re-formatting replaces the earlier format, never stacks on it', async () => {
    const first = vi.fn(() => 'first')
    const second = vi.fn((result: unknown) => ({ seen: result }))
    const tool = build('server').tool.formatted(first).formatted(second)
    await expect(tool.execute({ city: 'Oslo' })).resolves.toEqual({ seen: { tempC: 4 } })
    expect(first).not.toHaveBeenCalled()
    await expect(tool.formatted().execute({ city: 1 } as never)).resolves.toMatchObject({ error: expect.any(String) })
  })

  it('hands meta to the handler untouched', async () => {
    const seen: unknown[] = []
    const tool = definition.server((input, meta) => {
      seen.push(meta)
      return { tempC: input.city.length }
    })
    const meta = { toolCallId: 'call_1', signal: new AbortController().signal, context: { user: 'ada' }, extra: [1] }
    await tool.execute({ city: 'Oslo' }, meta)
    await tool.formatted().execute({ city: 'Oslo' }, meta)
    expect(seen).toEqual([meta, meta])
    expect(seen[0]).toBe(meta)
    expect(seen[1]).toBe(meta)
  })
})

describe('StandardTool edge cases', () => {
  it('a tool without input schema can be called with no argument; the handler gets a fresh context', async () => {
    const handler = vi.fn((_input: unknown, _ctx: ToolContext) => 'pong')
    const ping: StandardTool<unknown, string> = toolDefinition({ name: 'ping', description: 'Pings' }).server(handler)
    await expect(ping.execute()).resolves.toBe('pong')
    const [input, ctx] = handler.mock.calls[0]!
    expect(input).toBeUndefined()
    expect(ctx).toEqual({ toolCallId: '', signal: expect.any(AbortSignal), context: undefined })
    expect(ping.inputSchema).toBeUndefined()
  })

  it('returns the output schema’s output, transforms applied', async () => {
    const tool = toolDefinition({
      name: 'when',
      description: 'Dates',
      inputSchema: z.object({ at: z.string().transform((s) => new Date(s)) }),
      outputSchema: v.object({ year: v.pipe(v.number(), v.transform(String)) }),
    }).server(({ at }) => ({ year: at.getUTCFullYear() }))
    // `as never`: the core types `execute`'s input as the schema's output (a Date), see the report.
    await expect(tool.execute({ at: '2024-05-01T00:00:00Z' } as never)).resolves.toEqual({ year: '2024' })
  })

  describe.each([
    ['Valibot pipeAsync + checkAsync', () => v.objectAsync({ user: v.pipeAsync(v.string(), v.checkAsync(isFree, 'Username is taken')) })],
    ['Zod refine(async)', () => z.object({ user: z.string().refine(isFree, 'Username is taken') })],
  ])('async validators: %s', (_name, makeSchema) => {
    const tool = toolDefinition({ name: 'register', description: 'Registers', inputSchema: makeSchema(), outputSchema: makeSchema() })

    it('validates input and output asynchronously', async () => {
      const echo = tool.server(({ user }) => ({ user }))
      await expect(echo.execute({ user: 'ada' })).resolves.toEqual({ user: 'ada' })
      await expect(echo.execute({ user: 'taken' })).rejects.toMatchObject({ target: 'input', message: expect.stringContaining('- user: Username is taken') })
      const liar = tool.server(() => ({ user: 'taken' }))
      await expect(liar.execute({ user: 'ada' })).rejects.toMatchObject({ target: 'output' })
      await expect(liar.formatted().execute({ user: 'ada' })).resolves.toEqual({ error: expect.stringContaining('Username is taken') })
    })
  })
})

async function isFree(user: string): Promise<boolean> {
  await Promise.resolve()
  return user !== 'taken'
}
