import { afterEach, describe, expect, it, vi } from 'vitest'
import { scriptedModel, type ChatModel } from '@toolgate/ai/server'
import { transferDef, weatherDef, weatherTool } from './fixtures.ts'
import { readSse } from './helpers/sse.ts'
import { closeAll, deferred, readTurn, startServer } from './helpers/server.ts'

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
  return { threadId: first.threadId, events, abort: () => controller.abort() }
}

describe('client disconnect', () => {
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
    turn.abort()
    await aborted.promise

    await vi.waitFor(async () => expect((await server.get(turn.threadId)).status).toBe('idle'))
    const { messages } = await server.get(turn.threadId)
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
    expect(messages[2]).toMatchObject({ status: 'error', content: 'Tool "get_weather" was aborted: the run stopped before it finished' })
    expect((await server.send('hello', turn.threadId)).text).toBe('hi')
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
    turn.abort()
    await signalAborted.promise

    await vi.waitFor(async () => expect((await server.get(turn.threadId)).status).toBe('idle'))
    const { messages } = await server.get(turn.threadId)
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(messages[1]!.content.startsWith('Once')).toBe(true)
    expect(messages[1]!.content.length).toBeLessThan(1200)
  })

  it('leaves every call answered or pending, wherever the disconnect lands', async () => {
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
    turn.abort()
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
  it('reports a model that throws before streaming as MODEL_ERROR', async () => {
    const broken: ChatModel = {
      stream() {
        throw new Error('no API key')
      },
    }
    const server = await startServer({ model: broken })
    const turn = await readTurn(await server.post({ message: 'hi' }))
    expect(turn.events.at(-1)).toEqual({ type: 'RUN_ERROR', code: 'MODEL_ERROR', message: 'The model failed: no API key' })
    expect((await server.get(turn.threadId)).status).toBe('idle')
  })

  it('ends the run with RUN_ERROR and releases the thread', async () => {
    const failing: ChatModel = {
      async *stream() {
        yield { type: 'text-delta', delta: 'Partial ' }
        throw new Error('provider overloaded')
      },
    }
    const server = await startServer({ model: failing })
    const turn = await readTurn(await server.post({ message: 'hi' }))
    expect(turn.events.at(-1)).toEqual({ type: 'RUN_ERROR', code: 'MODEL_ERROR', message: 'The model failed: provider overloaded' })
    const thread = await server.get(turn.threadId)
    expect(thread.status).toBe('idle')
    expect(thread.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hi'],
      ['assistant', 'Partial '],
    ])
  })
})
