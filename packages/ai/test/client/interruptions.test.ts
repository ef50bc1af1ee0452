import { describe, expect, it, vi } from 'vitest'
import { createChatClient, type ChatState, type ToolCallPart } from '@toolgate/ai/client'
import { type ChatModel, createChatHandler, memoryStore, type ModelChunk } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { stored } from '../server/helpers/store.ts'
import {
  clientOn,
  deferred,
  gatedModel,
  holdingFetch,
  inProcess,
  location,
  runEnded,
  texts,
  toolCalls,
  transfer,
  transferServer,
  weather,
  weatherServer,
} from './helpers.ts'

// Runs cut short by the user (stop, a new message, a reload) or by a failure, and what becomes of
// their calls and of the answers the browser had not sent yet. Every test runs the real handler.

const STOPPED = 'Stopped before it finished'

/** Yields `chunks` on its first call and then hangs until aborted (or throws `failure`); later calls reply `Hi.` */
function firstRunHangs(chunks: readonly ModelChunk[], failure?: Error): ChatModel {
  let calls = 0
  return {
    async *stream({ signal }) {
      if (calls++ > 0) {
        yield { type: 'text-delta', delta: 'Hi.' }
        yield { type: 'finish', reason: 'stop' }
        return
      }
      yield* chunks
      if (failure) throw failure
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
    },
  }
}

const streamingCall: ModelChunk[] = [
  { type: 'text-delta', delta: 'Checking.' },
  { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'get_weather' },
  { type: 'tool-call-delta', toolCallId: 'call_1', delta: '{"city": "Pa' },
]

function callOf(state: ChatState, toolCallId: string): ToolCallPart | undefined {
  return toolCalls(state).find((part) => part.toolCallId === toolCallId)
}

describe('calls cut short', () => {
  it('stop() ends a call whose arguments were streaming; a later load() shows what the server kept', async () => {
    const store = memoryStore()
    const gated = gatedModel(streamingCall)
    const client = clientOn({ model: gated, tools: [weatherServer], store }, { tools: [weather] })
    const done = client.send('weather in Paris')
    await vi.waitFor(() => expect(callOf(client.getSnapshot(), 'call_1')).toMatchObject({ state: 'input-streaming', input: { city: 'Pa' } }))

    client.stop()
    await done
    const stopped = client.getSnapshot()
    expect(stopped.status).toBe('idle')
    expect(callOf(stopped, 'call_1')).toMatchObject({ state: 'output-error', error: STOPPED, input: { city: 'Pa' } })

    await gated.aborted
    const threadId = stopped.threadId!
    await runEnded(store, threadId)
    await client.load()
    const fresh = createChatClient({ endpoint: '/chat', fetch: inProcess(createChatHandler({ model: gated, tools: [weatherServer], store })), tools: [weather] })
    await fresh.load(threadId)
    expect(client.getSnapshot().messages).toEqual(fresh.getSnapshot().messages)
    expect(client.getSnapshot().status).toBe('idle')
  })

  it('stop() ends a server call still executing', async () => {
    const started = deferred<void>()
    const slow = weather.server(
      (_input, ctx) =>
        new Promise<never>((_, reject) => {
          started.resolve()
          ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })
        }),
    )
    const model = scriptedModel([{ when: /weather/i, call: () => ({ tool: 'get_weather', input: { city: 'Oslo' } }), then: () => 'Done.' }])
    const client = clientOn({ model, tools: [slow] }, { tools: [weather] })
    const done = client.send('weather please')
    await started.promise
    await vi.waitFor(() => expect(toolCalls(client.getSnapshot())[0]).toMatchObject({ state: 'input-available' }))

    client.stop()
    await done
    expect(client.getSnapshot().status).toBe('idle')
    expect(toolCalls(client.getSnapshot())[0]).toMatchObject({ state: 'output-error', error: STOPPED, input: { city: 'Oslo' } })
  })

  it('a new message ends the calls of the run it interrupts', async () => {
    const client = clientOn({ model: firstRunHangs(streamingCall), tools: [weatherServer] }, { tools: [weather] })
    void client.send('weather in Paris')
    await vi.waitFor(() => expect(callOf(client.getSnapshot(), 'call_1')?.state).toBe('input-streaming'))

    await client.send('never mind')
    const state = client.getSnapshot()
    expect(state).toMatchObject({ status: 'idle', error: undefined })
    expect(callOf(state, 'call_1')).toMatchObject({ state: 'output-error', error: STOPPED })
    expect(texts(state).at(-1)).toBe('assistant: Hi.')
  })

  it('load() ends the calls of the run it interrupts, even when the load fails', async () => {
    const client = clientOn({ model: firstRunHangs(streamingCall), tools: [weatherServer] }, { tools: [weather] })
    void client.send('weather in Paris')
    await vi.waitFor(() => expect(callOf(client.getSnapshot(), 'call_1')?.state).toBe('input-streaming'))

    await client.load('thread_missing')
    const state = client.getSnapshot()
    expect(state).toMatchObject({ status: 'error', error: { code: 'THREAD_NOT_FOUND' } })
    expect(callOf(state, 'call_1')).toMatchObject({ state: 'output-error', error: STOPPED })
  })

  it('a failed run leaves no call open; a reload shows what the server kept', async () => {
    const store = memoryStore()
    const server = { model: firstRunHangs(streamingCall, new Error('overloaded')), tools: [weatherServer], store }
    const client = clientOn(server, { tools: [weather] })
    await client.send('weather in Paris')
    const failed = client.getSnapshot()
    expect(failed).toMatchObject({ status: 'error', error: { code: 'MODEL_ERROR' } })
    // The server's own result for the call when it sends one, else the failure (protocol.test.ts tells the two apart).
    expect(callOf(failed, 'call_1')).toMatchObject({ state: 'output-error', error: expect.any(String), input: { city: 'Pa' } })

    await runEnded(store, failed.threadId!)
    await client.load()
    const fresh = clientOn(server, { tools: [weather] })
    await fresh.load(failed.threadId)
    expect(client.getSnapshot().messages).toEqual(fresh.getSnapshot().messages)
  })

  it('stop() leaves the approvals of the pause as they are, answered or not', async () => {
    const model = scriptedModel([
      {
        when: /two transfers/i,
        call: () => [
          { tool: 'transfer_money', input: { to: 'Ann', amount: 200 } },
          { tool: 'transfer_money', input: { to: 'Bob', amount: 300 } },
        ],
        then: (results) => results.map((r) => `${(r.input as { to: string }).to}: ${r.status}`).join(', '),
      },
    ])
    const client = clientOn({ model, tools: [transferServer] }, { tools: [transfer] })
    await client.send('two transfers please')
    const [ann, bob] = client.getSnapshot().pendingApprovals
    await client.approve(ann!.toolCallId) // stored; the batch waits for Bob

    client.stop()
    const stopped = client.getSnapshot()
    expect(stopped.status).toBe('awaiting-approval')
    expect(toolCalls(stopped).map((part) => part.state)).toEqual(['executing', 'approval-requested'])

    await client.deny(bob!.toolCallId)
    expect(texts(client.getSnapshot()).at(-1)).toBe('assistant: Ann: success, Bob: denied')
  })

  it('stop() lets the user give again an approval it had not sent yet', async () => {
    const model = scriptedModel([
      {
        when: /two transfers/i,
        call: () => [
          { tool: 'transfer_money', input: { to: 'Ann', amount: 200 } },
          { tool: 'transfer_money', input: { to: 'Bob', amount: 300 } },
        ],
        then: (results) => results.map((r) => `${(r.input as { to: string }).to}: ${r.status}`).join(', '),
      },
    ])
    let resumes = 0
    const { fetch, held } = holdingFetch(createChatHandler({ model, tools: [transferServer] }), (body) => 'resume' in body && resumes++ === 0)
    const client = createChatClient({ endpoint: '/chat', fetch, tools: [transfer], scheduleNotify: (flush) => flush() })
    await client.send('two transfers please')
    const [ann, bob] = client.getSnapshot().pendingApprovals
    void client.approve(ann!.toolCallId) // the server stores it; its answer is held back
    await vi.waitFor(() => expect(held).toHaveLength(1))
    void client.approve(bob!.toolCallId) // queued behind the request in flight

    client.stop()
    const stopped = client.getSnapshot()
    expect(stopped.status).toBe('awaiting-approval')
    expect(stopped.pendingApprovals.map((part) => part.toolCallId)).toEqual([bob!.toolCallId])
    expect(toolCalls(stopped).map((part) => part.state)).toEqual(['executing', 'approval-requested'])

    await client.approve(bob!.toolCallId)
    expect(texts(client.getSnapshot()).at(-1)).toBe('assistant: Ann: success, Bob: success')
    expect(client.getSnapshot().status).toBe('idle')
  })
})

describe('results not yet sent when the user sends a message', () => {
  const model = scriptedModel([
    {
      when: /both/i,
      call: () => [
        { tool: 'get_location', input: {} },
        { tool: 'get_location', input: { precise: true } },
      ],
      then: (results) => results.map((r) => (r.ok ? r.output.city : r.status)).join(' | '),
    },
    { when: /hello/i, reply: 'Hi there.' },
  ], { tools: [location] })

  it('reach the server first, so it records that the tool ran; the run they resume gives way to the message', async () => {
    const store = memoryStore()
    const handler = createChatHandler({ model, tools: [location], store })
    let resumes = 0
    const { fetch, bodies, held } = holdingFetch(handler, (body) => 'resume' in body && resumes++ === 0)
    const second = deferred<{ city: string }>()
    const tool = location.client(({ precise }) => (precise ? second.promise : { city: 'Peru' }))
    const client = createChatClient({ endpoint: '/chat', fetch, tools: [tool], scheduleNotify: (flush) => flush() })

    void client.send('both please')
    await vi.waitFor(() => expect(held).toHaveLength(1)) // the first result is stored; its answer is held back
    second.resolve({ city: 'Lima' }) // e.g. copied to the clipboard: it really ran
    await vi.waitFor(() => expect(toolCalls(client.getSnapshot())[1]).toMatchObject({ state: 'output-available' }))

    await client.send('hello')
    const state = client.getSnapshot()
    expect(state).toMatchObject({ status: 'idle', error: undefined })
    expect(toolCalls(state).map((part) => part.state)).toEqual(['output-available', 'output-available'])
    expect(texts(state).at(-1)).toBe('assistant: Hi there.')
    const resumed = bodies.findIndex((body) => body.resume?.[0]?.output?.city === 'Lima')
    expect(resumed).toBeGreaterThan(0)
    expect(bodies.findIndex((body) => body.message === 'hello')).toBeGreaterThan(resumed)

    // The server recorded both results as the tool's output, and the model read them.
    await runEnded(store, state.threadId!)
    const thread = (await stored(store, state.threadId!))!
    expect(thread.messages.filter((message) => message.role === 'tool').map((message) => message.status)).toEqual(['success', 'success'])
    const fresh = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), tools: [location] })
    await fresh.load(state.threadId)
    expect(toolCalls(fresh.getSnapshot()).map((part) => part.state === 'output-available' && part.output)).toEqual([{ city: 'Peru' }, { city: 'Lima' }])
  })
})

describe('results not yet sent when the page loads the thread again', () => {
  const model = scriptedModel([
    {
      when: /both/i,
      call: () => [
        { tool: 'get_location', input: {} },
        { tool: 'get_location', input: { precise: true } },
      ],
      then: (results) => results.map((r) => (r.ok ? r.output.city : r.status)).join(' | '),
    },
    { when: /hello/i, reply: 'Hi there.' },
  ], { tools: [location] })

  /** Both calls finish in the browser; the first answer's response is held, so the second stays queued. */
  async function queuedResult() {
    const store = memoryStore()
    const handler = createChatHandler({ model, tools: [location], store })
    let resumes = 0
    const { fetch, bodies, held } = holdingFetch(handler, (body) => body?.resume !== undefined && resumes++ === 0)
    const runs: boolean[] = []
    const tool = location.client(({ precise }) => (runs.push(precise ?? false), { city: precise ? 'Lima' : 'Peru' }))
    const client = createChatClient({ endpoint: '/chat', fetch, tools: [tool], scheduleNotify: (flush) => flush() })
    void client.send('both please')
    await vi.waitFor(() => expect(held).toHaveLength(1)) // the first result is stored; its answer is held back
    await vi.waitFor(() => expect(toolCalls(client.getSnapshot())[1]).toMatchObject({ state: 'output-available' }))
    expect(bodies.filter((body) => body?.resume)).toHaveLength(1) // the second waits behind it
    return { store, handler, client, bodies, runs }
  }

  it('are delivered after load(), so the tool does not run twice', async () => {
    const { client, bodies, runs } = await queuedResult()
    await client.load()
    const state = client.getSnapshot()
    expect(state).toMatchObject({ status: 'idle', error: undefined })
    expect(texts(state).at(-1)).toBe('assistant: Peru | Lima')
    expect(toolCalls(state).map((part) => part.state === 'output-available' && part.output)).toEqual([{ city: 'Peru' }, { city: 'Lima' }])
    expect(runs).toEqual([false, true])
    expect(bodies.filter((body) => body?.resume).map((body) => body.resume.map((answer: any) => answer.output))).toEqual([
      [{ city: 'Peru' }],
      [{ city: 'Lima' }],
    ])
  })

  it('are dropped when the loaded thread no longer waits for them', async () => {
    const { store, handler, client, bodies, runs } = await queuedResult()
    const threadId = client.getSnapshot().threadId!
    // Another tab moved on meanwhile: its message settled the batch.
    const other = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), tools: [location] })
    await other.load(threadId)
    await other.send('hello')
    await runEnded(store, threadId)

    const sent = bodies.length
    await client.load()
    const state = client.getSnapshot()
    expect(state).toMatchObject({ status: 'idle', error: undefined })
    expect(texts(state).at(-1)).toBe('assistant: Hi there.')
    expect(bodies.slice(sent).filter((body) => body?.resume)).toEqual([])
    expect(runs).toEqual([false, true])
  })
})
