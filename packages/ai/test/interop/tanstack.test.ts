import { describe, expect, expectTypeOf, it, vi } from 'vitest'
import { chat, type AnyTool as TanStackAnyTool, type ModelMessage } from '@tanstack/ai'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { toJsonSchema as valibotToJsonSchema } from '@valibot/to-json-schema'
import * as v from 'valibot'
import * as z from 'zod'
import { InvalidOptionError, SchemaConversionError, toolDefinition, toolJsonSchema, type AnyTool, type JsonSchema, type ToolContext } from '@toolgate/ai'
import { toTanStackTool, type TanStackTool } from '@toolgate/ai/interop/tanstack'
import { collect, interruptsOf, scriptedAdapter, toolResults, type ScriptedTurn } from './scriptedAdapter.ts'

const USER: ModelMessage = { role: 'user', content: 'Go' }

/** One chat() run against scripted turns. */
async function run(tools: readonly TanStackAnyTool[], turns: readonly ScriptedTurn[], options: Record<string, unknown> = {}) {
  const { adapter, requests } = scriptedAdapter(turns)
  const chunks = await collect(chat({ adapter, messages: [USER], tools, runId: 'run_1', ...options } as never) as AsyncIterable<unknown>)
  return { chunks, requests, results: toolResults(chunks), interrupts: interruptsOf(chunks) }
}

const call = (id: string, name: string, args: unknown): ScriptedTurn => ({ toolCalls: [{ id, name, args }] })

/** The JSON Schema TanStack hands adapters: draft-07, without `$schema`. */
function asSentToAdapters(tool: AnyTool, io: 'input' | 'output' = 'input') {
  const { $schema: _, ...schema } = toolJsonSchema(tool, { io, target: 'draft-07' }) ?? {}
  return schema
}

function weatherTool(handler = vi.fn(async (input: { city: string; tags: string[] }, _ctx: ToolContext) => ({ tempC: input.city.length }))) {
  const tool = toolDefinition({
    name: 'get_weather',
    description: 'Current weather in a city',
    inputSchema: z.strictObject({
      city: z.string().describe('City name'),
      // Not idempotent: validating the validated value again would fail.
      tags: z.string().default('').transform((s) => s.split(',').filter(Boolean)),
    }),
    outputSchema: z.object({ tempC: z.number() }),
    metadata: { icon: 'sun', destructive: false },
  }).server(handler)
  return { tool, handler }
}

describe('toTanStackTool() with chat() of @tanstack/ai', () => {
  it('is a TanStack tool, for the compiler too', async () => {
    expectTypeOf<TanStackTool>().toExtend<TanStackAnyTool>()
    const adapted = toTanStackTool(weatherTool().tool)
    // TanStack hands execute what the model sent; defaults and transforms apply inside it.
    expectTypeOf(adapted).toEqualTypeOf<
      TanStackTool<'get_weather', { city: string; tags?: string | undefined }, { tempC: number }, { readonly icon: 'sun'; readonly destructive: false }>
    >()
    const { adapter } = scriptedAdapter([{ text: 'Hi' }])
    const chunks = await collect(chat({ adapter, messages: [USER], tools: [adapted], context: { user: 'ada' } }))
    expect(JSON.stringify(chunks)).toContain('Hi')
  })

  it('declares the JSON Schema, metadata and approval flag to the adapter', async () => {
    const { tool } = weatherTool()
    const { requests } = await run([toTanStackTool(tool)], [{ text: 'Hi' }])
    const [declared] = requests[0]!.tools ?? []
    expect(declared).toMatchObject({
      name: 'get_weather',
      description: 'Current weather in a city',
      inputSchema: asSentToAdapters(tool),
      outputSchema: asSentToAdapters(tool, 'output'),
      metadata: { icon: 'sun', destructive: false },
      needsApproval: false,
    })
    expect(declared!.inputSchema).toMatchObject({ additionalProperties: false, properties: { city: { description: 'City name' } } })
  })

  it('hands adapters a copy of the JSON Schema, which they may edit', async () => {
    const { tool } = weatherTool()
    const { requests } = await run([toTanStackTool(tool)], [{ text: 'Hi' }])
    const declared = requests[0]!.tools![0]!.inputSchema as { properties: { city: { description: string } } }
    declared.properties.city.description = 'edited by an adapter'
    expect(toolJsonSchema(tool)).toMatchObject({ properties: { city: { description: 'City name' } } })
  })

  it('executes with validated input (transformed once) and maps the execution context', async () => {
    const { tool, handler } = weatherTool()
    const appContext = { user: 'ada' }
    const { results } = await run([toTanStackTool(tool)], [call('call_1', 'get_weather', { city: 'Oslo', tags: 'a,b' }), { text: 'Done' }], {
      context: appContext,
    })
    expect(handler).toHaveBeenCalledOnce()
    const [input, ctx] = handler.mock.calls[0]!
    expect(input).toEqual({ city: 'Oslo', tags: ['a', 'b'] })
    expect(ctx).toEqual({ toolCallId: 'call_1', signal: expect.any(AbortSignal), context: appContext })
    expect(ctx.context).toBe(appContext)
    expect(results.get('call_1')).toEqual({ content: { tempC: 4 }, failed: false })
  })

  it('gives the handler neutral defaults when TanStack passes no context', async () => {
    const { tool, handler } = weatherTool()
    await expect(toTanStackTool(tool).execute({ city: 'Oslo' } as never)).resolves.toEqual({ tempC: 4 })
    expect(handler.mock.calls[0]![1]).toEqual({ toolCallId: '', signal: expect.any(AbortSignal), context: undefined })
  })

  it('forwards the run abort signal as `signal`', async () => {
    const controller = new AbortController()
    let abortedInHandler: boolean | undefined
    const tool = toolDefinition({ name: 'stop', description: 'Stops the run' }).server((_input, ctx) => {
      controller.abort()
      abortedInHandler = ctx.signal.aborted
      return 'stopped'
    })
    await run([toTanStackTool(tool)], [call('call_1', 'stop', {})], { abortController: controller })
    expect(abortedInHandler).toBe(true)
  })

  it.each([
    ['a missing field', {}, 'city:'],
    ['a wrong type', { city: 42 }, 'city: Invalid input: expected string, received number'],
    ['an unknown key', { city: 'Oslo', country: 'NO' }, 'Unrecognized key: "country"'],
  ])('sends %s back to the model without running the handler', async (_case, args, message) => {
    const { tool, handler } = weatherTool()
    const { results } = await run([toTanStackTool(tool)], [call('call_1', 'get_weather', args), { text: 'Sorry' }])
    expect(handler).not.toHaveBeenCalled()
    expect(results.get('call_1')?.failed).toBe(true)
    expect(results.get('call_1')?.content).toEqual({ error: expect.stringContaining(message) })
  })

  it('reports a handler failure to the model', async () => {
    const tool = toolDefinition({ name: 'flaky', description: 'Fails' }).server(() => {
      throw new Error('upstream is down')
    })
    const { results } = await run([toTanStackTool(tool)], [call('call_1', 'flaky', {}), { text: 'Sorry' }])
    expect(results.get('call_1')).toEqual({ content: { error: 'upstream is down' }, failed: true })
  })

  describe('async validators, which TanStack cannot await itself', () => {
    const isFree = async (name: string) => name !== 'taken'
    const handler = (input: unknown) => ({ registered: input })
    const tools = {
      zod: () =>
        toolDefinition({
          name: 'register',
          description: 'Registers a user',
          inputSchema: z.object({ user: z.string().refine(isFree, 'Username is taken') }),
        }).server(handler),
      valibot: () =>
        toolDefinition({
          name: 'register',
          description: 'Registers a user',
          inputSchema: v.objectAsync({ user: v.pipeAsync(v.string(), v.checkAsync(isFree, 'Username is taken')) }),
          // Work-around: the core emits Valibot with errorMode 'throw', which rejects every `check`.
          toJsonSchema: (schema, { target }) => valibotToJsonSchema(schema as never, { target, ignoreActions: ['check'] }) as JsonSchema,
        }).server(handler),
    }

    it.each(Object.entries(tools))('%s: a failing one reaches the model; a passing one runs', async (_library, makeTool) => {
      const { results } = await run(
        [toTanStackTool(makeTool())],
        [{ toolCalls: [{ id: 'taken', name: 'register', args: { user: 'taken' } }, { id: 'free', name: 'register', args: { user: 'ada' } }] }, { text: 'Ok' }],
      )
      expect(results.get('taken')).toEqual({ content: { error: expect.stringContaining('user: Username is taken') }, failed: true })
      expect(results.get('free')).toEqual({ content: { registered: { user: 'ada' } }, failed: false })
    })
  })

  describe('approvals', () => {
    const payment = { name: 'pay', description: 'Sends money', inputSchema: z.object({ amount: z.number().positive() }) }

    function paymentTool(needsApproval: true | ((input: { amount: number }) => boolean)) {
      const handler = vi.fn(({ amount }: { amount: number }) => ({ paid: amount }))
      const definition =
        needsApproval === true ? toolDefinition({ ...payment, needsApproval }) : toolDefinition({ ...payment, needsApproval })
      return { tool: definition.server(handler), handler }
    }

    /** Runs until the approval interrupt, then resumes with the human's answer. */
    async function approve(tool: TanStackTool, approved: boolean) {
      const first = await run([tool], [call('call_1', 'pay', { amount: 5 })])
      const snapshot = first.chunks.find((c) => (c as { type: string }).type === 'MESSAGES_SNAPSHOT') as { messages: ModelMessage[] }
      const [interrupt] = first.interrupts
      const { adapter } = scriptedAdapter([{ text: 'Done' }])
      const chunks = await collect(
        chat({
          adapter,
          messages: snapshot.messages,
          tools: [tool],
          parentRunId: 'run_1',
          resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved } }],
        } as never) as AsyncIterable<unknown>,
      )
      return { first, results: toolResults(chunks) }
    }

    it('asks a human first, and runs the call once approved', async () => {
      const { tool, handler } = paymentTool(true)
      const { first, results } = await approve(toTanStackTool(tool), true)
      expect(first.requests[0]!.tools![0]!.needsApproval).toBe(true)
      expect(first.interrupts).toEqual([
        expect.objectContaining({ toolCallId: 'call_1', metadata: expect.objectContaining({ kind: 'approval', toolName: 'pay', input: { amount: 5 } }) }),
      ])
      expect(first.results.size).toBe(0)
      expect(handler).toHaveBeenCalledOnce()
      expect(handler.mock.calls[0]![0]).toEqual({ amount: 5 })
      expect(results.get('call_1')).toEqual({ content: { paid: 5 }, failed: false })
    })

    it('never runs a denied call', async () => {
      const { tool, handler } = paymentTool(true)
      const { results } = await approve(toTanStackTool(tool), false)
      expect(handler).not.toHaveBeenCalled()
      expect(results.get('call_1')?.failed).toBe(true)
    })

    it('turns a policy into "always ask": TanStack has no per-call approval hook, so it is never bypassed', async () => {
      const policy = vi.fn(() => false)
      const { tool, handler } = paymentTool(policy)
      const adapted = toTanStackTool(tool)
      expect(adapted.needsApproval).toBe(true)
      const { first } = await approve(adapted, true)
      expect(first.interrupts).toHaveLength(1)
      expect(policy).not.toHaveBeenCalled()
      expect(handler).toHaveBeenCalledOnce()
    })

    it('rejects bad input before a human is asked', async () => {
      const { tool } = paymentTool(true)
      const { interrupts, results } = await run([toTanStackTool(tool)], [call('call_1', 'pay', { amount: -5 }), { text: 'Sorry' }])
      expect(interrupts).toEqual([])
      expect(results.get('call_1')).toEqual({ content: { error: expect.stringContaining('amount:') }, failed: true })
    })
  })

  it("uses the tool's toJsonSchema hook", async () => {
    const custom = { type: 'object', properties: { q: { type: 'string', description: 'From the hook' } }, required: ['q'] }
    const tool = toolDefinition({
      name: 'search',
      description: 'Searches',
      inputSchema: z.object({ q: z.string() }),
      toJsonSchema: (_schema, { io }) => (io === 'input' ? custom : undefined),
    }).server(({ q }) => q)
    const { requests } = await run([toTanStackTool(tool)], [{ text: 'Hi' }])
    expect(requests[0]!.tools![0]!.inputSchema).toEqual(custom)
  })

  it('declares a tool without input schema as taking an empty object', async () => {
    const tool = toolDefinition({ name: 'ping', description: 'Pings' }).server(() => 'pong')
    const { requests, results } = await run([toTanStackTool(tool)], [call('call_1', 'ping', {}), { text: 'Pong' }])
    expect(requests[0]!.tools![0]!.inputSchema).toEqual({ type: 'object', properties: {}, required: [] })
    expect(results.get('call_1')).toEqual({ content: 'pong', failed: false })
  })

  it('refuses what it cannot adapt, at once', () => {
    const definition = toolDefinition({ name: 'show_toast', description: 'Shows a toast' })
    expect(() => toTanStackTool(definition.client(() => 'shown') as never)).toThrow(InvalidOptionError)

    const handMade: StandardSchemaV1<{ q: string }> = {
      '~standard': { version: 1, vendor: 'hand-made', validate: (value) => ({ value: value as { q: string } }) },
    }
    const tool = toolDefinition({ name: 'opaque', description: 'Opaque', inputSchema: handMade }).server(() => 1)
    expect(() => toTanStackTool(tool)).toThrow(SchemaConversionError)
    expect(() => toTanStackTool(tool)).toThrow(/input of tool "opaque"/)
  })
})

describe('a .server() tool passed to chat() unchanged', () => {
  it('is executed with validated input; needsApproval, metadata and JSON Schema reach TanStack', async () => {
    const handler = vi.fn(({ city }: { city: string }) => ({ tempC: city.length }))
    const tool = toolDefinition({
      name: 'get_weather',
      description: 'Current weather in a city',
      inputSchema: z.object({ city: z.string().trim() }),
      metadata: { icon: 'sun' },
      needsApproval: false,
    }).server(handler)
    const { requests, results } = await run([tool], [call('call_1', 'get_weather', { city: ' Oslo ' }), { text: 'Done' }])
    expect(requests[0]!.tools![0]).toMatchObject({ inputSchema: asSentToAdapters(tool), metadata: { icon: 'sun' }, needsApproval: false })
    expect(handler.mock.calls[0]![0]).toEqual({ city: 'Oslo' })
    expect(results.get('call_1')).toEqual({ content: { tempC: 4 }, failed: false })

    const guarded = toolDefinition({ name: 'pay', description: 'Pays', needsApproval: true }).server(() => 'paid')
    expect((await run([guarded], [call('call_1', 'pay', {})])).interrupts).toHaveLength(1)
  })

  it('takes an approval policy only with a cast; TanStack then asks for every call, the function being truthy', async () => {
    const handler = vi.fn(() => 'paid')
    const tool = toolDefinition({ name: 'pay', description: 'Pays', needsApproval: () => false }).server(handler)
    expectTypeOf(tool).not.toExtend<TanStackAnyTool>()
    const { interrupts } = await run([tool as never], [call('call_1', 'pay', {})])
    expect(interrupts).toHaveLength(1)
    expect(handler).not.toHaveBeenCalled()
  })

  it('falls short where toTanStackTool() does not: double validation, async validators, `signal`', async () => {
    const { tool, handler } = weatherTool()
    const args = { city: 'Oslo', tags: 'a,b' }
    // TanStack validates, then the tool's own execute validates the transformed value again.
    const unchanged = await run([tool], [call('call_1', 'get_weather', args), { text: 'Done' }])
    expect(unchanged.results.get('call_1')).toEqual({ content: { error: expect.stringContaining('tags') }, failed: true })
    expect(handler).not.toHaveBeenCalled()

    // TanStack validates synchronously only.
    const asyncTool = toolDefinition({
      name: 'register',
      description: 'Registers',
      inputSchema: z.object({ user: z.string().refine(async () => true) }),
    }).server(() => 'ok')
    const rejected = await run([asyncTool], [call('call_1', 'register', { user: 'ada' }), { text: 'Done' }])
    expect(rejected.results.get('call_1')).toEqual({ content: { error: expect.stringContaining('Promise') }, failed: true })

    // The handler gets TanStack's own context: `abortSignal`, not `signal`.
    let ctx: Record<string, unknown> = {}
    const raw = toolDefinition({ name: 'peek', description: 'Peeks' }).server((_input, context) => {
      ctx = context as never
      return 'ok'
    })
    await run([raw], [call('call_1', 'peek', {}), { text: 'Done' }])
    expect(ctx.signal).toBeUndefined()
    expect(ctx.abortSignal).toBeInstanceOf(AbortSignal)
  })
})
