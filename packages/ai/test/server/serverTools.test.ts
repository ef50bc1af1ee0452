import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { type ChatModel, type ModelChunk } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { TEMPS, transferDef, weatherDef, weatherTool } from './fixtures.ts'
import { closeAll, deferred, expectReloadToMatchStream, startServer } from './helpers/server.ts'

afterEach(closeAll)

const weatherRule = {
  when: /weather in (\w+)/i,
  say: 'Let me check.',
  call: (m: RegExpMatchArray) => ({ tool: 'get_weather', input: { city: m[1] } }),
  then: ([r]: any[]) => (r.ok ? `It is ${r.output.tempC}°C in ${r.output.city}.` : `That failed: ${r.content}`),
}

describe('server tools', () => {
  it('runs a tool, streams its call and result, and answers with the output', async () => {
    const seen: unknown[] = []
    const tool = weatherDef.server(async ({ city }, ctx) => {
      seen.push({ city, toolCallId: ctx.toolCallId, signal: ctx.signal instanceof AbortSignal, context: ctx.context })
      return { city, tempC: TEMPS[city]! }
    })
    const server = await startServer({ model: scriptedModel([weatherRule]), tools: [tool], context: { user: 'ada' } })
    const turn = await server.send('What is the weather in Paris?')

    expect(turn.text).toBe('Let me check.It is 18°C in Paris.')
    const start = turn.events.find((e) => e.type === 'TOOL_CALL_START')
    expect(start).toMatchObject({ toolCallName: 'get_weather' })
    const args = turn.events.filter((e) => e.type === 'TOOL_CALL_ARGS').map((e) => (e.type === 'TOOL_CALL_ARGS' ? e.delta : ''))
    expect(args.length).toBeGreaterThanOrEqual(3)
    expect(JSON.parse(args.join(''))).toEqual({ city: 'Paris' })
    expect(turn.results).toEqual([expect.objectContaining({ content: '{"city":"Paris","tempC":18}', role: 'tool' })])
    expect(seen).toEqual([{ city: 'Paris', toolCallId: (start as { toolCallId: string }).toolCallId, signal: true, context: { user: 'ada' } }])

    const { messages } = await server.get(turn.threadId)
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(messages[2]).toMatchObject({ status: 'success', output: { city: 'Paris', tempC: 18 }, id: turn.results[0]!.messageId })
    // The stored result is the result only: not the tool definition or the input it ran with.
    expect(Object.keys(messages[2]!).sort()).toEqual(['content', 'id', 'output', 'role', 'status', 'toolCallId', 'toolName'])
  })

  it('runs several calls of one step in parallel', async () => {
    // Each call waits until both are running: sequential execution would never finish.
    let running = 0
    const bothRunning = deferred()
    const tool = weatherDef.server(async ({ city }) => {
      if (++running === 2) bothRunning.resolve()
      await bothRunning.promise
      return { city, tempC: TEMPS[city]! }
    })
    const model = scriptedModel([
      {
        when: 'compare',
        call: () => [
          { tool: 'get_weather', input: { city: 'Oslo' } },
          { tool: 'get_weather', input: { city: 'Rome' } },
        ],
        then: (results) => results.map((r) => (r.ok ? `${r.output.city}: ${r.output.tempC}°C` : r.content)).join(', '),
      },
    ], { tools: [tool] })
    const server = await startServer({ model, tools: [tool] })
    const turn = await server.send('compare Oslo and Rome')
    expect(turn.text).toBe('Oslo: 4°C, Rome: 24°C')
    expect(turn.results).toHaveLength(2)
  })

  // A tool that returns at once, with a synchronous schema, is settled without a wait: the same
  // results, the same errors, in the same order, and stored as streamed.
  it('answers calls of a tool that returns at once (a result, an invalid output, a throw) as it does an async tool', async () => {
    const tool = weatherDef.server(({ city }) => {
      if (city === 'Lima') throw new Error('service down')
      return (city === 'Rome' ? { city, tempC: 'warm' } : { city, tempC: TEMPS[city]! }) as never
    })
    const model = scriptedModel([
      {
        when: 'compare',
        call: () => ['Oslo', 'Rome', 'Lima'].map((city) => ({ tool: 'get_weather', input: { city } })),
        then: (results) => results.map((r) => (r.ok ? `${r.output.city}: ${r.output.tempC}°C` : 'failed')).join(', '),
      },
    ], { tools: [tool] })
    const server = await startServer({ model, tools: [tool] })
    const turn = await server.send('compare Oslo, Rome and Lima')
    expect(turn.results.map((result) => [result.metadata.status, result.content])).toEqual([
      ['success', JSON.stringify({ city: 'Oslo', tempC: 4 })],
      ['error', expect.stringMatching(/^Invalid output for tool "get_weather":\n- tempC: /)],
      ['error', 'Tool "get_weather" failed'],
    ])
    expect(turn.text).toBe('Oslo: 4°C, failed, failed')
    expectReloadToMatchStream((await server.get(turn.threadId)).messages, turn.events)
  })

  it('turns malformed arguments into an error the model sees, and the run goes on', async () => {
    const model = scriptedModel([
      { when: 'broken', call: () => ({ tool: 'get_weather', rawArguments: '{"city": "Par' }), then: ([r]) => `Oops: ${r.content}` },
    ])
    const server = await startServer({ model, tools: [weatherTool] })
    const turn = await server.send('broken call')
    expect(turn.results[0]!.content).toMatch(/^The arguments of tool "get_weather" are not valid JSON/)
    expect(turn.text).toMatch(/^Oops: The arguments/)
    expect(turn.finished?.outcome).toEqual({ type: 'success' })
  })

  it('rejects an unknown tool the same way', async () => {
    const model = scriptedModel([{ when: 'x', call: () => ({ tool: 'launch_rockets', input: {} }), then: ([r]) => r.content }])
    const server = await startServer({ model, tools: [weatherTool] })
    const turn = await server.send('x')
    expect(turn.text).toBe('Unknown tool "launch_rockets". Available tools: get_weather.')
  })

  it('sends input issues with their paths back so the model can correct itself', async () => {
    const model = scriptedModel([
      {
        when: 'weather',
        call: () => ({ tool: 'get_weather', input: { city: 'P' } }),
        then: ([r], { round }) => (round === 1 ? { call: { tool: 'get_weather', input: { city: 'Paris' } } } : `Fixed: ${r.output?.tempC}°C`),
      },
    ], { tools: [weatherDef] })
    const server = await startServer({ model, tools: [weatherTool] })
    const turn = await server.send('weather')
    expect(turn.results[0]!.content).toMatch(/Invalid input for tool "get_weather":\n- city: /)
    expect(turn.text).toBe('Fixed: 18°C')
  })

  it('validates output and reports a violation as a tool error', async () => {
    const tool = weatherDef.server(async ({ city }) => ({ city, tempC: 'warm' }) as never)
    const server = await startServer({ model: scriptedModel([weatherRule]), tools: [tool] })
    const turn = await server.send('weather in Paris')
    expect(turn.results[0]!.content).toMatch(/^Invalid output for tool "get_weather":\n- tempC: /)
    expect(turn.text).toMatch(/That failed: Invalid output/)
  })

  // Valibot's schemas answer at once, and the server then awaits nothing; an asynchronous schema takes the other way.
  it('validates with an asynchronous schema: input issues with their paths reach the model, and the output is the validated one', async () => {
    const asyncWeather = toolDefinition({
      name: 'get_weather',
      description: 'Current weather in a city',
      inputSchema: v.objectAsync({ city: v.pipeAsync(v.string(), v.checkAsync(async (city) => city.length >= 2, 'name a city')) }),
      outputSchema: v.objectAsync({ city: v.string(), tempC: v.pipeAsync(v.number(), v.transformAsync(async (tempC) => tempC + 0.5)) }),
    }).server(async ({ city }) => ({ city, tempC: TEMPS[city] ?? 10 }))
    const model = scriptedModel([
      {
        when: 'weather',
        call: () => ({ tool: 'get_weather', input: { city: 'P' } }),
        then: ([r], { round }) => (round === 1 ? { call: { tool: 'get_weather', input: { city: 'Paris' } } } : `Fixed: ${r.output?.tempC}°C`),
      },
    ], { tools: [asyncWeather] })
    const server = await startServer({ model, tools: [asyncWeather] })
    const turn = await server.send('weather')
    expect(turn.results[0]!.content).toBe('Invalid input for tool "get_weather":\n- city: name a city')
    expect(turn.results[1]!.content).toBe(JSON.stringify({ city: 'Paris', tempC: 18.5 }))
    expect(turn.text).toBe('Fixed: 18.5°C')
  })

  it("tells the model a tool failed, without the exception's text (see secrets.test.ts)", async () => {
    const tool = weatherDef.server(async () => {
      throw new Error('service down')
    })
    const server = await startServer({ model: scriptedModel([weatherRule]), tools: [tool], onError: () => {} })
    const turn = await server.send('weather in Paris')
    expect(turn.results[0]!.content).toBe('Tool "get_weather" failed')
  })

  it('times a slow tool out and aborts its signal', async () => {
    const aborted = deferred<unknown>()
    const tool = weatherDef.server(
      (_, { signal }) =>
        new Promise<never>(() => {
          signal.addEventListener('abort', () => aborted.resolve(signal.reason))
        }),
    )
    const server = await startServer({ model: scriptedModel([weatherRule]), tools: [tool], limits: { toolTimeoutMs: 50 } })
    const turn = await server.send('weather in Paris')
    expect(turn.results[0]!.content).toBe('Tool "get_weather" timed out after 50 ms; it may still have taken effect')
    await aborted.promise
  })

  it('stops after maxSteps model calls', async () => {
    let calls = 0
    const looping = scriptedModel([{ when: 'loop', call: () => ({ tool: 'get_weather', input: { city: 'Oslo' } }), then: () => ({ call: { tool: 'get_weather', input: { city: 'Oslo' } } }) }])
    const counting: ChatModel = { stream: (request) => (calls++, looping.stream(request)) }
    const server = await startServer({ model: counting, tools: [weatherTool], maxSteps: 3 })
    const turn = await server.send('loop')
    expect(calls).toBe(3)
    expect(turn.results).toHaveLength(3)
    expect(turn.finished?.outcome).toEqual({ type: 'success' })
    expect((await server.get(turn.threadId)).status).toBe('idle')
  })

  it('accepts empty arguments for a tool without input', async () => {
    const ping = toolDefinition({ name: 'ping', description: 'Ping', outputSchema: v.literal('pong') }).server(() => 'pong' as const)
    const model = scriptedModel([{ when: 'ping', call: () => ({ tool: 'ping', rawArguments: '' }), then: ([r]) => String(r.output) }])
    const server = await startServer({ model, tools: [ping] })
    expect((await server.send('ping')).text).toBe('pong')
  })

  it('gives a call a new id when the model reuses one the thread already has (call_0 in every step)', async () => {
    function* call(city: string): Generator<ModelChunk> {
      yield { type: 'tool-call-start', toolCallId: 'call_0', toolName: 'get_weather' }
      yield { type: 'tool-call-delta', toolCallId: 'call_0', delta: JSON.stringify({ city }) }
      yield { type: 'tool-call-end', toolCallId: 'call_0' }
    }
    // Two calls in one step, then one more, all as `call_0`; then an answer read from history by id.
    const reusing: ChatModel = {
      async *stream({ messages }) {
        const turn = messages.slice(messages.findLastIndex((m) => m.role === 'user') + 1)
        const steps = turn.filter((m) => m.role === 'assistant').length
        if (steps === 0) yield* [...call('Oslo'), ...call('Rome')]
        else if (steps === 1) yield* call('Paris')
        else {
          const outputs = new Map(messages.flatMap((m) => (m.role === 'tool' ? [[m.toolCallId, m.output as { tempC: number }]] : [])))
          const lines = turn.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((c) => `${JSON.parse(c.arguments).city} ${outputs.get(c.id)?.tempC}`) : []))
          yield { type: 'text-delta', delta: lines.join(', ') }
        }
        yield { type: 'finish', reason: steps < 2 ? 'tool_calls' : 'stop' }
      },
    }
    const server = await startServer({ model: reusing, tools: [weatherTool] })
    const first = await server.send('compare')
    const second = await server.send('compare again', first.threadId)

    expect(first.text).toBe('Oslo 4, Rome 24, Paris 18')
    expect(second.text).toBe('Oslo 4, Rome 24, Paris 18')
    const events = [...first.events, ...second.events]
    const ids = events.flatMap((e) => (e.type === 'TOOL_CALL_START' ? [e.toolCallId] : []))
    expect(ids[0]).toBe('call_0')
    expect(new Set(ids).size).toBe(6)
    // Each result reaches the client under the id of the call it answers.
    const cityOf = new Map(ids.map((id) => [id, '']))
    for (const e of events) if (e.type === 'TOOL_CALL_ARGS') cityOf.set(e.toolCallId, cityOf.get(e.toolCallId) + e.delta)
    const answered = [...first.results, ...second.results].map((r) => [r.toolCallId, (r.metadata.output as { city: string }).city])
    expect(answered.sort()).toEqual(ids.map((id) => [id, JSON.parse(cityOf.get(id)!).city]).sort())
    expectReloadToMatchStream((await server.get(first.threadId)).messages, [...first.events, ...second.events])
  })

  it('hands an approved call\'s tool the decision it runs under, beside its signal; an unreviewed call\'s tool none', async () => {
    const seen: unknown[] = []
    const transfer = transferDef.server((_input, ctx) => (seen.push({ decision: ctx.decision?.decision, keys: Object.keys(ctx), signal: ctx.signal instanceof AbortSignal }), { receipt: 'ok' }))
    const weather = weatherDef.server(({ city }, ctx) => (seen.push({ decision: ctx.decision, keys: Object.keys(ctx) }), { city, tempC: TEMPS[city]! }))
    const model = scriptedModel([
      { when: /send (\d+) to (\w+)/i, call: (m) => ({ tool: 'transfer_money', input: { to: m[2], amount: Number(m[1]) } }), then: ([r]) => r.content },
      weatherRule,
    ])
    const server = await startServer({ model, tools: [transfer, weather] })
    await server.send('weather in Paris')
    const turn = await server.send('send 500 to Bob')
    await server.resume(turn.threadId, [{ interruptId: turn.interrupts[0]!.id, approved: true }])
    expect(seen).toEqual([
      { decision: undefined, keys: ['toolCallId', 'signal', 'context'] },
      { decision: 'approved', keys: ['toolCallId', 'signal', 'context', 'decision'], signal: true },
    ])
  })
})
