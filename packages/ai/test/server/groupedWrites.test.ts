import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import pg from 'pg'
import { type ChatModel, memoryStore, StoreError, type ThreadCommit, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { redisStore } from '@toolgate/ai/server/redis'
import { postgresStore } from '@toolgate/ai/server/postgres'
import { weatherTool } from './fixtures.ts'
import { expectReleasedAfterStoreError, stored } from './helpers/store.ts'
import { closeAll, deferred, startServer } from './helpers/server.ts'
import { startRedis, type RedisServer } from '../services/redis.ts'
import { startPostgres, type PostgresServer } from '../services/postgres.ts'

// A run's writes asked for while an earlier one is not yet made go out as one commit (group
// commit): a closed step whose next model call answers at once is carried by the release, so a
// turn with one server tool commits its thread three times (the claim, the calls marked running,
// the release), not four. Merging may cost no guarantee: a merged commit that fails fails every
// write in it, and a closed step still goes out while a next model call that needs I/O runs.

afterEach(closeAll)

let redis: RedisServer
let postgres: PostgresServer
let client: ReturnType<typeof createClient>
let pool: pg.Pool
beforeAll(async () => {
  ;[redis, postgres] = await Promise.all([startRedis(), startPostgres()])
  client = createClient({ url: redis.url })
  await client.connect()
  pool = new pg.Pool({ connectionString: postgres.connectionString, max: 8 })
  await postgresStore({ pool, table: 'grouped' }).ensureSchema()
}, 60_000)
afterAll(async () => {
  await client?.quit()
  await pool?.end()
  await Promise.all([redis?.stop(), postgres?.stop()])
})

const weatherRule = {
  when: /weather in (\w+)/i,
  call: (m: RegExpMatchArray) => ({ tool: 'get_weather', input: { city: m[1] } }),
  then: ([r]: any[]) => `It is ${r.output?.tempC} degrees`,
}

/** What a commit writes, in words: the claim, the calls marked running, a closed step, the release (and what it carries). */
function kindOf(commit: ThreadCommit): string {
  const roles = commit.append.map((message) => message.role)
  if (!commit.head.activeRun) return roles.includes('tool') ? 'release with the closed step' : 'release'
  if (roles.includes('user')) return 'claim'
  if (commit.head.step && commit.head.step.running.length > 0) return 'calls running'
  return roles.includes('tool') ? 'closed step' : 'other'
}

/** The store, with every commit it is sent recorded (the public ThreadStore interface only). */
function counted(inner: ThreadStore) {
  const commits: string[] = []
  const store: ThreadStore = {
    ...inner,
    commit(commit) {
      commits.push(kindOf(commit))
      return inner.commit(commit)
    },
  }
  return { store, commits }
}

let prefixes = 0
const stores: [string, () => ThreadStore][] = [
  ['memory', () => memoryStore()],
  ['a real Redis', () => redisStore({ client, prefix: `grouped${prefixes++}:` })],
  ['a real PostgreSQL', () => postgresStore({ pool, table: 'grouped' })],
]

describe.each(stores)('a turn with one server tool on %s', (_, make) => {
  it('commits the thread three times: the claim, the calls marked running, and the release carrying the closed step', async () => {
    const { store, commits } = counted(make())
    const server = await startServer({ model: scriptedModel([weatherRule]), tools: [weatherTool], store })
    const first = await server.send('weather in Oslo')
    expect(first.text).toBe('It is 4 degrees')
    expect(commits).toEqual(['claim', 'calls running', 'release with the closed step'])
    commits.length = 0
    const next = await server.send('weather in Rome', first.threadId)
    expect(next.text).toBe('It is 24 degrees')
    expect(commits).toEqual(['claim', 'calls running', 'release with the closed step'])
    const thread = (await stored(store, first.threadId))!
    expect(thread.head.activeRun).toBeUndefined()
    expect(thread.head.step).toBeUndefined()
    expect(thread.head.messageCount).toBe(thread.messages.length)
    expect(thread.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant'])
  })
})

describe('a merged commit that fails (memory)', () => {
  it('fails every write in it: the run fails, and its release stores the closed step too, so no call is left marked running', async () => {
    const inner = memoryStore()
    let merged = 0
    const store: ThreadStore = {
      ...inner,
      async commit(commit) {
        if (kindOf(commit) === 'release with the closed step' && merged++ === 0) throw new StoreError('testStore', 'commit', new Error('injected: the store did not answer in time'))
        return inner.commit(commit)
      },
    }
    const server = await startServer({ model: scriptedModel([weatherRule]), tools: [weatherTool], store })
    const turn = await server.send('weather in Oslo')
    // The merged commit, refused; then the release after the failure, carrying the closed step again.
    expect(merged).toBe(2)
    expect(turn.types).not.toContain('RUN_FINISHED')
    expect(turn.events.find((event) => event.type === 'RUN_ERROR')).toMatchObject({ code: 'STORE_ERROR' })
    // The closed step's write failed with the release: the release the run retries writes it.
    const thread = await expectReleasedAfterStoreError(store, turn.threadId, ['user', 'assistant', 'tool', 'assistant'])
    expect(thread.messages[2]).toMatchObject({ toolCallId: expect.any(String), status: 'success' })
  })
})

describe('a closed step whose next model call needs I/O (memory)', () => {
  it('is written while that call runs, not held for it: the call answers only once the closed step is stored', async () => {
    const { store, commits } = counted(memoryStore())
    const closedStepStored = deferred()
    const watched: ThreadStore = {
      ...store,
      async commit(commit) {
        const landed = await store.commit(commit)
        if (landed && kindOf(commit) === 'closed step') closedStepStored.resolve()
        return landed
      },
    }
    const scripted = scriptedModel([weatherRule])
    let calls = 0
    const model: ChatModel = {
      async *stream(request) {
        // The second call reads the network: it gets its answer only after the closed step is stored.
        if (++calls === 2) await closedStepStored.promise
        yield* scripted.stream(request)
      },
    }
    const server = await startServer({ model, tools: [weatherTool], store: watched })
    const turn = await server.send('weather in Oslo')
    expect(turn.text).toBe('It is 4 degrees')
    expect(commits).toEqual(['claim', 'calls running', 'closed step', 'release'])
  })
})

describe('a heartbeat due while a write is on its way (memory)', () => {
  it('is not a commit of its own: the write it would wait for renews the lease when it lands', async () => {
    const LEASE_MS = 1500
    const { store: inner, commits } = counted(memoryStore())
    const landed = deferred()
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    const store: ThreadStore = {
      ...inner,
      async commit(commit) {
        // The calls' running mark stays unanswered past the heartbeat's due time (a third of the lease).
        if (kindOf(commit) === 'calls running') {
          landed.resolve()
          await gate
        }
        return inner.commit(commit)
      },
    }
    const server = await startServer({ model: scriptedModel([weatherRule]), tools: [weatherTool], store, limits: { runLeaseMs: LEASE_MS, toolTimeoutMs: LEASE_MS / 2 } })
    const turn = server.send('weather in Oslo')
    await landed.promise
    // Half the lease: the run's clock (a tick every sixth of it) has found the heartbeat due.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 2))
    open()
    const done = await turn
    expect(done.text).toBe('It is 4 degrees')
    expect(commits).toEqual(['claim', 'calls running', 'release with the closed step'])
  })
})
