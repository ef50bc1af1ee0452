import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import { type ChatHandlerOptions, type ChatModel } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { redisStore, type RedisStore } from '@toolgate/ai/server/redis'
import { TEMPS, weatherDef } from '../server/fixtures.ts'
import { reload, shape, ToolgateAgent } from './helpers/agUiPages.ts'
import { closeAll, deferred, startServer, type TestServer } from '../server/helpers/server.ts'
import { startRedis, type RedisServer } from '../services/redis.ts'

// A reloaded AG-UI page (a stock `HttpAgent` whose `connect` sends an input with nothing new, as the
// docs' `ToolgateAgent` does for CopilotKit v2) that lands on another instance than the one running
// the turn: two chat handlers, each with its own clients of one real Redis.

let redis: RedisServer
const clients: { quit(): Promise<unknown> }[] = []
beforeAll(async () => {
  redis = await startRedis()
}, 60_000)
afterEach(async () => {
  await closeAll()
  await Promise.all(clients.splice(0).map((client) => client.quit().catch(() => {})))
})
afterAll(() => redis?.stop())

const story = Array.from({ length: 40 }, (_, i) => `part ${i}. `).join('')
/** Streams for seconds: long enough for a stop to reach the run's instance through the store. */
const longStory = Array.from({ length: 5000 }, (_, i) => `part ${i}. `).join('')
let weather = { started: deferred(), gate: deferred() }
let modelCalls = 0

function model(): ChatModel {
  const scripted = scriptedModel(
    [
      { when: 'weather', call: () => ({ tool: 'get_weather', input: { city: 'Oslo' } }), then: ([r]) => `It is ${JSON.stringify(r.output)}. ${story}` },
      { when: 'hello', reply: 'Hello there.' },
      { when: 'long story', reply: longStory },
    ],
    { delayMs: 1 },
  )
  return { ...scripted, stream: (request) => (modelCalls++, scripted.stream(request)) }
}

let prefixes = 0
/** Two instances of the app on one Redis (each its own client and subscriber, as separate processes have). */
async function twoInstances(options: Partial<ChatHandlerOptions<any>> = {}): Promise<{ a: TestServer; b: TestServer; store: RedisStore }> {
  weather = { started: deferred(), gate: deferred() }
  modelCalls = 0
  const weatherTool = weatherDef.server(async ({ city }) => {
    weather.started.resolve()
    await weather.gate.promise
    return { city, tempC: TEMPS[city] ?? 10 }
  })
  const prefix = `rejoin${prefixes++}:`
  const instance = async () => {
    const client = await createClient({ url: redis.url }).connect()
    const subscriber = await client.duplicate().connect()
    clients.push(subscriber, client)
    const store = redisStore({ client, subscriber, prefix })
    return { server: await startServer({ model: model(), tools: [weatherTool], store, ...options }), store }
  }
  const [a, b] = await Promise.all([instance(), instance()])
  return { a: a.server, b: b.server, store: b.store }
}

const newThread = () => `t-${Math.random().toString(36).slice(2)}`



describe('an AG-UI page that reloads onto another instance (two handlers, one Redis)', () => {
  it('mid-run on A: connecting to B follows the run to its end, each message once; a connect after it ended gets the finished thread', async () => {
    const { a, b } = await twoInstances()
    const threadId = newThread()
    const first = new ToolgateAgent({ url: a.url, threadId })
    first.addMessage({ id: 'u-1', role: 'user', content: 'weather please' })
    let liveRunId: string | undefined
    const live = first.runAgent({}, { onRunStartedEvent: ({ event }) => void (liveRunId = event.runId) })
    await weather.started.promise
    // The tool on A waits until B's reader is connected: the rest of the run reaches B through Redis.
    const again = await reload(b, threadId, () => weather.gate.resolve())
    await live
    const thread = (await b.get(threadId)).messages
    expect(thread.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(again.events.filter((event) => event.type === 'RUN_STARTED').map((event) => (event as { runId?: string }).runId)).toContain(liveRunId)
    expect(again.types.at(-1)).toBe('RUN_FINISHED')
    expect(again.types).not.toContain('RUN_ERROR')
    // Each message once, as stored, and as the page that ran the turn holds them.
    expect(again.agent.messages.map((message) => message.id)).toEqual(thread.map((message) => message.id))
    expect(shape(again.agent.messages)).toEqual(shape(first.messages))
    expect((again.agent.messages.at(-1)?.content as string).endsWith(story)).toBe(true)
    // Each text once: the deltas the page got add up to the reply, not to twice it.
    const deltas = again.events.flatMap((event) => (event.type === 'TEXT_MESSAGE_CONTENT' ? [(event as unknown as { delta: string }).delta] : []))
    expect(deltas.join('')).toBe(again.agent.messages.at(-1)?.content)
    expect(modelCalls).toBe(2) // both on A: the model step that called the tool, then the reply

    // The run is over: another reload on B gets the finished thread, nothing more.
    const later = await reload(b, threadId)
    expect(later.types).toEqual(['RUN_STARTED', 'MESSAGES_SNAPSHOT', 'RUN_FINISHED'])
    expect(later.agent.messages.map((message) => message.id)).toEqual(thread.map((message) => message.id))
    expect(shape(later.agent.messages)).toEqual(shape(first.messages))
    // And the page goes on, on B.
    later.agent.addMessage({ id: 'u-2', role: 'user', content: 'hello' })
    await later.agent.runAgent({})
    expect(later.agent.messages.at(-1)?.content).toBe('Hello there.')
  })

  it('a new message on B while the run streams on A supersedes it: A stops where it is (asked through the store), B answers', async () => {
    const { a, b } = await twoInstances()
    const threadId = `t-${Math.random().toString(36).slice(2)}`
    const onA = new ToolgateAgent({ url: a.url, threadId })
    onA.addMessage({ id: 'u-1', role: 'user', content: 'a long story please' })
    let aborted = false
    await onA.runAgent({}, {
      onTextMessageContentEvent: ({ textMessageBuffer }) => {
        if (!aborted && textMessageBuffer.includes('part 3.')) {
          aborted = true
          onA.abortRun() // the page stops reading; the run goes on on A
        }
      },
    })
    // The page's next request lands on B, with the history it holds (the reply cut short).
    const onB = new ToolgateAgent({ url: b.url, threadId, initialMessages: onA.messages })
    onB.addMessage({ id: 'u-2', role: 'user', content: 'hello' })
    await onB.runAgent({})
    expect(onB.messages.at(-1)?.content).toBe('Hello there.')
    const stored = (await b.get(threadId)).messages
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(stored[1]).toMatchObject({ stopped: true })
    expect((stored[1] as { content: string }).content.length).toBeLessThan(longStory.length)
  }, 30_000) // a bound for the stop to cross the store on a busy machine, not a measure of its speed

  it("a run whose instance died (its lease lapsed): B's rejoin continues the turn, as a reader attaching does", async () => {
    const { b, threadId } = await deadRunOnA()
    const again = await reload(b, threadId, undefined, ada)
    expect(again.types).not.toContain('RUN_ERROR')
    expect(modelCalls).toBe(1)
    const thread = (await b.get(threadId, ada)).messages
    expect(thread.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(thread.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello there.' })
    expect((await b.get(threadId, ada)).status).toBe('idle')
    expect(again.agent.messages.map((message) => message.id)).toEqual(thread.map((message) => message.id))
    expect(again.agent.messages.at(-1)?.content).toBe('Hello there.')
  })

  it('a run whose instance died, and a page that may only read: told that a writer must continue it; nothing is written', async () => {
    const { b, store, threadId } = await deadRunOnA()
    const before = await store.head(threadId)
    const again = await reload(b, threadId, undefined, viewer)
    // The thread as stored (the turn's user message included), then the run's loss and why.
    expect(again.types).toEqual(['RUN_STARTED', 'MESSAGES_SNAPSHOT', 'RUN_FINISHED', 'RUN_ERROR'])
    expect(again.events.at(-1)).toMatchObject({ code: 'RUN_LOST', message: expect.stringMatching(/may write/) })
    expect(again.agent.messages.map((message) => message.id)).toEqual((await b.get(threadId, ada)).messages.map((message) => message.id))
    expect(modelCalls).toBe(0)
    expect(await store.head(threadId)).toEqual(before)
  })
})

const LEASE_MS = 1000
const ada = { 'x-user': 'ada' }
const viewer = { 'x-user': 'viewer' }

/** Ada writes; the viewer may only read. */
function authorize(request: Request, _threadId: string, { action }: { action: string }): boolean {
  const user = request.headers.get('x-user')
  return user === 'ada' || (user === 'viewer' && action === 'read')
}

/** What A leaves when it is killed right after claiming a turn: the user's message, the run's first event logged, and a lease no one renews. */
async function deadRunOnA() {
  const instances = await twoInstances({ authorize, limits: { runLeaseMs: LEASE_MS, toolTimeoutMs: LEASE_MS / 2 } })
  const { a, store } = instances
  const threadId = newThread()
  const started = new ToolgateAgent({ url: a.url, threadId, headers: ada })
  started.addMessage({ id: 'u-1', role: 'user', content: 'hello' })
  await started.runAgent({})
  const head = (await store.head(threadId))!
  const lapsed = Date.now() - 10 * LEASE_MS
  const user = { role: 'user' as const, id: 'msg_dead', content: 'hello again' }
  const activeRun = { runId: 'run_dead', startedAt: lapsed, renewedAt: lapsed, fromMessage: head.messageCount + 1 }
  expect(await store.commit({ head: { ...head, version: head.version + 1, messageCount: head.messageCount + 1, activeRun }, append: [user] })).toBe(true)
  await store.events.append('run_dead', [{ seq: 1, data: JSON.stringify({ type: 'RUN_STARTED', threadId, runId: 'run_dead' }) }], false)
  modelCalls = 0
  return { ...instances, threadId }
}
