import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import pg from 'pg'
import { type ChatModel, StoreError, type ThreadCommit, type ThreadStore } from '@toolgate/ai/server'
import { type ThreadMessage, type ThreadSnapshot } from '@toolgate/ai/protocol'
import { redisStore } from '@toolgate/ai/server/redis'
import { postgresStore } from '@toolgate/ai/server/postgres'
import { transferDef, weatherTool } from './fixtures.ts'
import { stored } from './helpers/store.ts'
import { closeAll, deferred, readTurn, startServer, type TestServer } from './helpers/server.ts'
import { readSse } from './helpers/sse.ts'
import { startRedis, type RedisServer } from '../services/redis.ts'
import { startPostgres, type PostgresServer } from '../services/postgres.ts'

// An instance keeps the threads it wrote last, with their history, and claims such a thread on the
// head it wrote (the store writes the claim only on that very head). Whatever other instances do
// meanwhile, every model call must see exactly the stored history: a wrong cache would show the
// model a wrong one.

afterEach(closeAll)

let redis: RedisServer
let postgres: PostgresServer
const closers: (() => Promise<unknown>)[] = []
beforeAll(async () => {
  ;[redis, postgres] = await Promise.all([startRedis(), startPostgres()])
}, 60_000)
afterAll(async () => {
  for (const close of closers) await close().catch(() => {})
  await redis?.stop()
  await postgres?.stop()
})

/**
 * What a store sends its server, counted as the stores bench counts it: commands by kind, and
 * round trips of the thread (a command sent while none was in flight; those sent alongside share its wait).
 */
class Wire {
  readonly kinds = new Map<string, number>()
  roundTrips = 0
  #inFlight = 0
  async track<T>(kind: string, send: () => Promise<T>): Promise<T> {
    this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1)
    if (this.#inFlight++ === 0) this.roundTrips++
    try {
      return await send()
    } finally {
      this.#inFlight--
    }
  }
  reset(): void {
    this.kinds.clear()
    this.roundTrips = 0
  }
}

interface Backend {
  readonly name: 'redis' | 'postgres'
  /** A store on a connection of its own (an instance of its own), its thread traffic counted by `wire`. */
  store(wire?: Wire): Promise<ThreadStore>
  /** Removes the thread as its expiry would (Redis: the keys go; PostgreSQL: the row's time is up). */
  expire(threadId: string): Promise<void>
  /** The command that reads a history. */
  readonly historyRead: string
}

let tables = 0
async function redisBackend(): Promise<Backend> {
  const prefix = `cache${++tables}:`
  return {
    name: 'redis',
    historyRead: 'LRANGE',
    async store(wire) {
      const client = await createClient({ url: redis.url }).connect()
      closers.push(() => client.quit())
      // A run's event log (its writes name their keys at [3], a reader's reads at [1]; its first
      // write also sets the run's index, `{runId}:thread`) is not the thread's traffic, nor is a
      // script's load (once per connection, before its first use).
      const logged = (args: string[]) => args[0] === 'SCRIPT' || /:(log|events|end)$/.test(args[3] ?? '') || /:(log|events|end|thread)$/.test(args[1] ?? '')
      const counted = wire ? { sendCommand: (args: string[]) => (logged(args) ? client.sendCommand(args) : wire.track(args[0]!, () => client.sendCommand(args))) } : client
      return redisStore({ client: counted, prefix })
    },
    async expire(threadId) {
      const client = await createClient({ url: redis.url }).connect()
      await client.del([`${prefix}{${threadId}}:head`, `${prefix}{${threadId}}:messages`, `${prefix}{${threadId}}:decisions`])
      await client.quit()
    },
  }
}
async function postgresBackend(): Promise<Backend> {
  const table = `cache${++tables}`
  const admin = new pg.Pool({ connectionString: postgres.connectionString, max: 2 })
  closers.push(() => admin.end())
  await postgresStore({ pool: admin, table }).ensureSchema()
  return {
    name: 'postgres',
    historyRead: `SELECT ${table}_messages`,
    async store(wire) {
      const pool = new pg.Pool({ connectionString: postgres.connectionString, max: 4 })
      closers.push(() => pool.end())
      if (!wire) return postgresStore({ pool, table })
      return postgresStore({
        table,
        namedStatements: true,
        pool: {
          query: (statement: string | { text: string }, values?: unknown[]) => {
            const text = typeof statement === 'string' ? statement : statement.text
            const kind = `${/^\s*(\w+)/.exec(text)?.[1]?.toUpperCase()} ${/\b(?:FROM|INTO|UPDATE)\s+(\w+)/i.exec(text)?.[1] ?? ''}`
            const send = () => pool.query(statement as string, values)
            // The log's writes and the wake-ups sent after commits (pg_notify) hold up no read.
            return /_runs?\b|_run_events\b|_run_log\b/.test(kind) || text.includes('pg_notify') ? send() : wire.track(kind, send)
          },
        },
      })
    },
    async expire(threadId) {
      await admin.query(`UPDATE ${table}_threads SET expires_at = now() - interval '1 second' WHERE id = $1`, [threadId])
    },
  }
}

/** The tool call a user message asks for, by a word in it (the first that matches); any other message gets a reply. */
const CALLS_ASKED: readonly { word: RegExp; toolName: string; args: string }[] = [
  { word: /pay/, toolName: 'transfer_money', args: '{"to":"Ann","amount":500}' },
  { word: /plan/, toolName: 'confirm_plan', args: '{"plan":"ship"}' },
  { word: /weather/, toolName: 'get_weather', args: '{"city":"Oslo"}' },
]

/** A model that records the messages of every call: a message naming the weather (or paying, or a plan) gets a tool call, then a reply. */
function recordingModel() {
  const calls: ThreadMessage[][] = []
  const model: ChatModel = {
    async *stream(request) {
      calls.push(structuredClone(request.messages) as ThreadMessage[])
      const last = request.messages.at(-1)!
      const asked = last.role === 'user' ? CALLS_ASKED.find(({ word }) => word.test(JSON.stringify(last.content))) : undefined
      if (asked) {
        const id = `call_${calls.length}`
        yield { type: 'tool-call-start', toolCallId: id, toolName: asked.toolName }
        yield { type: 'tool-call-delta', toolCallId: id, delta: asked.args }
        yield { type: 'tool-call-end', toolCallId: id }
        yield { type: 'finish', reason: 'tool_calls' }
        return
      }
      yield { type: 'text-delta', delta: `reply ${calls.length}` }
      yield { type: 'finish', reason: 'stop' }
    },
  }
  return { model, calls }
}

/** Instance `a` (its thread traffic counted by `wire`) and instance `b`, both with `model` on the backend's store, and an observer of that store. */
async function twoInstances(shared: Backend, model: ChatModel) {
  const wire = new Wire()
  const [a, b, observer] = [await instance(await shared.store(wire), model), await instance(await shared.store(), model), await shared.store()]
  return { wire, a, b, observer }
}

let runs = 0
/** An AG-UI client's run input: `messages` as it holds them, `tools` the frontend tools it declares. */
const runInput = (threadId: string, messages: readonly unknown[], tools: readonly unknown[] = []) =>
  ({ threadId, runId: `r${++runs}`, messages, tools, context: [], state: {}, forwardedProps: {} })
/** An AG-UI client's run that sends only its new message (a client with no history of the thread yet: it gets the stored one). */
const aguiInput = (threadId: string, content: string, history: readonly unknown[] = []) => runInput(threadId, [...history, { id: `u-r${runs + 1}`, role: 'user', content }])

/** A frontend tool an AG-UI client declares (and the server accepts: `frontendTools`): the model's "plan" calls it. */
const confirmPlan = { name: 'confirm_plan', description: 'Asks the user to confirm a plan', parameters: { type: 'object', properties: { plan: { type: 'string' } } } }

/** The stored thread as an AG-UI client that got every event holds it (CopilotKit sends it all with every run). */
const asAgUiHistory = (messages: readonly ThreadMessage[]) =>
  messages.map((message) =>
    message.role === 'user'
      ? { id: message.id, role: 'user', content: message.content }
      : message.role === 'tool'
        ? { id: message.id, role: 'tool', toolCallId: message.toolCallId, content: message.content }
        : {
            id: message.id,
            role: 'assistant',
            ...(message.content === '' ? {} : { content: message.content }),
            ...(message.toolCalls.length > 0 ? { toolCalls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) } : {}),
          },
  )

const transfer = transferDef.server(async ({ to }) => ({ receipt: `r-${to}` }))
const instance = (store: ThreadStore, model: ChatModel) => startServer({ model, tools: [weatherTool, transfer], store })

/**
 * Sends `message` and checks what the model was given against the store: every call of the turn saw
 * the stored history as it then was (a prefix of the thread as stored after the turn), starting with this message.
 */
async function turnSeeingStoredHistory(
  server: TestServer,
  calls: ThreadMessage[][],
  observer: ThreadStore,
  message: string,
  threadId?: string,
  agui = false,
  history?: readonly unknown[],
): Promise<string> {
  const before = calls.length
  const turn = agui ? await readTurn(await server.post(aguiInput(threadId!, message, history))) : await server.send(message, threadId)
  expect(turn.finished, JSON.stringify(turn.body ?? turn.types)).toBeDefined()
  // A client that sent the whole stored history is in step: no snapshot.
  if (history) expect(turn.types).not.toContain('MESSAGES_SNAPSHOT')
  const thread = await stored(observer, turn.threadId)
  expect(calls.length).toBeGreaterThan(before)
  const first = calls[before]!
  expect(first.at(-1)).toMatchObject({ role: 'user', content: message })
  for (const call of calls.slice(before)) expect(call).toEqual(thread!.messages.slice(0, call.length))
  return turn.threadId
}

describe.each([
  ['redis', redisBackend],
  ['postgres', postgresBackend],
])('the thread cache on %s', (_, backend) => {
  it('two instances alternating turns on one thread: every model call sees exactly the stored history', async () => {
    const shared = await backend()
    const { model, calls } = recordingModel()
    const [a, b, observer] = [await instance(await shared.store(), model), await instance(await shared.store(), model), await shared.store()]
    const threadId = await turnSeeingStoredHistory(a, calls, observer, 'one')
    // a wrote last twice in a row (a hit), then b, a, b, b…: each instance's cache goes stale every other turn.
    const order: [TestServer, string][] = [[a, 'two: weather?'], [b, 'three'], [a, 'four'], [a, 'five: weather?'], [b, 'six'], [b, 'seven: weather?'], [a, 'eight'], [b, 'nine']]
    for (const [server, message] of order) await turnSeeingStoredHistory(server, calls, observer, message, threadId)
    const thread = await stored(observer, threadId)
    expect(thread!.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['one', ...order.map(([, message]) => message)])
  })

  // An AG-UI run reads the head first: its history is the cache's only if that head is the very head kept.
  it.each([
    ['a message', false],
    ['an AG-UI run', true],
  ])('never serves a thread made again under the same id (after it expired) from the cache: %s', async (_, agui) => {
    const shared = await backend()
    const { model, calls } = recordingModel()
    const [a, b, observer] = [await instance(await shared.store(), model), await instance(await shared.store(), model), await shared.store()]
    const threadId = `again-${shared.name}-${agui}`
    await turnSeeingStoredHistory(a, calls, observer, 'old one', threadId, true)
    await turnSeeingStoredHistory(a, calls, observer, 'old two', threadId)
    await shared.expire(threadId)
    await new Promise((resolve) => setTimeout(resolve, 5)) // another createdAt
    // Made again by the other instance, to the very version and message count the first one keeps.
    await turnSeeingStoredHistory(b, calls, observer, 'new one', threadId, true)
    await turnSeeingStoredHistory(b, calls, observer, 'new two', threadId)
    expect((await stored(observer, threadId))!.head).toMatchObject({ version: 4, messageCount: 4 })
    // A read on the first instance sees the new thread, though its cache keeps a head of that very version and count.
    expect((await a.get(threadId)).messages.map((message) => message.content)).toEqual(['new one', 'reply 3', 'new two', 'reply 4'])
    await turnSeeingStoredHistory(a, calls, observer, 'new three', threadId, agui)
    expect(calls.at(-1)!.map((message) => message.content)).toEqual(['new one', 'reply 3', 'new two', 'reply 4', 'new three'])
  })

  it('does not bring back a thread that expired after this instance wrote it', async () => {
    const shared = await backend()
    const { model, calls } = recordingModel()
    const [a, observer] = [await instance(await shared.store(), model), await shared.store()]
    const threadId = await turnSeeingStoredHistory(a, calls, observer, 'one')
    await turnSeeingStoredHistory(a, calls, observer, 'two', threadId)
    await shared.expire(threadId)
    const refused = await a.send('three', threadId)
    expect(refused.status).toBe(404)
    expect(await observer.head(threadId)).toBeUndefined()
  })

  it('resumes on the head it wrote: answers given on either instance, every model call sees exactly the stored history', async () => {
    const shared = await backend()
    const { model, calls } = recordingModel()
    const { wire, a, b, observer } = await twoInstances(shared, model)
    const asked = async (server: TestServer, message: string, threadId?: string) => {
      const turn = await server.send(message, threadId)
      expect(turn.interrupts, JSON.stringify(turn.body ?? turn.types)).toHaveLength(1)
      return turn
    }
    const approved = async (server: TestServer, threadId: string, interruptId: string) => {
      const before = calls.length
      wire.reset()
      const turn = await server.resume(threadId, [{ interruptId, approved: true }])
      expect(turn.finished, JSON.stringify(turn.body ?? turn.types)).toBeDefined()
      const thread = await stored(observer, threadId)
      expect(calls.length).toBe(before + 1)
      expect(calls.at(-1)!.at(-1)).toMatchObject({ role: 'tool' })
      expect(calls.at(-1)).toEqual(thread!.messages.slice(0, calls.at(-1)!.length))
      return { historyReads: wire.kinds.get(shared.historyRead) ?? 0, roundTrips: wire.roundTrips }
    }
    const first = await asked(a, 'pay one')
    const { threadId } = first
    expect((await approved(a, threadId, first.interrupts[0]!.id)).historyReads, 'a resume on the head this instance wrote reads no history').toBe(0)
    const second = await asked(b, 'pay two', threadId)
    const miss = await approved(a, threadId, second.interrupts[0]!.id)
    expect(miss.historyReads).toBe(1)
    const third = await asked(a, 'pay three', threadId)
    await approved(b, threadId, third.interrupts[0]!.id)
    const fourth = await asked(a, 'pay four', threadId)
    const hit = await approved(a, threadId, fourth.interrupts[0]!.id)
    expect(hit.historyReads).toBe(0)
    // On Redis (one connection, answers in order) the counts are exact: the hit waits for the claim
    // (the head read alongside), the running mark and the release, and for no head read before them.
    if (shared.name === 'redis') expect(hit.roundTrips).toBe(3)
    const thread = await stored(observer, threadId)
    expect(thread!.messages.filter((message) => message.role === 'tool')).toHaveLength(4)
  })

  it('drops what it keeps when a commit fails: a commit that did not land, and one that landed unanswered; later turns see the stored history', async () => {
    const shared = await backend()
    const { model, calls } = recordingModel()
    const wire = new Wire()
    const inner = await shared.store(wire)
    let failing: 'before' | 'after' | undefined
    const isRelease = (commit: ThreadCommit) => commit.head.activeRun === undefined && commit.append.some((message) => message.role === 'assistant')
    const store: ThreadStore = {
      ...inner,
      async commit(commit) {
        const mode = failing && isRelease(commit) ? failing : undefined
        if (mode) failing = undefined
        if (mode === 'before') throw new StoreError('testStore', 'commit', new Error('injected: no connection'))
        const written = await inner.commit(commit)
        if (mode === 'after') throw new StoreError('testStore', 'commit', new Error('injected: the answer was lost'))
        return written
      },
    }
    const [a, observer] = [await instance(store, model), await shared.store()]
    const threadId = await turnSeeingStoredHistory(a, calls, observer, 'one')
    await turnSeeingStoredHistory(a, calls, observer, 'two', threadId)
    // The release fails once without landing: the run fails, and its own retry lands the release with its reply.
    failing = 'before'
    expect((await a.send('three', threadId)).types).toContain('RUN_ERROR')
    wire.reset()
    await turnSeeingStoredHistory(a, calls, observer, 'four', threadId)
    expect(wire.kinds.get(shared.historyRead), 'the turn after a failed commit reads the history').toBe(1)
    // The release lands, and its answer is lost: the run fails, and the thread holds its reply.
    failing = 'after'
    expect((await a.send('five', threadId)).types).toContain('RUN_ERROR')
    await turnSeeingStoredHistory(a, calls, observer, 'six', threadId)
    expect(calls.at(-1)!.map((message) => message.content)).toEqual(['one', 'reply 1', 'two', 'reply 2', 'three', 'reply 3', 'four', 'reply 4', 'five', 'reply 5', 'six'])
  })

  it('saves a round trip on the instance that wrote last, with no history read; a miss costs what a turn cost before', async () => {
    const shared = await backend()
    const { model, calls } = recordingModel()
    const { wire, a, b, observer } = await twoInstances(shared, model)
    const threadId = await turnSeeingStoredHistory(a, calls, observer, 'one: weather?')
    // Before the cache, a next turn waited for 4 in a row: a head read, the claim (the history read
    // alongside), the running mark and the release (sent behind the closed step).
    const counts = await hitsAndMisses(wire, shared.historyRead, (server, message) => turnSeeingStoredHistory(server, calls, observer, message, threadId), a, b)
    expectRoundTrips(shared.name, counts, { hit: 3, miss: 4 })
  })

  it('an AG-UI next turn sending its whole history waits for what a Toolgate turn does, its history checked on the cached history; a miss costs what it did before', async () => {
    const shared = await backend()
    const { model, calls } = recordingModel()
    const { wire, a, b, observer } = await twoInstances(shared, model)
    const threadId = `agui-turns-${shared.name}`
    await turnSeeingStoredHistory(a, calls, observer, 'one: weather?', threadId, true)
    const aguiTurn = async (server: TestServer, message: string) =>
      void (await turnSeeingStoredHistory(server, calls, observer, message, threadId, true, asAgUiHistory((await stored(observer, threadId))!.messages)))
    // Before, an AG-UI next turn read the head, then the history (its check of the client's), then
    // waited for what a Toolgate turn does: 5 in a row on the instance that wrote last, as on a miss.
    const counts = await hitsAndMisses(wire, shared.historyRead, aguiTurn, a, b)
    expectRoundTrips(shared.name, counts, { hit: 3, miss: 5 })
  })

  // A read's head always comes from the store (only the store knows whether another instance wrote
  // since); the history that head counts comes from the cache when the head is the very head kept.
  it('GET reads the stored head and, on the instance that wrote last, the history from its cache; another instance’s write is seen', async () => {
    const shared = await backend()
    const { model, calls } = recordingModel()
    const { wire, a, b, observer } = await twoInstances(shared, model)
    const threadId = await turnSeeingStoredHistory(a, calls, observer, 'one')
    const read = async () => {
      const whole = await a.get(threadId)
      const page = (await (await fetch(`${a.url}?threadId=${threadId}&limit=2`)).json()) as ThreadSnapshot
      const thread = (await stored(observer, threadId))!
      expect(whole.messages).toEqual(thread.messages)
      expect(page.messages).toEqual(thread.messages.slice(-2))
      expect(page.window).toEqual({ from: thread.messages.length - 2, total: thread.messages.length })
    }
    // Before, each of the two reads waited for 2 in a row (the head, then the messages) on a hit as on a miss.
    const counts = await readsAfterWrites(wire, shared.historyRead, read, (server, message) => turnSeeingStoredHistory(server, calls, observer, message, threadId), a, b)
    printRoundTrips(`${shared.name} GET (whole + page)`, counts)
    expectRoundTrips(shared.name, counts, { hit: 2, miss: 4 }, 2)
  })

  it('an AG-UI connect (nothing new) answers the stored thread from one head read, its history from the cache on the instance that wrote last', async () => {
    const shared = await backend()
    const { model, calls } = recordingModel()
    const { wire, a, b, observer } = await twoInstances(shared, model)
    const threadId = `agui-connect-${shared.name}`
    await turnSeeingStoredHistory(a, calls, observer, 'one', threadId, true)
    const connect = async () => {
      const thread = (await stored(observer, threadId))!
      const turn = await readTurn(await a.post(runInput(threadId, asAgUiHistory(thread.messages))))
      expect(turn.finished?.outcome, JSON.stringify(turn.body ?? turn.types)).toEqual({ type: 'success' })
      const snapshot = turn.events.find((event) => event.type === 'MESSAGES_SNAPSHOT')
      expect(snapshot && 'messages' in snapshot ? snapshot.messages.map((message) => message.id) : undefined).toEqual(thread.messages.map((message) => message.id))
    }
    // Before, a connect read the head three times (rejoin, resume, connect) and then the history: 4 in a row.
    const counts = await readsAfterWrites(wire, shared.historyRead, connect, (server, message) => turnSeeingStoredHistory(server, calls, observer, message, threadId, true), a, b)
    printRoundTrips(`${shared.name} AG-UI connect`, counts)
    expectRoundTrips(shared.name, counts, { hit: 1, miss: 2 })
  })

  it('an AG-UI connect mid-run on the instance running the run rejoins it from one head read, the thread as the run began from its cache', async () => {
    const shared = await backend()
    const { model: recording, calls } = recordingModel()
    let held = { started: deferred(), gate: deferred() }
    // A run whose message says "slow" waits at its model call, after its claim landed: nothing of it is in flight.
    const model: ChatModel = {
      async *stream(request) {
        if (/slow/.test(JSON.stringify(request.messages.at(-1)))) {
          held.started.resolve()
          await held.gate.promise
        }
        yield* recording.stream(request)
      },
    }
    const { wire, a, b, observer } = await twoInstances(shared, model)
    const threadId = `agui-midrun-${shared.name}`
    await turnSeeingStoredHistory(a, calls, observer, 'one', threadId, true)
    const counts: Counted[] = []
    for (const server of [a, a, b]) {
      held = { started: deferred(), gate: deferred() }
      const running = server.post(aguiInput(threadId, 'slow one'))
      await held.started.promise
      await new Promise((resolve) => setTimeout(resolve, 20))
      const thread = (await stored(observer, threadId))!
      wire.reset()
      const rejoined = await a.post(runInput(threadId, asAgUiHistory(thread.messages.slice(0, -1))))
      // Counted once the response starts: the reads it waits for are done, and the run it follows is still held.
      counts.push({ roundTrips: wire.roundTrips, historyReads: wire.kinds.get(shared.historyRead) ?? 0 })
      held.gate.resolve()
      const events: { type: string; messages?: { id: string }[]; delta?: string }[] = []
      for await (const data of readSse(rejoined)) events.push(data as (typeof events)[number])
      await readTurn(await running)
      // The thread as the run began (its message included), then the run's events to its end.
      const snapshot = events.find((event) => event.type === 'MESSAGES_SNAPSHOT')
      expect(snapshot?.messages?.map((message) => message.id)).toEqual(thread.messages.slice(0, thread.head.activeRun!.fromMessage).map((message) => message.id))
      expect(events.at(-1)?.type).toBe('RUN_FINISHED')
      expect(events.map((event) => event.delta ?? '').join('')).toBe(`reply ${calls.length}`)
    }
    const line = counts.map((one) => `${one.roundTrips}/${one.historyReads}`).join(' ')
    console.log(`${shared.name} AG-UI connect mid-run: round trips/history reads: run on a ${line.split(' ').slice(0, 2).join(' ')}; run on b ${line.split(' ')[2]}`)
    // Before, 3 in a row (a head read to rejoin, another to follow the run, the history) wherever the run was.
    expect(counts.map((one) => one.historyReads)).toEqual([0, 0, 1])
    if (shared.name === 'redis') expect(counts.map((one) => one.roundTrips)).toEqual([1, 1, 2])
  })

  it('an AG-UI input with nothing new whose tool messages answer a frontend call is claimed on the cached head; a miss answers as before', async () => {
    const shared = await backend()
    const { model, calls } = recordingModel()
    const wire = new Wire()
    const frontend = async (store: ThreadStore) => startServer({ model, tools: [weatherTool, transfer], store, frontendTools: ['confirm_plan'] })
    const [a, b, observer] = [await frontend(await shared.store(wire)), await frontend(await shared.store()), await shared.store()]
    const threadId = `agui-answers-${shared.name}`
    const input = (messages: readonly unknown[]) => runInput(threadId, messages, [confirmPlan])
    const planned = async (server: TestServer, message: string) => {
      const thread = await stored(observer, threadId)
      const turn = await readTurn(await server.post(input([...asAgUiHistory(thread?.messages ?? []), { id: `u-${++runs}`, role: 'user', content: `plan: ${message}` }])))
      // The call waits for the browser: the run ends `success` (the client derives `pendingToolCallIds` from the calls it was told).
      expect(turn.finished, JSON.stringify(turn.body ?? turn.types)).toMatchObject({ outcome: { type: 'success' } })
      const after = (await stored(observer, threadId))!
      expect(after.head.step?.message.toolCalls.map((call) => call.name), JSON.stringify(after)).toEqual(['confirm_plan'])
    }
    // The client's answer, then a message of no turn (a system note it keeps): nothing new, so the
    // input is a connect unless its `tool` message answers a call the thread waits for. It does.
    const answered = async () => {
      const { head, messages } = (await stored(observer, threadId))!
      const callId = head.step!.message.toolCalls[0]!.id
      const history = asAgUiHistory([...messages, head.step!.message])
      const before = calls.length
      const turn = await readTurn(await a.post(input([...history, { id: `tm-${callId}`, role: 'tool', toolCallId: callId, content: '"ok"' }, { id: `s-${callId}`, role: 'system', content: 'note' }])))
      expect(turn.finished, JSON.stringify(turn.body ?? turn.types)).toMatchObject({ outcome: { type: 'success' } })
      expect(calls.length).toBe(before + 1)
      const thread = (await stored(observer, threadId))!
      expect(thread.head.step).toBeUndefined()
      expect(calls.at(-1)).toEqual(thread.messages.slice(0, calls.at(-1)!.length))
      expect(calls.at(-1)!.at(-1)).toMatchObject({ role: 'tool', toolCallId: callId })
    }
    await planned(a, 'plan zero')
    await answered()
    const counts = await readsAfterWrites(wire, shared.historyRead, answered, planned, a, b, 1)
    printRoundTrips(`${shared.name} AG-UI tool messages with nothing new`, counts)
    // Before, 4 in a row on a hit (a head read to rejoin, another to tell a connect from answers, the
    // claim, the release) and 6 on a miss (the claim went on from the cached head and missed).
    expectRoundTrips(shared.name, counts, { hit: 3, miss: 5 })
  })

  it('an AG-UI input with nothing new claimed on the cached head, whose calls another instance answered meanwhile, is a connect, as before the cache', async () => {
    const shared = await backend()
    const { model, calls } = recordingModel()
    const inner = await shared.store()
    /** Runs once, right after the next head read of `a` is answered: another instance's write between two reads of one request. */
    let afterHeadRead: (() => Promise<unknown>) | undefined
    const racing: ThreadStore = {
      ...inner,
      async head(threadId) {
        const head = await inner.head(threadId)
        const hook = afterHeadRead
        afterHeadRead = undefined
        await hook?.()
        return head
      },
    }
    const frontend = (store: ThreadStore) => startServer({ model, tools: [weatherTool, transfer], store, frontendTools: ['confirm_plan'] })
    const [a, b, observer] = [await frontend(racing), await frontend(await shared.store()), await shared.store()]
    const threadId = `agui-raced-${shared.name}`
    const input = (messages: readonly unknown[]) => runInput(threadId, messages, [confirmPlan])
    expect((await readTurn(await a.post(input([{ id: 'u-raced', role: 'user', content: 'plan it' }])))).finished).toBeDefined()
    const { head, messages } = (await stored(observer, threadId))!
    const callId = head.step!.message.toolCalls[0]!.id
    const answer = input([...asAgUiHistory([...messages, head.step!.message]), { id: `tm-${callId}`, role: 'tool', toolCallId: callId, content: '"ok"' }, { id: 's-raced', role: 'system', content: 'note' }])
    // `a` reads the head (it waits for the answer), then `b` takes the same answer and finishes its run.
    afterHeadRead = async () => expect((await readTurn(await b.post(answer))).finished).toMatchObject({ outcome: { type: 'success' } })
    const turn = await readTurn(await a.post(answer))
    expect(turn.types, JSON.stringify(turn.body)).toEqual(['RUN_STARTED', 'MESSAGES_SNAPSHOT', 'RUN_FINISHED'])
    const thread = (await stored(observer, threadId))!
    const snapshot = turn.events.find((event) => event.type === 'MESSAGES_SNAPSHOT')
    expect(snapshot && 'messages' in snapshot ? snapshot.messages.map((message) => message.id) : undefined).toEqual(thread.messages.map((message) => message.id))
    expect(calls).toHaveLength(2) // the plan, and b's continued turn: the answer ran once
    expect(thread.messages.filter((message) => message.role === 'tool')).toHaveLength(1)
  })

  it('an AG-UI run on a thread this instance wrote, which expired since, makes it again (a thread it creates)', async () => {
    const shared = await backend()
    const { model, calls } = recordingModel()
    const actions: string[] = []
    let contexts = 0
    const a = await startServer({
      model,
      tools: [weatherTool, transfer],
      store: await shared.store(),
      authorize: (_request, _threadId, { action }) => (actions.push(action), true),
      context: () => (contexts++, {}),
    })
    const observer = await shared.store()
    const threadId = `agui-expired-${shared.name}`
    await turnSeeingStoredHistory(a, calls, observer, 'old one', threadId, true)
    await turnSeeingStoredHistory(a, calls, observer, 'old two', threadId, true, asAgUiHistory((await stored(observer, threadId))!.messages))
    await shared.expire(threadId)
    contexts = 0
    await turnSeeingStoredHistory(a, calls, observer, 'new one', threadId, true)
    expect(calls.at(-1)!.map((message) => message.content)).toEqual(['new one'])
    expect(contexts, 'the app’s context is resolved once for the request').toBe(1)
    // The run on the thread the cache knew was authorized to write it; the one that made it again, to create it.
    expect(actions).toEqual(['create', 'write', 'write', 'create'])
    expect((await stored(observer, threadId))!.head).toMatchObject({ version: 2, messageCount: 2 })
  })
})

describe('postgresStore: a commit sent behind one on another pool connection', () => {
  it('is tried again once the one it follows lands, when the server took it first', async () => {
    const table = `behind${++tables}`
    const pool = new pg.Pool({ connectionString: postgres.connectionString, max: 4 })
    closers.push(() => pool.end())
    let delayed = 0
    // The first write's statement leaves late: the one sent behind it reaches the server first.
    const late = {
      query: (statement: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
        const given = values ?? (typeof statement === 'string' ? undefined : statement.values)
        const slow = /(?:INSERT INTO|UPDATE) behind\d+_threads/.test(typeof statement === 'string' ? statement : statement.text) && given?.[1] === 2 && delayed++ === 0
        return slow ? new Promise((resolve) => setTimeout(resolve, 50)).then(() => pool.query(statement as string, values)) : pool.query(statement as string, values)
      },
    }
    const store = postgresStore({ pool: late, table, namedStatements: true })
    await store.ensureSchema()
    const user = (id: string): ThreadMessage => ({ role: 'user', id, content: id })
    const head = (version: number, messageCount: number) => ({ id: 'behind', version, createdAt: 1, updatedAt: version, messageCount, bytes: 0, resolvedInterruptIds: [] })
    expect(await store.commit({ head: head(1, 1), append: [user('m1')] })).toBe(true)
    const first = head(2, 2)
    const sent = store.commit({ head: first, append: [user('m2')], follows: head(1, 1) })
    const behind = store.commit({ head: head(3, 3), append: [user('m3')], follows: first })
    expect(await Promise.all([sent, behind])).toEqual([true, true])
    expect(delayed).toBe(1)
    expect((await store.messages('behind', 0, 5)).map((message) => message.id)).toEqual(['m1', 'm2', 'm3'])
  })
})

describe('the thread cache’s bound', () => {
  it('keeps the 1,000 threads written last: the least recently used one’s next turn reads its history again', async () => {
    const shared = await redisBackend()
    const { model, calls } = recordingModel()
    const wire = new Wire()
    const [a, observer] = [await instance(await shared.store(wire), model), await shared.store()]
    const oldest = await turnSeeingStoredHistory(a, calls, observer, 'first')
    const threads: string[] = []
    for (let batch = 0; batch < 125; batch++) threads.push(...(await Promise.all(Array.from({ length: 8 }, async () => (await a.send('another')).threadId))))
    const historyReads = async (threadId: string) => {
      wire.reset()
      await turnSeeingStoredHistory(a, calls, observer, 'again', threadId)
      return wire.kinds.get(shared.historyRead) ?? 0
    }
    // 1,000 threads written since: the first is gone, the last still kept.
    expect(await historyReads(threads.at(-1)!)).toBe(0)
    expect(await historyReads(oldest)).toBe(1)
  }, 60_000)

  it('keeps 16 MB of stored messages: of three threads of 6 MB, the least recently used one’s next turn reads its history again', async () => {
    const shared = await redisBackend()
    const { model, calls } = recordingModel()
    const wire = new Wire()
    // Limits that let one user message fill a thread with 6 MB (far from the 1,000 threads the count allows).
    const limits = { maxBodyBytes: 7 * 1024 * 1024, maxMessageBytes: 7 * 1024 * 1024 }
    const a = await startServer({ model, tools: [weatherTool, transfer], store: await shared.store(wire), limits })
    const observer = await shared.store()
    const large = (word: string) => `${word}: ${'x'.repeat(6 * 1024 * 1024)}`
    const threads: string[] = []
    for (const word of ['first', 'second', 'third']) threads.push(await turnSeeingStoredHistory(a, calls, observer, large(word)))
    const historyReads = async (threadId: string) => {
      wire.reset()
      await turnSeeingStoredHistory(a, calls, observer, 'again', threadId)
      return wire.kinds.get(shared.historyRead) ?? 0
    }
    // 18 MB written: the first thread went to make room, the two written after it are kept.
    expect(await historyReads(threads[2]!)).toBe(0)
    expect(await historyReads(threads[1]!)).toBe(0)
    expect(await historyReads(threads[0]!)).toBe(1)
  }, 60_000)
})

interface Counted {
  readonly roundTrips: number
  readonly historyReads: number
}

/**
 * Two rounds of: two turns on `a`, the instance that wrote the thread last (hits), a turn on `b`,
 * then one on `a` again (a miss), each counted on `a`'s wire once the writes behind the last turn landed.
 */
async function hitsAndMisses(wire: Wire, historyRead: string, turn: (server: TestServer, message: string) => Promise<unknown>, a: TestServer, b: TestServer) {
  const counted = async (message: string): Promise<Counted> => {
    await new Promise((resolve) => setTimeout(resolve, 20)) // writes behind the last turn's response land
    wire.reset() // the turn's own reads of the thread go through an observer's store, not on this wire
    await turn(a, message)
    await new Promise((resolve) => setTimeout(resolve, 20))
    return { roundTrips: wire.roundTrips, historyReads: wire.kinds.get(historyRead) ?? 0 }
  }
  const hits: Counted[] = []
  const misses: Counted[] = []
  for (const round of [1, 2]) {
    hits.push(await counted(`hit ${round}: weather?`), await counted(`hit ${round} again: weather?`))
    await turn(b, `other ${round}: weather?`)
    misses.push(await counted(`miss ${round}: weather?`))
  }
  return { hits, misses }
}

/**
 * Two rounds of: writes on `a` each followed by reads on `a` (two hits: the thread's head is the one `a`
 * wrote), a write on `b` then a read on `a` (a miss), each read counted on `a`'s wire once the writes behind it landed.
 */
async function readsAfterWrites(
  wire: Wire,
  historyRead: string,
  read: () => Promise<unknown>,
  write: (server: TestServer, message: string) => Promise<unknown>,
  a: TestServer,
  b: TestServer,
  /** Reads after each write: 1 for a read that answers what the write left (a write before each of the two hits). */
  readsPerWrite: 1 | 2 = 2,
) {
  const counted = async (): Promise<Counted> => {
    await new Promise((resolve) => setTimeout(resolve, 20))
    wire.reset()
    await read()
    return { roundTrips: wire.roundTrips, historyReads: wire.kinds.get(historyRead) ?? 0 }
  }
  const hits: Counted[] = []
  const misses: Counted[] = []
  for (const round of [1, 2]) {
    for (let write_ = 0; write_ < 2 / readsPerWrite; write_++) {
      await write(a, `by a ${round}.${write_}`)
      for (let read_ = 0; read_ < readsPerWrite; read_++) hits.push(await counted())
    }
    await write(b, `by b ${round}`)
    misses.push(await counted())
  }
  return { hits, misses }
}

/** Round trips in a row and history reads, one line (`{round trips}/{history reads}` per hit and per miss). */
function printRoundTrips(what: string, { hits, misses }: { hits: readonly Counted[]; misses: readonly Counted[] }) {
  const line = (counted: readonly Counted[]) => counted.map((one) => `${one.roundTrips}/${one.historyReads}`).join(' ')
  console.log(`${what}: round trips/history reads: hits ${line(hits)}; misses ${line(misses)}`)
}

/** Hits read no history and wait for `hit` round trips in a row; misses read it `reads` times and wait for `miss`. */
function expectRoundTrips(store: string, { hits, misses }: { hits: readonly Counted[]; misses: readonly Counted[] }, expected: { hit: number; miss: number }, reads = 1) {
  expect(hits.map((hit) => hit.historyReads)).toEqual([0, 0, 0, 0])
  expect(misses.map((miss) => miss.historyReads)).toEqual([reads, reads])
  if (store === 'redis') {
    expect(hits.map((hit) => hit.roundTrips)).toEqual([expected.hit, expected.hit, expected.hit, expected.hit])
    expect(misses.map((miss) => miss.roundTrips)).toEqual([expected.miss, expected.miss])
  } else {
    // The pool may send a write on another connection than the one it follows, and the server may
    // take it first: it is then made again, one more round trip (as before the cache; on a loaded
    // machine it happened in every miss of a run). A read the turn does not wait for may still be
    // answered when a write leaves: they count as one.
    expect(Math.min(...hits.map((hit) => hit.roundTrips))).toBeLessThanOrEqual(expected.hit)
    expect(Math.min(...misses.map((miss) => miss.roundTrips))).toBeLessThanOrEqual(expected.miss + 1)
  }
}
