import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import {
  InvalidOptionError,
  toolDefinition,
  toolJsonSchema,
  ToolDeniedError,
  ToolExecutionError,
  ToolInputError,
  ToolNotFoundError,
  ToolValidationError,
} from '@toolgate/ai'
import { toolSet, type ToolSetApprovalRequest } from '@toolgate/ai/providers'

const weather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: v.object({ city: v.pipe(v.string(), v.minLength(2)) }),
  outputSchema: v.object({ tempC: v.number() }),
}).server(({ city }) => (city === 'Atlantis' ? Promise.reject(new Error('no such city')) : { tempC: city.length }))

const broken = toolDefinition({
  name: 'broken',
  description: 'Returns the wrong shape',
  outputSchema: v.object({ ok: v.boolean() }),
}).server(() => ({ ok: 'yes' }) as never)

const transfer = toolDefinition({
  name: 'transfer',
  description: 'Sends money',
  inputSchema: v.object({ to: v.string(), amount: v.number() }),
  needsApproval: ({ amount }) => (amount > 100 ? { reason: `${amount} is a lot` } : false),
  rejectMessage: ({ input }) => `The transfer to ${input.to} was refused.`,
}).server(({ to, amount }) => ({ receipt: `${to}-${amount}` }))

const greet = toolDefinition({
  name: 'greet',
  description: 'Greets in the tenant’s language',
  contextSchema: v.object({ locale: v.picklist(['en', 'fr']) }),
}).server((_input, { context }) => (context.locale === 'fr' ? 'bonjour' : 'hello'))

describe('toolSet', () => {
  it('calls a tool by name with JSON arguments and returns the serialized output', async () => {
    const set = toolSet([weather])
    expect(await set.call('get_weather', '{"city":"Oslo"}')).toBe('{"tempC":4}')
    expect(await set.call('get_weather', { city: 'Rome' })).toBe('{"tempC":4}')
    expect(await set.callRaw('get_weather', '{"city":"Paris"}')).toEqual({ tempC: 5 })
    expect(set.names).toEqual(['get_weather'])
  })

  it('throws ToolNotFoundError listing the tools there are', async () => {
    const error = await toolSet([weather, broken]).call('get_wether', '{}').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ToolNotFoundError)
    expect(error).toMatchObject({ code: 'TOOL_NOT_FOUND', toolName: 'get_wether', available: ['get_weather', 'broken'] })
    expect((error as Error).message).toBe('Unknown tool "get_wether". Available tools: get_weather, broken.')
  })

  it('throws ToolInputError for bad JSON and for invalid input, with the paths', async () => {
    const set = toolSet([weather])
    const badJson = await set.call('get_weather', '{"city":').catch((e: unknown) => e)
    expect(badJson).toBeInstanceOf(ToolInputError)
    expect((badJson as Error).message).toMatch(/^The arguments of tool "get_weather" are not valid JSON/)
    const invalid = (await set.call('get_weather', '{"city":"X"}').catch((e: unknown) => e)) as ToolInputError
    expect(invalid).toBeInstanceOf(ToolInputError)
    expect(invalid.code).toBe('TOOL_INPUT_INVALID')
    expect(invalid.issues[0]!.path?.[0]).toMatchObject({ key: 'city' })
    expect(invalid.message).toContain('- city: Invalid length')
    expect(invalid.cause).toBeInstanceOf(ToolValidationError)
  })

  it('throws ToolExecutionError when the tool throws or returns an invalid output', async () => {
    const set = toolSet([weather, broken])
    const thrown = (await set.call('get_weather', '{"city":"Atlantis"}').catch((e: unknown) => e)) as ToolExecutionError
    expect(thrown).toBeInstanceOf(ToolExecutionError)
    expect(thrown).toMatchObject({ code: 'TOOL_EXECUTION_FAILED', toolName: 'get_weather', message: 'Tool "get_weather" failed: no such city' })
    expect((thrown.cause as Error).message).toBe('no such city')
    const invalid = (await set.call('broken', '{}').catch((e: unknown) => e)) as ToolExecutionError
    expect(invalid).toBeInstanceOf(ToolExecutionError)
    expect(invalid.message).toMatch(/^Invalid output for tool "broken":\n- ok: /)
  })

  it('asks the approval handler when the policy says so, and honours a denial with the rejectMessage', async () => {
    const asked: ToolSetApprovalRequest[] = []
    let answer: boolean | { approved: boolean; reason?: string } = true
    const set = toolSet([transfer], { approve: (request) => (asked.push(request), answer) })
    expect(await set.call('transfer', '{"to":"Bob","amount":20}')).toBe('{"receipt":"Bob-20"}')
    expect(asked).toEqual([])
    expect(await set.call('transfer', '{"to":"Bob","amount":200}', { toolCallId: 'c1' })).toBe('{"receipt":"Bob-200"}')
    expect(asked).toEqual([{ toolName: 'transfer', toolCallId: 'c1', input: { to: 'Bob', amount: 200 }, reason: '200 is a lot', context: undefined }])
    answer = { approved: false, reason: 'not today' }
    const denied = (await set.call('transfer', '{"to":"Eve","amount":500}').catch((e: unknown) => e)) as ToolDeniedError
    expect(denied).toBeInstanceOf(ToolDeniedError)
    expect(denied).toBeInstanceOf(ToolExecutionError)
    expect(denied).toMatchObject({ code: 'TOOL_DENIED', reason: 'not today', message: "The transfer to Eve was refused.\nThe user's reason: not today" })
  })

  it('refuses at creation a tool that may need approval without a handler, and a tool without a server execute', () => {
    expect(() => toolSet([transfer])).toThrow(InvalidOptionError)
    expect(() => toolSet([transfer])).toThrow('toolSet: `approve` is needed: tool "transfer" may ask for approval')
    const bare = toolDefinition({ name: 'bare', description: 'A browser tool' })
    expect(() => toolSet([bare])).toThrow('toolSet: `tools[0]` is tool "bare" without a server execute: bind it with .server()')
  })

  it('hands the context, checked against the tool’s contextSchema', async () => {
    const set = toolSet([greet], { context: { locale: 'fr' } })
    expect(await set.call('greet', '{}')).toBe('"bonjour"')
    expect(await set.call('greet', '{}', { context: { locale: 'en' } })).toBe('"hello"')
    await expect(set.call('greet', '{}', { context: { locale: 'de' } })).rejects.toThrow('does not satisfy the contextSchema of tool "greet" at locale')
  })

  it('gives every tool in a provider envelope', () => {
    const set = toolSet([weather, broken])
    expect(set.definitions('anthropic')).toEqual([
      { name: 'get_weather', description: 'Current weather for a city', input_schema: expect.objectContaining({ type: 'object' }) },
      { name: 'broken', description: 'Returns the wrong shape', input_schema: expect.objectContaining({ type: 'object' }) },
    ])
    const [openai] = set.definitions('openai-chat', { strict: true })
    expect(openai).toMatchObject({ type: 'function', function: { name: 'get_weather', strict: true } })
    expect(toolJsonSchema(weather)).toMatchObject({ required: ['city'] })
  })
})
