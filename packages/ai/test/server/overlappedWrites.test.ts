import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import pg from 'pg'
import { memoryStore, StoreError, type ChatModel, type ThreadCommit, type ThreadStore } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'
import { postgresStore } from '@toolgate/ai/server/postgres'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { weatherTool } from './fixtures.ts'
import { expectReleasedAfterStoreError, stored } from './helpers/store.ts'
import { closeAll, deferred, startServer } from './helpers/server.ts'
import { startRedis, type RedisServer } from '../services/redis.ts'
import { startPostgres, type PostgresServer } from '../services/postgres.ts'

// A run does not wait for the write of a closed step (its calls and their results) before the next
// model call, and sends its next write behind it. Neither may cost a guarantee: a write that fails
// fails the run (and ends the model call it overlapped), and a write sent behind one that another
// writer got ahead of (a stop request from another instance) is never taken for its successor.

afterEach(closeAll)

// One PostgreSQL server for the file; each describe makes its own tables.
let postgres: PostgresServer
let pool: pg.Pool
beforeAll(async () => {
  postgres = await startPostgres()
  pool = new pg.Pool({ connectionString: postgres.connectionString, max: 8 })
}, 60_000)
afterAll(async () => {
  await pool?.end()
  await postgres?.stop()
})

const isClosedStep = (commit: ThreadCommit) => commit.head.activeRun !== undefined && commit.append.some((message) => message.role === 'tool')

const weatherRule = {
  when: /weather in (\w+)/i,
  call: (m: RegExpMatchArray) => ({ tool: 'get_weather', input: { city: m[1] } }),
  then: ([r]: any[]) => `It is ${r.output?.tempC} degrees`,
}

/**
 * The weather model reading the network, as a provider's does: each call gets its answer a turn of
 * the event loop later. (A call that needs no I/O ends before the closed step is sent, and its
 * write carries the closed step: nothing overlaps then; groupedWrites.test.ts covers that.)
 */
function networkModel(): ChatModel {
  const scripted = scriptedModel([weatherRule])
  return {
    async *stream(request) {
      await new Promise((resolve) => setImmediate(resolve))
      yield* scripted.stream(request)
    },
  }
}

/**
 * Commits from the first that `hold` picks wait, in order, until `open()`: another writer can get
 * ahead of them. `held` says the thread, `behind` that a second commit waits behind the first.
 */
function heldStore(inner: ThreadStore, hold: (commit: ThreadCommit) => boolean) {
  const held = deferred<string>()
  const behind = deferred()
  let waiting = 0
  let gate: Promise<void> | undefined
  let open!: () => void
  const store: ThreadStore = {
    ...inner,
    commit(commit) {
      if (!gate && hold(commit)) {
        gate = new Promise((resolve) => (open = resolve))
        held.resolve(commit.head.id)
      }
      if (gate && ++waiting === 2) behind.resolve()
      return gate ? gate.then(() => inner.commit(commit)) : inner.commit(commit)
    },
  }
  return { store, held: held.promise, behind: behind.promise, open: () => open() }
}

describe('a closed step written while the next model call runs', () => {
  it('fails the run when that write fails: the model call is aborted, nothing it said is kept, and the tool’s result is stored once', async () => {
    const secondCall = deferred()
    const aborted = deferred()
    let calls = 0
    const model: ChatModel = {
      async *stream(request) {
        calls += 1
        if (calls === 1) {
          yield { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'get_weather' }
          yield { type: 'tool-call-delta', toolCallId: 'call_1', delta: '{"city":"Oslo"}' }
          yield { type: 'tool-call-end', toolCallId: 'call_1' }
          yield { type: 'finish', reason: 'tool_calls' }
          return
        }
        yield { type: 'text-delta', delta: 'It is ' }
        secondCall.resolve()
        // A model that streams until it is told to stop.
        await new Promise<void>((resolve) => request.signal.addEventListener('abort', () => resolve(), { once: true }))
        aborted.resolve()
        yield { type: 'text-delta', delta: 'cold' }
        yield { type: 'finish', reason: 'stop' }
      },
    }
    const inner = memoryStore()
    let failed = 0
    const store: ThreadStore = {
      ...inner,
      async commit(commit) {
        if (failed === 0 && isClosedStep(commit)) {
          failed += 1
          // The store answers only once the next model call is under way, and with a failure.
          await secondCall.promise
          throw new StoreError('testStore', 'commit', new Error('injected: the store did not answer in time'))
        }
        return inner.commit(commit)
      },
    }
    const server = await startServer({ model, tools: [weatherTool], store })
    const turn = await server.send('weather in Oslo')
    await aborted.promise
    expect(turn.types).toContain('RUN_ERROR')
    expect(turn.types).not.toContain('RUN_FINISHED')
    expect(turn.events.find((event) => event.type === 'RUN_ERROR')).toMatchObject({ code: 'STORE_ERROR' })
    // The step and its result, stored by the failed run's release; the aborted call's words are not.
    const thread = await expectReleasedAfterStoreError(store, turn.threadId, ['user', 'assistant', 'tool'])
    expect(thread.messages[2]).toMatchObject({ toolCallId: 'call_1', status: 'success' })
  })
})

describe('a write asked while the one before it is unanswered, on a store that does not pipeline (memory)', () => {
  it('is sent only once that one lands, made of the head it leaves: every commit lands, one version after the last', async () => {
    // The closed step is held; the model's next call ends meanwhile and the run asks for its release.
    const { store: held, held: threadIdOf, open } = heldStore(memoryStore(), isClosedStep)
    const commits: { version: number; landed: boolean }[] = []
    const store: ThreadStore = {
      ...held,
      async commit(commit) {
        const landed = await held.commit(commit)
        commits.push({ version: commit.head.version, landed })
        return landed
      },
    }
    const scripted = networkModel()
    const secondCallDone = deferred()
    let calls = 0
    const model: ChatModel = {
      async *stream(request) {
        const call = ++calls
        yield* scripted.stream(request)
        if (call === 2) secondCallDone.resolve()
      },
    }
    const server = await startServer({ model, tools: [weatherTool], store })
    const turn = server.send('weather in Oslo')
    const threadId = await threadIdOf
    await secondCallDone.promise
    // Let the run ask for its release (a few event-loop turns: nothing else here waits).
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    const beforeOpen = commits.length
    open()
    const done = await turn
    expect(done.types).not.toContain('RUN_ERROR')
    expect(done.text).toBe('It is 4 degrees')
    // Nothing reached the store while the closed step was held: the release waited for it.
    expect(commits.slice(beforeOpen).map((commit) => commit.landed)).toEqual([true, true])
    expect(commits.every((commit) => commit.landed)).toBe(true)
    expect(commits.map((commit) => commit.version)).toEqual(commits.map((_, index) => commits[0]!.version + index))
    const thread = (await stored(store, threadId))!
    expect(thread.head.activeRun).toBeUndefined()
    expect(thread.head.messageCount).toBe(thread.messages.length)
    expect(thread.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })
})

/** A stop request from another instance lands while a run's closed step is on its way, with the release sent behind it. */
async function stopDuringOverlappedWrite(make: () => Promise<ThreadStore>) {
  const { store, held, behind, open } = heldStore(await make(), isClosedStep)
  const model = networkModel()
  const running = await startServer({ model, tools: [weatherTool], store })
  const other = await startServer({ model, tools: [weatherTool], store: await make() })
  const turn = running.send('weather in Oslo')
  const threadId = await held
  await behind // the release, sent behind the closed step
  const stop = await other.post({ threadId, stop: true })
  expect(await stop.json()).toEqual({ threadId, stopped: true })
  open()
  const done = await turn
  expect(done.types).not.toContain('RUN_ERROR')
  expect(done.finished).toBeDefined()
  const thread = (await stored(store, threadId))!
  expect(thread.head.activeRun).toBeUndefined()
  expect(thread.head.stopRequested).toBeUndefined()
  expect(thread.head.messageCount).toBe(thread.messages.length)
  expect(thread.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
  expect(thread.messages[2]).toMatchObject({ role: 'tool', status: 'success' })
  // The thread goes on from there.
  const next = await other.send('weather in Rome', threadId)
  expect(next.text).toBe('It is 24 degrees')
}

describe('a stop request from another instance while a closed step is on its way', () => {
  describe('on a real Redis', () => {
    let server: RedisServer
    let client: ReturnType<typeof createClient>
    beforeAll(async () => {
      server = await startRedis()
      client = createClient({ url: server.url })
      await client.connect()
    }, 30_000)
    afterAll(async () => {
      await client?.quit()
      await server?.stop()
    })

    it('stops the run, and the write sent behind the overlapped one is made again on the head as it is: nothing lost, nothing twice', async () => {
      const prefix = `stop${Date.now()}:`
      await stopDuringOverlappedWrite(async () => redisStore({ client, prefix }))
    })
  })

  describe('on a real PostgreSQL', () => {
    beforeAll(() => postgresStore({ pool }).ensureSchema())

    it('stops the run, and the write sent behind the overlapped one is made again on the head as it is: nothing lost, nothing twice', async () => {
      await stopDuringOverlappedWrite(async () => postgresStore({ pool }))
    })
  })
})

describe('a run’s last events carried by its release (PostgreSQL: the log is written with the commit)', () => {
  beforeAll(() => postgresStore({ pool, table: 'ends' }).ensureSchema())

  const logOf = async (store: ThreadStore, runId: string) => {
    const read = (await store.events!.read(runId, 0))!
    return { ended: read.ended, seqs: read.events.map((event) => event.seq), types: read.events.map((event) => (JSON.parse(event.data) as { type: string }).type) }
  }

  it('ends the log in the release’s statement: no log write after it, and a reader gets every event to RUN_FINISHED', async () => {
    const statements: string[] = []
    const spied = {
      query: (statement: string | { text: string }, values?: unknown[]) => {
        const text = typeof statement === 'string' ? statement : statement.text
        // A commit with events carries either a live run's (not final: its `ended` false) or the release's last ones.
        const ended = /\$(\d+)::boolean/.exec(text)
        const withEvents = /INSERT INTO ends_run_log/.test(text) ? (values?.[Number(ended?.[1]) - 1] === false ? 'commit+events' : 'release') : 'commit'
        statements.push(/(?:INSERT INTO|UPDATE) ends_threads/.test(text) ? withEvents : /INSERT INTO ends_run_log/.test(text) ? 'events' : 'read')
        return pool.query(statement as string, values)
      },
    }
    const store = postgresStore({ pool: spied, table: 'ends', namedStatements: true })
    const app = await startServer({ model: scriptedModel([weatherRule]), tools: [weatherTool], store })
    const turn = await app.send('weather in Oslo')
    expect(turn.text).toBe('It is 4 degrees')
    const runId = (turn.events[0] as { runId: string }).runId
    const writes = statements.filter((kind) => kind !== 'read')
    // The release is the last write. It may be sent again (it reached the server on another pool
    // connection before the commit it follows, and found that head not yet there), but nothing else follows it.
    const release = writes.indexOf('release')
    expect(release).toBeGreaterThan(-1)
    expect(writes.slice(release).every((kind) => kind === 'release')).toBe(true)
    const log = await logOf(store, runId)
    expect(log.ended).toBe(true)
    expect(log.types).toEqual(turn.types)
    expect(log.seqs).toEqual(turn.types.map((_, index) => index + 1))
  })

  it('tells no reader RUN_FINISHED when that release fails: the live stream and the log end with RUN_ERROR, under the same number', async () => {
    const inner = postgresStore({ pool, table: 'ends' })
    let refused = 0
    const store: ThreadStore = {
      ...inner,
      async commit(commit) {
        // The release: the commit with the run's last events (the run's other writes carry events too).
        if (commit.events && commit.events.final !== false && refused++ === 0) throw new StoreError('testStore', 'commit', new Error('injected: the store did not answer in time'))
        return inner.commit(commit)
      },
    }
    const app = await startServer({ model: scriptedModel([weatherRule]), tools: [weatherTool], store })
    const turn = await app.send('weather in Oslo')
    expect(refused).toBe(1)
    expect(turn.types).not.toContain('RUN_FINISHED')
    expect(turn.types.at(-1)).toBe('RUN_ERROR')
    const runId = (turn.events[0] as { runId: string }).runId
    const log = await logOf(store, runId)
    expect(log.ended).toBe(true)
    expect(log.types).toEqual(turn.types)
    expect(log.seqs).toEqual(turn.types.map((_, index) => index + 1))
    const thread = (await stored(store, turn.threadId))!
    expect(thread.head.activeRun).toBeUndefined()
    expect(thread.head.lastRunError).toMatchObject({ code: 'STORE_ERROR' })
    expect(thread.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })
})
