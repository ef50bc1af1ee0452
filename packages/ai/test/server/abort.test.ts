import { afterEach, describe, expect, it, vi } from 'vitest'
import { ModelProviderError } from '@toolgate/ai/providers'
import { type ChatModel } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { type RunEvent } from '@toolgate/ai/protocol'
import { transferDef, weatherDef, weatherTool } from './fixtures.ts'
import { readSse } from './helpers/sse.ts'
import { closeAll, deferred, expectReloadToMatchStream, readTurn, startServer } from './helpers/server.ts'

afterEach(closeAll)

const weatherRule = {
  when: /weather in (\w+)/i,
  call: (m: RegExpMatchArray) => ({ tool: 'get_weather', input: { city: m[1] } }),
  then: ([r]: any[]) => `${r.output?.tempC}`,
}

async function openTurn(url: string, message: string) {
  const controller = new AbortController()
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
    signal: controller.signal,
  })
  const events = readSse(response)
  const first = (await events.next()).value as { threadId: string }
  /** What a client's stop() does: leave the stream, and ask the server to stop the run. */
  const stop = async () => {
    controller.abort()
    const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ threadId: first.threadId, stop: true }) })
    expect(await answer.json()).toEqual({ threadId: first.threadId, stopped: true })
  }
  return { threadId: first.threadId, events, stop, leave: () => controller.abort() }
}

describe('stop', () => {
  it('aborts running tools and leaves a consistent thread', async () => {
    const started = deferred()
    const aborted = deferred()
    const tool = weatherDef.server(
      (_, { signal }) =>
        new Promise<never>(() => {
          signal.addEventListener('abort', () => aborted.resolve())
          started.resolve()
        }),
    )
    const server = await startServer({ model: scriptedModel([weatherRule, { when: 'hello', reply: 'hi' }]), tools: [tool] })
    const turn = await openTurn(server.url, 'weather in Oslo')
    await started.promise
    await turn.stop()
    await aborted.promise

    await vi.waitFor(async () => expect((await server.get(turn.threadId)).status).toBe('idle'))
    const { messages } = await server.get(turn.threadId)
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
    expect(messages[2]).toMatchObject({ status: 'error', content: 'Tool "get_weather" was aborted: the run stopped before it finished; it may still have taken effect' })
    // The step whose tools the stop cut is stored as stopped; a reply that ran to its end is not.
    expect(messages[1]).toMatchObject({ role: 'assistant', stopped: true })
    expect((await server.send('hello', turn.threadId)).text).toBe('hi')
    expect((await server.get(turn.threadId)).messages.at(-1)).not.toHaveProperty('stopped')
  })

  it('ends the step when the model ignores its signal, keeping the text so far', async () => {
    const waiting = deferred()
    // A model that never looks at its signal and never yields again after its first delta.
    const deaf: ChatModel = {
      async *stream() {
        yield { type: 'text-delta', delta: 'Once' }
        waiting.resolve()
        await new Promise<never>(() => {})
      },
    }
    const server = await startServer({ model: deaf })
    const turn = await openTurn(server.url, 'story')
    await turn.events.next() // TEXT_MESSAGE_START
    await turn.events.next() // the delta
    await waiting.promise
    await turn.stop()

    await vi.waitFor(async () => expect((await server.get(turn.threadId)).status).toBe('idle'))
    const { messages } = await server.get(turn.threadId)
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(messages[1]).toMatchObject({ content: 'Once', stopped: true })
  })

  it('ends a later step of the run when the model ignores its signal there', async () => {
    const waiting = deferred()
    // Calls the tool in its first step; in the second it never looks at its signal and never yields again.
    const deafLater: ChatModel = {
      async *stream(request) {
        if (!request.messages.some((message) => message.role === 'tool')) {
          yield { type: 'tool-call-start', toolCallId: 'c1', toolName: 'get_weather' }
          yield { type: 'tool-call-delta', toolCallId: 'c1', delta: '{"city":"Oslo"}' }
          yield { type: 'tool-call-end', toolCallId: 'c1' }
          return
        }
        yield { type: 'text-delta', delta: 'Then' }
        waiting.resolve()
        await new Promise<never>(() => {})
      },
    }
    const server = await startServer({ model: deafLater, tools: [weatherTool] })
    const turn = await openTurn(server.url, 'weather in Oslo')
    await waiting.promise
    await turn.stop()

    await vi.waitFor(async () => expect((await server.get(turn.threadId)).status).toBe('idle'))
    const { messages } = await server.get(turn.threadId)
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(messages[2]).toMatchObject({ status: 'success' })
    expect(messages[3]).toMatchObject({ content: 'Then', stopped: true })
  })

  it('aborts the model stream and keeps the text so far', async () => {
    const signalAborted = deferred()
    const slow = scriptedModel([{ when: 'story', reply: 'Once upon a time there was a very long story that never ends '.repeat(20) }], {
      delayMs: 5,
    })
    const watched: ChatModel = {
      stream(request) {
        request.signal.addEventListener('abort', () => signalAborted.resolve())
        return slow.stream(request)
      },
    }
    const server = await startServer({ model: watched })
    const turn = await openTurn(server.url, 'story')
    await turn.events.next() // TEXT_MESSAGE_START
    await turn.events.next() // first delta
    await turn.stop()
    await signalAborted.promise

    await vi.waitFor(async () => expect((await server.get(turn.threadId)).status).toBe('idle'))
    const { messages } = await server.get(turn.threadId)
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(messages[1]!.content.startsWith('Once')).toBe(true)
    expect(messages[1]!.content.length).toBeLessThan(1200)
    expect(messages[1]).toMatchObject({ role: 'assistant', stopped: true })
  })

  it('leaves every call answered or pending, wherever the stop lands', async () => {
    const tools = [weatherTool, transferDef.server(() => ({ receipt: 'ok' }))]
    const model = scriptedModel([
      {
        when: 'both',
        call: () => [
          { tool: 'get_weather', input: { city: 'Oslo' } },
          { tool: 'transfer_money', input: { to: 'Bob', amount: 500 } },
        ],
        then: () => 'done',
      },
    ])
    const server = await startServer({ model, tools })
    const turn = await openTurn(server.url, 'both')
    turn.leave()
    await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ threadId: turn.threadId, stop: true }) })
    await vi.waitFor(async () => expect((await server.get(turn.threadId)).status).not.toBe('running'))
    const thread = await server.get(turn.threadId)
    const calls = thread.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((c) => c.id) : []))
    const settled = [
      ...thread.messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])),
      ...thread.interrupts.map((i) => i.toolCallId),
    ]
    expect(settled.sort()).toEqual(calls.sort())
  })
})

describe('model failure', () => {
  afterEach(() => vi.restoreAllMocks())

  it('reports a model that throws before streaming as MODEL_ERROR, logging the full error once', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {})
    const broken: ChatModel = {
      stream() {
        throw new Error('no API key')
      },
    }
    const server = await startServer({ model: broken })
    const turn = await readTurn(await server.post({ message: 'hi' }))
    expect(turn.events.at(-1)).toEqual({ type: 'RUN_ERROR', code: 'MODEL_ERROR', message: 'The model failed; see the server log' })
    expect((await server.get(turn.threadId)).status).toBe('idle')
    expect(log).toHaveBeenCalledTimes(1)
    expect(log.mock.calls[0]![1]).toMatchObject({ code: 'MODEL_ERROR', message: 'The model failed: no API key' })
  })

  it('ends the run with RUN_ERROR and releases the thread', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const failing: ChatModel = {
      async *stream() {
        yield { type: 'text-delta', delta: 'Partial ' }
        throw new Error('provider overloaded')
      },
    }
    const server = await startServer({ model: failing })
    const turn = await readTurn(await server.post({ message: 'hi' }))
    expect(turn.events.at(-1)).toEqual({ type: 'RUN_ERROR', code: 'MODEL_ERROR', message: 'The model failed; see the server log' })
    const thread = await server.get(turn.threadId)
    expect(thread.status).toBe('idle')
    expect(thread.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hi'],
      ['assistant', 'Partial '],
    ])
  })

  it("shows the browser a provider error's status and type, never its text; onError gets the whole error", async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {})
    const detail = 'Incorrect API key provided: sk-live-1234****abcd (via http://10.0.0.7:8080/v1)'
    const cause = new ModelProviderError('PROVIDER_HTTP_ERROR', 'OpenAI', `OpenAI answered 401: ${detail}`, { status: 401, type: 'invalid_api_key' })
    const model: ChatModel = {
      async *stream() {
        throw cause
      },
    }
    const reported: { error: unknown; run: { threadId: string; runId: string } }[] = []
    const server = await startServer({ model, onError: (error, run) => reported.push({ error, run }) })
    const turn = await server.send('hi')

    expect(turn.events.at(-1)).toEqual({ type: 'RUN_ERROR', code: 'MODEL_ERROR', message: 'The model provider failed (HTTP 401, invalid_api_key)' })
    expect(JSON.stringify(turn.events)).not.toMatch(/sk-|10\.0\.0\.7|Incorrect/)
    const started = turn.events[0]!
    expect(reported).toEqual([
      {
        error: expect.objectContaining({ code: 'MODEL_ERROR', message: `The model failed: OpenAI answered 401: ${detail}`, cause }),
        run: { threadId: turn.threadId, runId: started.type === 'RUN_STARTED' ? started.runId : '', source: 'run' },
      },
    ])
    expect(log).not.toHaveBeenCalled()
  })

  it.each([
    [new ModelProviderError('PROVIDER_STREAM_ERROR', 'Anthropic', 'Anthropic stream failed: Overloaded', { type: 'overloaded_error' }), 'The model provider failed (overloaded_error)'],
    [new ModelProviderError('PROVIDER_HTTP_ERROR', 'OpenAI', 'OpenAI answered 502: <html>upstream 10.1.2.3</html>', { status: 502, type: 'see <html>' }), 'The model provider failed (HTTP 502)'],
    [new ModelProviderError('PROVIDER_STREAM_ERROR', 'OpenAI', 'OpenAI stream broke: socket hang up'), 'The model provider failed; see the server log'],
    [new ModelProviderError('PROVIDER_NETWORK_ERROR', 'OpenAI', 'OpenAI could not be reached: fetch failed (connect ECONNREFUSED 10.0.0.7:443)'), 'The model provider could not be reached; see the server log'],
  ])('keeps provider text out of RUN_ERROR: %s', async (cause, message) => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const model: ChatModel = {
      async *stream() {
        throw cause
      },
    }
    const server = await startServer({ model })
    expect((await server.send('hi')).events.at(-1)).toEqual({ type: 'RUN_ERROR', code: 'MODEL_ERROR', message })
  })

  it('answers the calls a failing model already made, on the stream and in the stored thread alike', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const ran: unknown[] = []
    const failing: ChatModel = {
      async *stream() {
        yield { type: 'tool-call-start', toolCallId: 'call_a', toolName: 'get_weather' }
        yield { type: 'tool-call-delta', toolCallId: 'call_a', delta: '{"city":"Oslo"}' }
        yield { type: 'tool-call-end', toolCallId: 'call_a' }
        yield { type: 'tool-call-start', toolCallId: 'call_b', toolName: 'get_weather' }
        yield { type: 'tool-call-delta', toolCallId: 'call_b', delta: '{"city":"Ro' }
        throw new Error('connection reset')
      },
    }
    const server = await startServer({ model: failing, tools: [weatherDef.server((input) => (ran.push(input), { city: input.city, tempC: 1 }))] })
    const turn = await server.send('weather')

    expect(turn.types).toEqual([
      'RUN_STARTED',
      ...['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END'],
      ...['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END'],
      'TOOL_CALL_RESULT',
      'TOOL_CALL_RESULT',
      'RUN_ERROR',
    ])
    expect(turn.results.map((r) => [r.toolCallId, r.metadata.status, r.content])).toEqual([
      ['call_a', 'error', 'The run failed before this call finished'],
      ['call_b', 'error', 'The run failed before this call finished'],
    ])
    expect(ran).toEqual([])
    const thread = await server.get(turn.threadId)
    expect(thread.status).toBe('idle')
    expectReloadToMatchStream(thread.messages, turn.events)
    expect(thread.messages[1]).not.toHaveProperty('stopped') // it failed; no one stopped it
  })

  it('keeps the calls the client saw when it stops mid-step, each answered', async () => {
    const ran: unknown[] = []
    const hanging: ChatModel = {
      async *stream({ signal }) {
        yield { type: 'tool-call-start', toolCallId: 'call_a', toolName: 'get_weather' }
        yield { type: 'tool-call-delta', toolCallId: 'call_a', delta: '{"city":"Oslo"}' }
        yield { type: 'tool-call-end', toolCallId: 'call_a' }
        yield { type: 'tool-call-start', toolCallId: 'call_b', toolName: 'get_weather' }
        yield { type: 'tool-call-delta', toolCallId: 'call_b', delta: '{"city":"Ro' }
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))
      },
    }
    const server = await startServer({ model: hanging, tools: [weatherDef.server((input) => (ran.push(input), { city: input.city, tempC: 1 }))] })
    const turn = await openTurn(server.url, 'weather')
    const seen: RunEvent[] = []
    while (!seen.some((event) => event.type === 'TOOL_CALL_ARGS' && event.toolCallId === 'call_b')) {
      seen.push((await turn.events.next()).value as RunEvent)
    }
    await turn.stop()

    await vi.waitFor(async () => expect((await server.get(turn.threadId)).status).toBe('idle'))
    const { messages } = await server.get(turn.threadId)
    expect(messages).toMatchObject([
      { role: 'user', content: 'weather' },
      {
        role: 'assistant',
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { id: 'call_b', name: 'get_weather', arguments: '{"city":"Ro' },
        ],
      },
      { role: 'tool', toolCallId: 'call_a', status: 'error', content: 'The run stopped before this call ran' },
      { role: 'tool', toolCallId: 'call_b', status: 'error', content: 'The run stopped before this call ran' },
    ])
    expect(messages[1]).toMatchObject({ stopped: true })
    expect(ran).toEqual([])
  })

  it('runs an approved tool even when the resume connection drops before it starts: the approval stands', async () => {
    const ran: unknown[] = []
    const transfer = transferDef.server(async (input) => (ran.push(input), { receipt: 'ok' }))
    const model = scriptedModel([
      { when: /send (\d+) to (\w+)/i, call: (m) => ({ tool: 'transfer_money', input: { to: m[2], amount: Number(m[1]) } }), then: ([r]) => r.content },
    ])
    const server = await startServer({ model, tools: [transfer] })
    const turn = await server.send('send 500 to Bob')
    const client = new AbortController()
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: turn.threadId, resume: [{ interruptId: turn.interrupts[0]!.id, approved: true }] }),
      signal: client.signal,
    })
    expect(response.status).toBe(200)
    client.abort()

    await vi.waitFor(async () => expect((await server.get(turn.threadId)).status).toBe('idle'))
    const { messages } = await server.get(turn.threadId)
    expect(ran).toEqual([{ to: 'Bob', amount: 500 }])
    expect(messages.filter((m) => m.role === 'tool')).toMatchObject([{ status: 'success', content: '{"receipt":"ok"}' }])
  })
})
