import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import pg from 'pg'
import { StoreError, type ChatModel, type ThreadCommit, type ThreadStore } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'
import { postgresStore } from '@toolgate/ai/server/postgres'
import { weatherDef, weatherTool } from './fixtures.ts'
import { closeAll, deferred, startServer } from './helpers/server.ts'
import { startRedis, type RedisServer } from '../services/redis.ts'
import { startPostgres, type PostgresServer } from '../services/postgres.ts'

// On a store whose event log is written with its commits, a run's thread commits carry the events
// its log had not sent yet, and the log does not send them itself. A reader following the run from
// another instance must still get every event once and in order, also when such a commit fails or
// is refused (a stop request from another instance got ahead of it).

afterEach(closeAll)

let redis: RedisServer
let postgres: PostgresServer
const clients: ReturnType<typeof createClient>[] = []
let pool: pg.Pool
beforeAll(async () => {
  ;[redis, postgres] = await Promise.all([startRedis(), startPostgres()])
  pool = new pg.Pool({ connectionString: postgres.connectionString, max: 8 })
}, 60_000)
afterAll(async () => {
  await Promise.all(clients.map((client) => client.quit()))
  await pool?.end()
  await Promise.all([redis?.stop(), postgres?.stop()])
})

/** What a store sends its server, as one label per command or statement. */
type Sent = string[]

/** The same shared store as two instances see it: each its own client; `sent` what instance A's sent. */
interface Stores {
  a: ThreadStore
  b: ThreadStore
  sent: Sent
  /** The commands or statements that write a run's log by themselves (not with a thread commit). */
  logWrites(sent: Sent): Sent
}

let namespaces = 0

async function redisStores(): Promise<Stores> {
  const prefix = `ride${namespaces++}:`
  const [a, b] = await Promise.all([0, 1].map(async () => {
    const client = createClient({ url: redis.url })
    clients.push(client)
    await client.connect()
    return client
  }))
  const sent: Sent = []
  // A script's first key says what it writes: a thread's head (a commit) or a run's log (an append).
  const spy = { sendCommand: (args: string[]) => (sent.push(args[0]!.startsWith('EVAL') ? `${args[0]} ${args[3]}` : args[0]!), a!.sendCommand(args)) }
  return {
    a: redisStore({ client: spy, prefix }),
    b: redisStore({ client: b!, prefix }),
    sent,
    logWrites: (commands) => commands.filter((command) => command.startsWith('EVAL') && command.endsWith(':log')),
  }
}

async function postgresStores(): Promise<Stores> {
  const table = `ride${namespaces++}`
  const sent: Sent = []
  const spy = {
    query: (statement: string | { text: string }, values?: unknown[]) => {
      sent.push(typeof statement === 'string' ? statement : statement.text)
      return pool.query(statement as string, values)
    },
  }
  const b = postgresStore({ pool, table })
  await b.ensureSchema()
  return {
    a: postgresStore({ pool: spy, table }),
    b,
    sent,
    logWrites: (statements) => statements.filter((text) => text.includes(`INSERT INTO ${table}_run_log`) && !new RegExp(`(?:INSERT INTO|UPDATE) ${table}_threads`).test(text)),
  }
}

/** A store that hands `commit`'s commits to `store`, as the handler sees it (its log, pipelining and all). */
function wrapped(store: ThreadStore, commit: (commit: ThreadCommit) => Promise<boolean>): ThreadStore {
  return { ...store, commit }
}

/** A live run's events riding a thread commit (not the release's last ones). */
const carriesLiveEvents = (commit: ThreadCommit) => commit.events !== undefined && commit.events.final === false

/** The model asks for the weather in Oslo, then says what the tool returned. */
const model: ChatModel = {
  name: 'weather',
  async *stream(request) {
    const result = request.messages.findLast((message) => message.role === 'tool')
    if (!result) {
      yield { type: 'text-delta', delta: 'Let me look. ' }
      yield { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'get_weather' }
      yield { type: 'tool-call-delta', toolCallId: 'call_1', delta: '{"city":"Oslo"}' }
      yield { type: 'tool-call-end', toolCallId: 'call_1' }
      yield { type: 'finish', reason: 'tool_calls' }
      return
    }
    for (const word of ['It ', 'is ', '4 ', 'degrees']) yield { type: 'text-delta', delta: word }
    yield { type: 'finish', reason: 'stop' }
  },
}

/** Reads an SSE response as text until it holds `until` (then returns what it read, the rest left unread), or to its end. */
async function readText(response: Response, until?: string): Promise<{ text: string; rest: () => Promise<string> }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ''
  const rest = async () => {
    let more = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return more
      more += value
    }
  }
  while (until === undefined || !text.includes(until)) {
    const { done, value } = await reader.read()
    if (done) break
    text += value
  }
  return { text, rest }
}

const follow = (url: string, threadId: string, runId: string) =>
  fetch(`${url}?threadId=${encodeURIComponent(threadId)}`, { headers: { accept: 'text/event-stream', 'last-event-id': `${runId}:0` } })

const idsOf = (text: string) => [...text.matchAll(/^id: (.*)$/gm)].map((match) => match[1]!)

/** A reader following the run at `url` (another instance) gets exactly the live stream, every event once: ids the run's 1..n. */
async function expectFollowerGetsLive(url: string, live: string): Promise<void> {
  const followed = await (await follow(url, threadOf(live), runOf(live))).text()
  expect(followed).toBe(live)
  const ids = idsOf(followed)
  expect(ids).toEqual(ids.map((_, index) => `${runOf(live)}:${index + 1}`))
}
const runOf = (text: string) => /"runId":"([^"]+)"/.exec(text)![1]!
const threadOf = (text: string) => /"threadId":"([^"]+)"/.exec(text)![1]!

describe.each([
  ['Redis', redisStores],
  ['PostgreSQL', postgresStores],
] as const)('a run’s events riding its thread commits (%s)', (_name, makeStores) => {
  it('sends no log write of its own on a one-tool turn, and a reader on another instance gets every event once, in order', async () => {
    const stores = await makeStores()
    const a = await startServer({ model, tools: [weatherTool], store: stores.a })
    const b = await startServer({ model, tools: [weatherTool], store: stores.b })
    const live = await (await a.post({ message: 'weather in Oslo' })).text()
    expect(live).toContain('"RUN_FINISHED"')
    expect(stores.logWrites(stores.sent)).toEqual([])
    await expectFollowerGetsLive(b.url, live)
  })

  it('lets a reader on another instance see the events a commit carried while the run still waits on a tool, then the rest, each once', async () => {
    const stores = await makeStores()
    const gate = deferred()
    const slowWeather = weatherDef.server(async ({ city }) => (await gate.promise, { city, tempC: 4 }))
    let carried = 0
    const store = wrapped(stores.a, (commit) => ((carried += carriesLiveEvents(commit) ? 1 : 0), stores.a.commit(commit)))
    const a = await startServer({ model, tools: [slowWeather], store })
    const b = await startServer({ model, tools: [slowWeather], store: stores.b })
    const response = await a.post({ message: 'weather in Oslo' })
    const first = await readText(response, '"TOOL_CALL_END"')
    // The tool waits: what the model said is in the log, carried by the `running` mark's commit.
    const following = await follow(b.url, threadOf(first.text), runOf(first.text))
    const seen = await readText(following, '"TOOL_CALL_END"')
    expect(carried).toBeGreaterThan(0)
    expect(seen.text).toContain('"delta":"Let me look. "')
    gate.resolve()
    const live = first.text + (await first.rest())
    const followed = seen.text + (await seen.rest())
    expect(live).toContain('"RUN_FINISHED"')
    expect(followed).toBe(live)
  })

  it('still logs the events a commit carried when that commit fails: the run fails, and a reader on another instance gets every event to RUN_ERROR', async () => {
    const stores = await makeStores()
    let failed = 0
    const store = wrapped(stores.a, async (commit) => {
      if (carriesLiveEvents(commit) && failed++ === 0) throw new StoreError('testStore', 'commit', new Error('injected: the store did not answer in time'))
      return stores.a.commit(commit)
    })
    const a = await startServer({ model, tools: [weatherTool], store })
    const b = await startServer({ model, tools: [weatherTool], store: stores.b })
    const live = await (await a.post({ message: 'weather in Oslo' })).text()
    expect(failed).toBeGreaterThan(0)
    expect(live).toContain('"RUN_ERROR"')
    expect(live).not.toContain('"RUN_FINISHED"')
    await expectFollowerGetsLive(b.url, live)
  })

  it('still logs the events a commit carried when a stop request from another instance got ahead of it: the commit is refused, the run stops, and a reader gets every event', async () => {
    const stores = await makeStores()
    let refused = 0
    const store = wrapped(stores.a, async (commit) => {
      if (carriesLiveEvents(commit) && refused++ === 0) {
        // Another instance writes the stop into the head first: this commit finds another head.
        const head = (await stores.b.head(commit.head.id))!
        expect(await stores.b.commit({ head: { ...head, version: head.version + 1, stopRequested: commit.events!.runId }, append: [] })).toBe(true)
      }
      return stores.a.commit(commit)
    })
    const a = await startServer({ model, tools: [weatherTool], store })
    const b = await startServer({ model, tools: [weatherTool], store: stores.b })
    const live = await (await a.post({ message: 'weather in Oslo' })).text()
    expect(refused).toBeGreaterThan(0)
    expect(live).toMatch(/"RUN_FINISHED"|"RUN_ERROR"/)
    await expectFollowerGetsLive(b.url, live)
    // The thread is let go.
    expect((await stores.b.head(threadOf(live)))?.activeRun).toBeUndefined()
  })
})
