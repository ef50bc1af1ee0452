import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest'
import * as v from 'valibot'
import { evaluateApproval } from '../../src/tools/approval.ts'
import {
  toolDefinition,
  toolJsonSchema,
  ToolDefinitionError,
  ToolValidationError,
  type InferToolInput,
  type InferToolOutput,
  type InferToolRawInput,
} from '@toolgate/ai'

const weatherInput = v.object({ city: v.string() })
const weatherOutput = v.object({ tempC: v.number() })

afterEach(() => vi.restoreAllMocks())

describe('toolDefinition', () => {
  it('keeps every field of the definition and binds each side', async () => {
    const definition = toolDefinition({
      name: 'get_weather',
      description: 'Current weather for a city',
      title: 'Weather',
      inputSchema: weatherInput,
      outputSchema: weatherOutput,
      metadata: { icon: 'cloud' },
    })
    expect(definition).toMatchObject({
      kind: 'definition',
      name: 'get_weather',
      title: 'Weather',
      description: 'Current weather for a city',
      needsApproval: false,
      metadata: { icon: 'cloud' },
    })
    const server = definition.server(async ({ city }) => ({ tempC: city.length }))
    const client = definition.client(({ city }) => ({ tempC: -city.length }))
    expect(server.kind).toBe('server')
    expect(client.kind).toBe('client')
    expect(server.metadata).toEqual({ icon: 'cloud' })
    expect(await server.execute({ city: 'Oslo' })).toEqual({ tempC: 4 })
    expect(await client.execute({ city: 'Rome' })).toEqual({ tempC: -4 })
  })

  it('refuses an empty name or description with a typed error', () => {
    expect(() => toolDefinition({ name: '', description: 'x' })).toThrow(ToolDefinitionError)
    expect(() => toolDefinition({ name: '   ', description: 'x' })).toThrow(/non-empty `name`/)
    expect(() => toolDefinition({ name: 'a', description: '' })).toThrow(/non-empty `description`/)
    expect(() => toolDefinition({ name: 'a' } as never)).toThrow(ToolDefinitionError)
    expect(() => toolDefinition(undefined as never)).toThrow(ToolDefinitionError)
  })

  it('refuses a needsApproval, metadata or hook of the wrong type', () => {
    expect(() => toolDefinition({ name: 'a', description: 'b', needsApproval: 'yes' as never })).toThrow(/needsApproval/)
    expect(() => toolDefinition({ name: 'a', description: 'b', metadata: [] as never })).toThrow(/metadata/)
    expect(() => toolDefinition({ name: 'a', description: 'b', toJsonSchema: {} as never })).toThrow(/toJsonSchema/)
  })

  it('refuses a schema that is neither a Standard Schema nor JSON Schema', () => {
    class NotASchema {}
    expect(() => toolDefinition({ name: 'a', description: 'b', inputSchema: new NotASchema() as never })).toThrow(
      /inputSchema of tool "a" is neither/,
    )
  })

  it('warns once, without throwing, for a name some provider would refuse, when the tool is first described to a model', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const tools = [
      toolDefinition({ name: 'admin.tools.list', description: 'List' }),
      toolDefinition({ name: 'admin.tools.list', description: 'List again' }),
      toolDefinition({ name: 'fine_name-2', description: 'Fine' }),
    ]
    // Defining is quiet: a browser defines the same tools, and its users' consoles are no place for it.
    expect(warn).not.toHaveBeenCalled()
    for (const tool of tools) toolJsonSchema(tool)
    expect(warn).toHaveBeenCalledTimes(1)
    expect(warn.mock.calls[0]?.[0]).toContain('admin.tools.list')
  })

  it('warns for a name longer than 64 characters', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    toolJsonSchema(toolDefinition({ name: `t${'x'.repeat(64)}`, description: 'Long' }))
    expect(warn).toHaveBeenCalledTimes(1)
  })

  it('freezes definitions and built tools', () => {
    const definition = toolDefinition({ name: 'frozen', description: 'Frozen' })
    expect(Object.isFrozen(definition)).toBe(true)
    expect(Object.isFrozen(definition.server(() => 1))).toBe(true)
  })
})

describe('validation around execute', () => {
  const definition = toolDefinition({
    name: 'get_weather',
    description: 'Weather',
    inputSchema: weatherInput,
    outputSchema: weatherOutput,
  })

  it('validates input before execute and lists each issue as path: message', async () => {
    const execute = vi.fn(() => ({ tempC: 1 }))
    const tool = definition.server(execute)
    const error = await tool.execute({ city: 42 } as never).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ToolValidationError)
    expect(error).toMatchObject({ target: 'input', toolName: 'get_weather', code: 'TOOL_INPUT_INVALID' })
    expect((error as ToolValidationError).issues[0]?.message).toMatch(/string/)
    expect((error as Error).message).toMatch(/^Invalid input for tool "get_weather":\n- city: /)
    expect(execute).not.toHaveBeenCalled()
  })

  it('reports a missing field and a wrong root type', async () => {
    const tool = definition.server(() => ({ tempC: 1 }))
    await expect(tool.execute({} as never)).rejects.toThrow(/- city: /)
    await expect(tool.execute('Paris' as never)).rejects.toThrow(/- \(root\): /)
  })

  it('validates output after execute', async () => {
    const tool = definition.server(() => ({ tempC: 'warm' }) as never)
    const error = await tool.execute({ city: 'Oslo' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ target: 'output', code: 'TOOL_OUTPUT_INVALID' })
    expect((error as Error).message).toContain('- tempC: ')
  })

  it('passes the validated (transformed) input to execute', async () => {
    const trimmed = toolDefinition({
      name: 'shout',
      description: 'Shout',
      inputSchema: v.object({ text: v.pipe(v.string(), v.trim(), v.toUpperCase()) }),
    })
    const tool = trimmed.server(({ text }) => text)
    expect(await tool.execute({ text: '  hi ' })).toBe('HI')
  })

  it('runs async validators', async () => {
    const taken = new Set(['admin'])
    const signup = toolDefinition({
      name: 'signup',
      description: 'Sign up',
      inputSchema: v.objectAsync({
        user: v.pipeAsync(
          v.string(),
          v.checkAsync(async (name) => !taken.has(name), 'This name is taken'),
        ),
      }),
    })
    const tool = signup.server(({ user }) => `welcome ${user}`)
    expect(await tool.execute({ user: 'ada' })).toBe('welcome ada')
    await expect(tool.execute({ user: 'admin' })).rejects.toThrow('- user: This name is taken')
  })

  it('reports nested paths with indexes', async () => {
    const order = toolDefinition({
      name: 'order',
      description: 'Order',
      inputSchema: v.object({ items: v.array(v.object({ sku: v.string(), qty: v.number() })) }),
    })
    const tool = order.server(() => 'ok')
    await expect(tool.execute({ items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 'two' }] } as never)).rejects.toThrow(
      '- items[1].qty: ',
    )
  })

  it('gives execute a fresh context when called without meta, and meta untouched otherwise', async () => {
    const seen: unknown[] = []
    const tool = toolDefinition({ name: 'ctx', description: 'Context' }).server((_input, ctx) => {
      seen.push(ctx)
      return null
    })
    await tool.execute()
    const meta = { toolCallId: 'call_1', signal: AbortSignal.abort(), context: { user: 'u1' }, extra: true }
    await tool.execute(undefined, meta)
    expect(seen[0]).toMatchObject({ toolCallId: '', context: undefined })
    expect((seen[0] as { signal: AbortSignal }).signal.aborted).toBe(false)
    expect(seen[1]).toBe(meta)
  })
})

describe('needsApproval', () => {
  const ctx = { toolCallId: 'call_1', context: undefined }

  it('is false by default and keeps literal booleans', async () => {
    const never = toolDefinition({ name: 'a', description: 'a' })
    const always = toolDefinition({ name: 'b', description: 'b', needsApproval: true })
    expectTypeOf(never.needsApproval).toEqualTypeOf<false>()
    expectTypeOf(always.needsApproval).toEqualTypeOf<true>()
    expect(await evaluateApproval(never, {}, ctx)).toEqual({ required: false })
    expect(await evaluateApproval(always, {}, ctx)).toEqual({ required: true })
  })

  it('evaluates a policy on the validated input, with its reason', async () => {
    const email = toolDefinition({
      name: 'send_email',
      description: 'Send',
      inputSchema: v.object({ to: v.pipe(v.string(), v.email()) }),
      needsApproval: async (input, { context }) => {
        expectTypeOf(input).toEqualTypeOf<{ to: string }>()
        return input.to.endsWith('@acme.test') ? false : { reason: `External recipient (${String(context)})` }
      },
    })
    expect(await evaluateApproval(email, { to: 'a@acme.test' }, ctx)).toEqual({ required: false })
    expect(await evaluateApproval(email, { to: 'a@else.test' }, { toolCallId: 'c', context: 'ctx' })).toEqual({
      required: true,
      reason: 'External recipient (ctx)',
    })
  })

  it('fails closed when the policy throws', async () => {
    const risky = toolDefinition({
      name: 'risky',
      description: 'Risky',
      needsApproval: () => {
        throw new Error('database down')
      },
    })
    const requirement = await evaluateApproval(risky, {}, ctx)
    expect(requirement.required).toBe(true)
    // The reason is shown to the user: the error stays out of it, and comes back for the server log.
    expect(requirement.reason).toBe('The approval policy could not decide; approve only if you are sure.')
    expect(requirement.error).toEqual(new Error('database down'))
  })
})

describe('types flow from the definition', () => {
  it('lets callers send the raw input, while execute receives the validated one', async () => {
    const forecast = toolDefinition({
      name: 'forecast',
      description: 'Forecast',
      inputSchema: v.object({ city: v.string(), days: v.optional(v.number(), 3) }),
    })
    const tool = forecast.server(({ city, days }) => {
      expectTypeOf(days).toEqualTypeOf<number>()
      return `${city}: ${days} days`
    })
    expectTypeOf<InferToolRawInput<typeof tool>>().toEqualTypeOf<{ city: string; days?: number | undefined }>()
    expectTypeOf<InferToolInput<typeof tool>>().toEqualTypeOf<{ city: string; days: number }>()
    expect(await tool.execute({ city: 'Oslo' })).toBe('Oslo: 3 days')
  })

  it('infers input and output from execute when schemas are absent', async () => {
    const tool = toolDefinition({ name: 'add', description: 'Add' }).server((input: { a: number; b: number }) => input.a + input.b)
    expectTypeOf<InferToolInput<typeof tool>>().toEqualTypeOf<{ a: number; b: number }>()
    expectTypeOf<InferToolOutput<typeof tool>>().toEqualTypeOf<number>()
    expect(await tool.execute({ a: 1, b: 2 })).toBe(3)
  })
})
