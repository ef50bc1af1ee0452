import { afterEach, describe, expect, it, vi } from 'vitest'
import { InvalidOptionError } from '@toolgate/ai'
import {
  createChatHandler,
  memoryEventLog,
  memoryStore,
  scriptedModel,
  type ChatEvent,
  type ChatModel,
  type ModelChunk,
  type RunEventLog,
  type ThreadStore,
} from '@toolgate/ai/server'
import { weatherDef } from './fixtures.ts'
import { checkEvent, checkSequence, closeAll, deferred, errorOf, startServer, type TestServer } from './helpers/server.ts'

afterEach(async () => {
  vi.useRealTimers()
  await closeAll()
})

/** One SSE event as sent: its `id` and its parsed `data`. */
interface Frame {
  readonly id: string
  readonly event: ChatEvent
}

/** SSE frames with their ids, read as the test asks: `take(n)` the next n, `rest()` up to the end; `drop()` disconnects. */
function frames(response: Response) {
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  const ready: Frame[] = []
  let buffer = ''
  let done = false
  const fill = async (count: number) => {
    while (ready.length < count && !done) {
      const chunk = await reader.read()
      if (chunk.done) {
        done = true
        break
      }
      buffer += chunk.value
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const id = /^id: (.*)$/m.exec(block)?.[1]
        const data = /^data: (.*)$/m.exec(block)?.[1]
        expect(id, block).toBeDefined()
        ready.push({ id: id!, event: checkEvent(JSON.parse(data!)) })
      }
    }
  }
  return {
    async take(count: number): Promise<Frame[]> {
      await fill(count)
      return ready.splice(0, count)
    },
    async rest(): Promise<Frame[]> {
      await fill(Infinity)
      return ready.splice(0)
    },
    drop: () => reader.cancel().catch(() => {}),
  }
}

/** Every frame of a stream. */
const readFrames = (response: Response) => frames(response).rest()

/** The first `count` frames, then the connection drops. */
async function readFirst(response: Response, count: number): Promise<Frame[]> {
  const stream = frames(response)
  const taken = await stream.take(count)
  await stream.drop()
  return taken
}

const threadOf = (frame: Frame) => (frame.event.type === 'RUN_STARTED' ? frame.event.threadId : '')

/** A model that streams its words one at a time, as many as the test allows (`allow(n)`, `allowAll()`). */
function gatedModel() {
  const words = ['Once ', 'upon ', 'a ', 'time ', 'there ', 'was ', 'a ', 'stream.']
  let allowed = 0
  let wake = deferred()
  const model: ChatModel = {
    async *stream(): AsyncGenerator<ModelChunk> {
      for (const [index, word] of words.entries()) {
        while (allowed <= index) await wake.promise
        yield { type: 'text-delta', delta: word }
      }
      yield { type: 'finish', reason: 'stop' }
    },
  }
  const allow = (count: number) => {
    allowed += count
    const woken = wake
    wake = deferred()
    woken.resolve()
  }
  return { model, allow, allowAll: () => allow(words.length) }
}

function getStream(server: TestServer, query: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}?${query}`, { headers: { accept: 'text/event-stream', ...headers } })
}

function post(server: TestServer, body: unknown): Promise<Response> {
  return server.post(body)
}

const seqOf = (frame: Frame) => Number(frame.id.split(':')[1])

describe('options', () => {
  it('refuses an event log without the RunEventLog methods, and a non-boolean keepRunningOnDisconnect, at construction', () => {
    const model = scriptedModel([])
    expect(() => createChatHandler({ model, eventLog: { append() {} } as never })).toThrow(InvalidOptionError)
    expect(() => createChatHandler({ model, eventLog: { append() {} } as never })).toThrow(/eventLog/)
    expect(() => createChatHandler({ model, keepRunningOnDisconnect: 'yes' as never })).toThrow(/keepRunningOnDisconnect/)
    expect(() => memoryEventLog({ retainMs: 0 })).toThrow(/retainMs/)
  })
})

describe('event ids', () => {
  it('numbers every event of a run `<runId>:<seq>` from 1, the run id being RUN_STARTED’s', async () => {
    const server = await startServer({ model: scriptedModel([{ when: 'hello', reply: 'hi there' }]) })
    const got = await readFrames(await post(server, { message: 'hello' }))
    const started = got[0]!.event
    expect(started.type).toBe('RUN_STARTED')
    const runId = started.type === 'RUN_STARTED' ? started.runId : ''
    expect(got.map((frame) => frame.id)).toEqual(got.map((_, i) => `${runId}:${i + 1}`))
  })
})

describe('GET with Accept: text/event-stream', () => {
  it('answers 204 when no run is active, and the JSON snapshot names no run', async () => {
    const server = await startServer({ model: scriptedModel([{ when: 'hello', reply: 'hi' }]) })
    const turn = await server.send('hello')
    const response = await getStream(server, `threadId=${turn.threadId}`)
    expect(response.status).toBe(204)
    expect(await server.get(turn.threadId)).not.toHaveProperty('runId')
  })

  it('replays a finished run from the start or after any event, then closes', async () => {
    const server = await startServer({ model: scriptedModel([{ when: 'hello', reply: 'hi there, how are you' }]) })
    const live = await readFrames(await post(server, { message: 'hello' }))
    const runId = live[0]!.id.split(':')[0]!
    const threadId = threadOf(live[0]!)

    expect(await readFrames(await getStream(server, `threadId=${threadId}&runId=${runId}&after=0`))).toEqual(live)
    expect(await readFrames(await getStream(server, `threadId=${threadId}&runId=${runId}`))).toEqual(live)
    expect(await readFrames(await getStream(server, `threadId=${threadId}`, { 'last-event-id': live[2]!.id }))).toEqual(live.slice(3))
    expect(await readFrames(await getStream(server, `threadId=${threadId}&runId=${runId}&after=${live.length}`))).toEqual([])
  })

  it('attaches to the active run from its first event and follows it live; the snapshot names the run', async () => {
    const gated = gatedModel()
    const server = await startServer({ model: gated.model })
    const own = frames(await post(server, { message: 'tell me a story' }))
    const head = await own.take(1)
    const threadId = threadOf(head[0]!)
    const runId = head[0]!.id.split(':')[0]!

    const snapshot = await server.get(threadId)
    expect(snapshot).toMatchObject({ status: 'running', runId })

    const attached = readFrames(await getStream(server, `threadId=${threadId}`))
    gated.allowAll()
    const all = await attached
    checkSequence(all.map((frame) => frame.event))
    expect(all.map(seqOf)).toEqual(all.map((_, i) => i + 1))
    expect(all.map((frame) => (frame.event.type === 'TEXT_MESSAGE_CONTENT' ? frame.event.delta : '')).join('')).toBe('Once upon a time there was a stream.')
    expect(all.at(-1)!.event.type).toBe('RUN_FINISHED')
    expect([...head, ...(await own.rest())]).toEqual(all)
    await vi.waitFor(async () => expect((await server.get(threadId)).status).toBe('idle'))
  })

  it('gives a reader that disconnects mid-run and reconnects every event exactly once, in order, with the same ids', async () => {
    const gated = gatedModel()
    const server = await startServer({ model: gated.model, keepRunningOnDisconnect: true })
    // The run's own stream drops after three events, while the model waits.
    gated.allow(2)
    const first = await readFirst(await post(server, { message: 'tell me a story' }), 3)
    expect(first.map(seqOf)).toEqual([1, 2, 3])
    const threadId = threadOf(first[0]!)

    gated.allowAll() // the run goes on without a reader
    await vi.waitFor(async () => expect((await server.get(threadId)).status).toBe('idle'))
    const rest = await readFrames(await getStream(server, `threadId=${threadId}`, { 'last-event-id': first.at(-1)!.id }))
    const all = [...first, ...rest]
    checkSequence(all.map((frame) => frame.event))
    expect(all.map(seqOf)).toEqual(all.map((_, i) => i + 1))
    expect(new Set(all.map((frame) => frame.id)).size).toBe(all.length)
    expect(all.map((frame) => (frame.event.type === 'TEXT_MESSAGE_CONTENT' ? frame.event.delta : '')).join('')).toBe('Once upon a time there was a stream.')
    // What a reader that never dropped saw is the same, id for id.
    const runId = first[0]!.id.split(':')[0]!
    expect(await readFrames(await getStream(server, `threadId=${threadId}&runId=${runId}&after=0`))).toEqual(all)
  })

  it('lets a replay reader drop and reconnect mid-run, live, losing and repeating nothing', async () => {
    const gated = gatedModel()
    const server = await startServer({ model: gated.model })
    const own = frames(await post(server, { message: 'tell me a story' }))
    const head = await own.take(1)
    const threadId = threadOf(head[0]!)

    // A few events, then the reader drops; the run goes on (its own stream is still read).
    gated.allow(3)
    const early = await readFirst(await getStream(server, `threadId=${threadId}`), 4)
    gated.allowAll()
    const rest = await readFrames(await getStream(server, `threadId=${threadId}`, { 'last-event-id': early.at(-1)!.id }))
    const all = [...early, ...rest]
    expect(all).toEqual([...head, ...(await own.rest())])
  })

  it('is served by a second handler instance that shares the store and the event log, live and after the end', async () => {
    const store = memoryStore()
    const eventLog = memoryEventLog()
    const gated = gatedModel()
    const a = await startServer({ model: gated.model, store, eventLog })
    const b = await startServer({ model: gated.model, store, eventLog })
    const own = frames(await post(a, { message: 'tell me a story' }))
    const head = await own.take(1)
    const threadId = threadOf(head[0]!)
    const { runId } = await b.get(threadId)
    expect(runId).toBe(head[0]!.id.split(':')[0])

    const onB = readFrames(await getStream(b, `threadId=${threadId}&runId=${runId}&after=0`))
    gated.allowAll()
    const all = [...head, ...(await own.rest())]
    expect(await onB).toEqual(all)
    expect(await readFrames(await getStream(b, `threadId=${threadId}`, { 'last-event-id': all[4]!.id }))).toEqual(all.slice(5))
  })

  it('refuses unknown runs, other threads’ runs and malformed references', async () => {
    const server = await startServer({ model: scriptedModel([{ when: 'hello', reply: 'hi' }]) })
    const one = await readFrames(await post(server, { message: 'hello' }))
    const two = await server.send('hello')
    const runOfOne = one[0]!.id.split(':')[0]!

    const unknown = await getStream(server, `threadId=${two.threadId}&runId=run_nope&after=0`)
    expect(await errorOf(unknown)).toMatchObject({ status: 404, error: { code: 'RUN_NOT_FOUND', path: 'runId' } })
    const foreign = await getStream(server, `threadId=${two.threadId}`, { 'last-event-id': `${runOfOne}:1` })
    expect(await errorOf(foreign)).toMatchObject({ status: 404, error: { code: 'RUN_NOT_FOUND' } })
    const malformed = await getStream(server, `threadId=${two.threadId}`, { 'last-event-id': 'garbage' })
    expect(await errorOf(malformed)).toMatchObject({ status: 400, error: { code: 'INVALID_REQUEST', path: 'Last-Event-ID' } })
    const badAfter = await getStream(server, `threadId=${two.threadId}&runId=${runOfOne}&after=-1`)
    expect(await errorOf(badAfter)).toMatchObject({ status: 400, error: { code: 'INVALID_REQUEST', path: 'after' } })
    const noThread = await getStream(server, `threadId=thread_nope`)
    expect(await errorOf(noThread)).toMatchObject({ status: 404, error: { code: 'THREAD_NOT_FOUND' } })
  })

  it('asks `authorize` for read access', async () => {
    const seen: string[] = []
    const server = await startServer({
      model: scriptedModel([{ when: 'hello', reply: 'hi' }]),
      authorize: (request, _threadId, { action }) => (seen.push(action), request.headers.get('x-user') !== 'mallory'),
    })
    const one = await readFrames(await post(server, { message: 'hello' }))
    const threadId = threadOf(one[0]!)
    const refused = await getStream(server, `threadId=${threadId}`, { 'last-event-id': one[1]!.id, 'x-user': 'mallory' })
    expect(await errorOf(refused)).toMatchObject({ status: 403, error: { code: 'FORBIDDEN' } })
    expect(seen.at(-1)).toBe('read')
  })

  it('forgets a run’s events once the log’s retention after its end has passed', async () => {
    const server = await startServer({ model: scriptedModel([{ when: 'hello', reply: 'hi' }]), eventLog: memoryEventLog({ retainMs: 1000 }) })
    const got = await readFrames(await post(server, { message: 'hello' }))
    const threadId = threadOf(got[0]!)
    const runId = got[0]!.id.split(':')[0]!
    expect(await readFrames(await getStream(server, `threadId=${threadId}&runId=${runId}`))).toEqual(got)
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 1001)
    expect(await errorOf(await getStream(server, `threadId=${threadId}&runId=${runId}`))).toMatchObject({ status: 404, error: { code: 'RUN_NOT_FOUND' } })
  })
})

describe('a run whose process died', () => {
  const LEASE_MS = 900

  /** Writes what a process killed mid-call leaves: a step with a call recorded as running, a log without an end. */
  async function deadRun(store: ThreadStore, eventLog: RunEventLog) {
    const ran: string[] = []
    const weather = weatherDef.server(async ({ city }) => (ran.push(city), { city, tempC: 4 }))
    const server = await startServer({
      model: scriptedModel([{ when: 'hello', reply: 'hi' }]),
      tools: [weather],
      store,
      eventLog,
      limits: { runLeaseMs: LEASE_MS, toolTimeoutMs: LEASE_MS / 2 },
    })
    const threadId = (await server.send('hello')).threadId
    const head = (await store.head(threadId))!
    const runId = 'run_dead'
    const call = { id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }
    const now = Date.now()
    expect(
      await store.commit({
        head: {
          ...head,
          version: head.version + 1,
          messageCount: head.messageCount + 1,
          step: { message: { role: 'assistant', id: 'msg_a', content: 'Looking', toolCalls: [call] }, results: [], interrupts: [], running: ['call_1'], steps: 1 },
          activeRun: { runId, startedAt: now, renewedAt: now },
        },
        append: [{ role: 'user', id: 'msg_u', content: 'weather in Oslo?' }],
      }),
    ).toBe(true)
    await eventLog.append(runId, [
      { seq: 1, event: { type: 'RUN_STARTED', threadId, runId } },
      { seq: 2, event: { type: 'TEXT_MESSAGE_START', messageId: 'msg_a', role: 'assistant' } },
      { seq: 3, event: { type: 'TEXT_MESSAGE_CONTENT', messageId: 'msg_a', delta: 'Looking' } },
      { seq: 4, event: { type: 'TEXT_MESSAGE_END', messageId: 'msg_a' } },
      { seq: 5, event: { type: 'TOOL_CALL_START', toolCallId: 'call_1', toolCallName: 'get_weather', parentMessageId: 'msg_a' } },
      { seq: 6, event: { type: 'TOOL_CALL_ARGS', toolCallId: 'call_1', delta: '{"city":' } },
    ])
    return { server, threadId, runId, ran }
  }

  it('is ended for its readers once its lease lapses: the open call closes, the started call is reported interrupted, then RUN_ERROR RUN_LOST', async () => {
    const store = memoryStore()
    const eventLog = memoryEventLog()
    const { server, threadId, runId, ran } = await deadRun(store, eventLog)

    const got = await readFrames(await getStream(server, `threadId=${threadId}`))
    checkSequence(got.map((frame) => frame.event))
    expect(got.map(seqOf)).toEqual(got.map((_, i) => i + 1))
    expect(got.slice(6).map((frame) => frame.event)).toEqual([
      { type: 'TOOL_CALL_END', toolCallId: 'call_1' },
      expect.objectContaining({ type: 'TOOL_CALL_RESULT', toolCallId: 'call_1', status: 'error', content: expect.stringMatching(/may or may not have taken effect/) }),
      { type: 'RUN_ERROR', code: 'RUN_LOST', message: expect.stringMatching(/stopped before it finished/) },
    ])
    expect(ran).toEqual([])

    // The thread was taken over with the same result; it is idle and goes on.
    const snapshot = await server.get(threadId)
    expect(snapshot.status).toBe('idle')
    expect(snapshot.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool'])
    expect(snapshot.messages.at(-1)).toMatchObject({ toolCallId: 'call_1', status: 'error' })
    // Every later reader sees the same end, once.
    expect(await readFrames(await getStream(server, `threadId=${threadId}&runId=${runId}`))).toEqual(got)
    expect((await server.send('hello', threadId)).text).toBe('hi')
  })

  it('gives concurrent readers on two instances the same end, written once', async () => {
    const store = memoryStore()
    const eventLog = memoryEventLog()
    const { server, threadId } = await deadRun(store, eventLog)
    const other = await startServer({ model: scriptedModel([]), store, eventLog, limits: { runLeaseMs: LEASE_MS, toolTimeoutMs: LEASE_MS / 2 } })
    const [one, two] = await Promise.all([
      readFrames(await getStream(server, `threadId=${threadId}`)),
      readFrames(await getStream(other, `threadId=${threadId}`)),
    ])
    expect(one).toEqual(two)
    expect(one.filter((frame) => frame.event.type === 'RUN_ERROR')).toHaveLength(1)
    const snapshot = await server.get(threadId)
    expect(snapshot.messages.filter((m) => m.role === 'tool')).toHaveLength(1)
  })
})

