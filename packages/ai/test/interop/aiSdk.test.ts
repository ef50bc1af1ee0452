import { describe, expect, expectTypeOf, it, vi } from 'vitest'
import { asSchema, generateText, stepCountIs, type Tool, type ToolSet } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import * as v from 'valibot'
import * as z from 'zod'
import { toolDefinition, toolJsonSchema, type ToolContext } from '@toolgate/ai'
import { toAISdkTool, toAISdkTools } from '@toolgate/ai/interop/ai-sdk'


type MockModel = MockLanguageModelV3
type CallOptions = MockModel['doGenerateCalls'][number]
type LanguageModelV3Content = Awaited<ReturnType<MockModel['doGenerate']>>['content'][number]
type FunctionTool = Extract<NonNullable<CallOptions['tools']>[number], { type: 'function' }>

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

/** A model that plays its turns in order, and records what each request declared. */
function scriptedModel(turns: LanguageModelV3Content[][]) {
  let turn = 0
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const content = turns[turn++] ?? [{ type: 'text', text: 'Done' }]
      const toolCalls = content.some((part) => part.type === 'tool-call')
      return { content, finishReason: { unified: toolCalls ? 'tool-calls' : 'stop', raw: undefined }, usage: USAGE, warnings: [] }
    },
  })
}

const call = (toolCallId: string, toolName: string, input: unknown): LanguageModelV3Content => ({
  type: 'tool-call',
  toolCallId,
  toolName,
  input: JSON.stringify(input),
})

async function run(tools: ToolSet, turns: LanguageModelV3Content[][], options: { experimental_context?: unknown; abortSignal?: AbortSignal } = {}) {
  const model = scriptedModel(turns)
  const result = await generateText({ model, tools, prompt: 'Go', stopWhen: stepCountIs(3), ...options })
  const declared = model.doGenerateCalls[0]!.tools as FunctionTool[] | undefined
  return { result, declared: declared ?? [], parts: result.steps.flatMap((step) => step.content) }
}

function weatherTool() {
  const handler = vi.fn(async (input: { city: string; tags: string[] }, _ctx: ToolContext) => ({ tempC: input.city.length }))
  const tool = toolDefinition({
    name: 'get_weather',
    title: 'Weather',
    description: 'Current weather in a city',
    inputSchema: z.strictObject({
      city: z.string().min(2).describe('City name'),
      // Not idempotent: validating the validated value again would fail.
      tags: z.string().default('').transform((s) => s.split(',').filter(Boolean)),
    }),
    outputSchema: z.object({ tempC: z.number() }),
    metadata: { icon: 'sun' },
  }).server(handler)
  return { tool, handler }
}

describe('toAISdkTool() with generateText() of ai', () => {
  it('is an AI SDK tool, for the compiler too', () => {
    const search = toolDefinition({
      name: 'search',
      description: 'Searches',
      inputSchema: z.object({ q: z.string() }),
      outputSchema: z.object({ hits: z.number() }),
    }).server(() => ({ hits: 1 }))
    expectTypeOf(toAISdkTool(search)).toEqualTypeOf<Tool<{ q: string }, { hits: number }>>()
    expectTypeOf(toAISdkTool(search.formatted())).toEqualTypeOf<Tool<{ q: string }, { hits: number } | { error: string }>>()
    expectTypeOf(toAISdkTools([search])).toEqualTypeOf<{ search: Tool<{ q: string }, { hits: number }> }>()
    expectTypeOf(toAISdkTools([search])).toExtend<ToolSet>()

    const { tool } = weatherTool()
    const adapted = toAISdkTool(tool)
    expect(asSchema(adapted.inputSchema)).toBe(adapted.inputSchema) // taken as the SDK's own JSON Schema, not rewritten
    expect(adapted).toMatchObject({ description: 'Current weather in a city', title: 'Weather', metadata: { icon: 'sun' } })
    expect(adapted).not.toHaveProperty('needsApproval')
  })

  it('declares exactly the JSON Schema Toolgate emits', async () => {
    const { tool } = weatherTool()
    const { declared } = await run(toAISdkTools([tool]), [[]])
    expect(declared).toEqual([
      expect.objectContaining({ type: 'function', name: 'get_weather', description: 'Current weather in a city', inputSchema: toolJsonSchema(tool, { target: 'draft-07' }) }),
    ])
    expect(declared[0]!.inputSchema).toMatchObject({ additionalProperties: false, properties: { city: { description: 'City name' } } })
  })

  it('runs the tool with validated input (transformed once) and maps the execute options', async () => {
    const { tool, handler } = weatherTool()
    const controller = new AbortController()
    const { parts, result } = await run(toAISdkTools([tool]), [[call('call_1', 'get_weather', { city: 'Oslo', tags: 'a,b' })]], {
      experimental_context: { user: 'ada' },
      abortSignal: controller.signal,
    })
    expect(handler).toHaveBeenCalledOnce()
    const [input, ctx] = handler.mock.calls[0]!
    expect(input).toEqual({ city: 'Oslo', tags: ['a', 'b'] })
    expect(ctx).toMatchObject({ toolCallId: 'call_1', context: { user: 'ada' } })
    expect(ctx.signal).toBeInstanceOf(AbortSignal)
    expect(parts).toContainEqual(expect.objectContaining({ type: 'tool-result', toolCallId: 'call_1', output: { tempC: 4 } }))
    expect(result.text).toBe('Done')
  })

  it('reports invalid input as a tool error with path: message lines, without running the tool', async () => {
    const { tool, handler } = weatherTool()
    const { parts } = await run(toAISdkTools([tool]), [[call('call_1', 'get_weather', { city: 'X', extra: 1 })]])
    expect(handler).not.toHaveBeenCalled()
    const error = parts.find((part) => part.type === 'tool-error')
    expect(error).toMatchObject({ toolCallId: 'call_1', toolName: 'get_weather' })
    expect(String((error as { error: unknown }).error)).toMatch(/Invalid input for tool "get_weather":\n- city: .+\n- \(root\): .+/)
  })

  it('reports a thrown error as a tool error, and as a value once formatted', async () => {
    const failing = toolDefinition({ name: 'failing', description: 'Fails' }).server(() => {
      throw new Error('database down')
    })
    const { parts } = await run(toAISdkTools([failing]), [[call('c1', 'failing', {})]])
    expect(parts).toContainEqual(expect.objectContaining({ type: 'tool-error', toolCallId: 'c1', error: expect.objectContaining({ message: 'database down' }) }))

    const formatted = await run({ failing: toAISdkTool(failing.formatted()) }, [[call('c2', 'failing', {})]])
    expect(formatted.parts).toContainEqual(expect.objectContaining({ type: 'tool-result', output: { error: 'database down' } }))
  })

  it('maps needsApproval: true stays true, a policy runs per call on the validated input', async () => {
    const policy = vi.fn((input: { amount: number }) => (input.amount > 100 ? { reason: 'large' } : false))
    const handler = vi.fn(({ amount }: { amount: number }) => `sent ${amount}`)
    const transfer = toolDefinition({
      name: 'transfer',
      description: 'Sends money',
      inputSchema: v.object({ amount: v.pipe(v.string(), v.transform(Number)) }),
      needsApproval: policy,
    }).server(handler)
    const wipe = toolDefinition({ name: 'wipe', description: 'Wipes', needsApproval: true }).server(() => 'wiped')
    expect(toAISdkTool(wipe).needsApproval).toBe(true)

    const { parts } = await run(toAISdkTools([transfer, wipe]), [
      [call('small', 'transfer', { amount: '5' }), call('large', 'transfer', { amount: '500' }), call('w', 'wipe', {})],
    ])
    expect(policy.mock.calls.map(([input]) => input)).toEqual([{ amount: 5 }, { amount: 500 }])
    expect(handler).toHaveBeenCalledOnce()
    expect(parts).toContainEqual(expect.objectContaining({ type: 'tool-result', toolCallId: 'small', output: 'sent 5' }))
    const asked = parts.filter((part) => part.type === 'tool-approval-request').map((part) => part.toolCall.toolCallId)
    expect(asked).toEqual(['large', 'w'])
  })

  it('gives a definition or client tool no execute: the SDK hands its calls back', async () => {
    const definition = toolDefinition({ name: 'pick_color', description: 'Asks the user', inputSchema: z.object({ hint: z.string() }) })
    const client = definition.client(() => 'red')
    expect(toAISdkTool(client)).not.toHaveProperty('execute')
    const { result } = await run(toAISdkTools([definition]), [[call('c1', 'pick_color', { hint: 'warm' })]])
    expect(result.toolCalls).toEqual([expect.objectContaining({ toolCallId: 'c1', toolName: 'pick_color', input: { hint: 'warm' } })])
    expect(result.toolResults).toEqual([])
  })

  it('rejects two tools with one name', () => {
    const { tool } = weatherTool()
    expect(() => toAISdkTools([tool, tool])).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', option: 'tools', message: expect.stringContaining('two tools named "get_weather"') }))
  })
})
