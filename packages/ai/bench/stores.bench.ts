/**
 * The thread stores side by side: memory, Redis and PostgreSQL (throwaway servers from Debian's
 * binaries, as the tests start them). For each: turns per second through the chat handler (one
 * server tool per turn, two model steps, a new thread each turn, and the next turn on a thread the
 * instance wrote last, the common case in a chat); the cost of one more turn on a
 * thread that already holds 1, 10, 50 and 200 turns (time, and bytes the store is sent: both must
 * stay flat, since a write sends what changed and never the thread); and two app instances
 * against one on a shared Redis. First, the memory store's turn beside TanStack AI's `chat()`
 * in-process, so the ratio is the handlers' own cost (server.bench.ts compares them over HTTP,
 * each in a process of its own, where the HTTP layer they share adds to both).
 *
 * Run: npm run build, then tsx bench/stores.bench.ts (the package as users run it: the built JavaScript)
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { createClient } from 'redis'
import { checkTanstackTurn, tanstackHandler } from './tanstackPeer.ts'
import { measure, postJson, startInstance, weather, weatherModel } from './workload.ts'
import { createChatHandler, memoryStore, type ChatHandler, type ThreadCommit, type ThreadStore } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'
import { postgresStore } from '@toolgate/ai/server/postgres'
import { startRedis } from '../test/services/redis.ts'
import { startPostgres } from '../test/services/postgres.ts'

interface Service {
  stop(): Promise<void>
}

/** PG_FSYNC=on: the PostgreSQL server flushes its WAL to disk, as a stock one does (off by default, as the tests' server: the figures then leave out the disk). */
const PG_FSYNC = process.env.PG_FSYNC === 'on'
const LIMITS = { warmup: 300, maxTurns: 2000, budgetMs: 1500 }
const HISTORY = [1, 10, 50, 200]
const SAMPLE = 41
/** Turns whose store traffic is counted. */
const COUNTED = 20
/** STORES=redis (or postgres, or both comma-separated): only those stores beside memory and their floors, and only the lines that compare them (a short run). */
const ONLY = process.env.STORES?.split(',')
const runs = (store: string) => !ONLY || ONLY.includes(store)



/** Counts what the store is sent: the JSON of each commit's head and appended messages. */
function metered(store: ThreadStore) {
  const meter = { bytes: 0, commits: 0 }
  const wrapped: ThreadStore = {
    ...(store.events ? { events: store.events } : {}),
    // As the store is: writes sent behind one on its way, and the handler's thread cache beside it.
    ...(store.pipelines ? { pipelines: store.pipelines } : {}),
    head: (id) => store.head(id),
    messages: (id, from, to) => store.messages(id, from, to),
    decisions: (id) => store.decisions(id),
    commit(commit) {
      meter.commits += 1
      meter.bytes += JSON.stringify(commit.head).length + commit.append.reduce((sum, message) => sum + JSON.stringify(message).length, 0)
      return store.commit(commit)
    },
  }
  return { store: wrapped, meter }
}

/**
 * Counts what a store sends its server: commands (Redis) or queries (PostgreSQL) by kind, and
 * round trips, apart for the thread (head, messages, commits: the run waits for each, but a write
 * sent behind one on its way shares its wait; on PostgreSQL the release carries the log's last
 * events) and for the run's event log (written behind the run, one write in flight). A round trip
 * is a command sent while none of the same part was in flight: those sent alongside share its wait.
 * PostgreSQL's wake-ups (`pg_notify`, sent after the commits they announce, awaited by no turn) are a part of their own.
 */
class Wire {
  readonly kinds = new Map<string, number>()
  readonly roundTrips = { thread: 0, log: 0, notify: 0 }
  readonly #inFlight = { thread: 0, log: 0, notify: 0 }

  async track<T>(kind: string, part: 'thread' | 'log' | 'notify', send: () => Promise<T>): Promise<T> {
    this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1)
    if (this.#inFlight[part]++ === 0) this.roundTrips[part]++
    try {
      return await send()
    } finally {
      this.#inFlight[part]--
    }
  }

  reset(): void {
    this.kinds.clear()
    this.roundTrips.thread = 0
    this.roundTrips.log = 0
    this.roundTrips.notify = 0
  }

  /** Per turn: round trips, then each kind of command. */
  describe(turns: number): string {
    const perTurn = (count: number) => (count / turns).toFixed(1)
    const kinds = [...this.kinds].sort((a, b) => b[1] - a[1]).map(([kind, count]) => `${kind} ${perTurn(count)}`)
    const wakeups = this.roundTrips.notify > 0 ? `, wake-ups after commits ${perTurn(this.roundTrips.notify)}` : ''
    return `round trips per turn: thread ${perTurn(this.roundTrips.thread)}, event log ${perTurn(this.roundTrips.log)}${wakeups} (${kinds.join(', ')})`
  }
}

/** A Redis command's kind: its name, and for a script the kind of key it writes. */
function redisKind(args: readonly string[]): string {
  if (args[0] !== 'EVALSHA' && args[0] !== 'EVAL') return args[0]!
  return `${args[0]} ${/:(\w+)$/.exec(args[3] ?? '')?.[1] ?? '?'}`
}

/** A query's kind: its verb and first table. */
function sqlKind(text: string): string {
  const verb = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? '?'
  const table = /\b(?:FROM|INTO|UPDATE)\s+(\w+)/i.exec(text)?.[1] ?? ''
  return `${verb} ${table}`.trim()
}

const handlerFor = (store: ThreadStore): ChatHandler =>
  createChatHandler({ model: weatherModel, tools: [weather], store, limits: { maxThreadMessages: 5000 } })

async function turn(handler: ChatHandler, threadId?: string): Promise<string> {
  const body = JSON.stringify(threadId ? { threadId, message: 'weather in Paris' } : { message: 'weather in Paris' })
  const response = await handler(new Request('http://bench.local/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body }))
  const text = await response.text()
  if (response.status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`turn failed (${response.status}): ${text.slice(-300)}`)
  return threadId ?? /"threadId":"([^"]+)"/.exec(text)![1]!
}

/** Turns a chat of the next-turn line holds: its thread's history stays short (one turn's cost is flat there). */
const CHAT_TURNS = 10

/**
 * Threads made beforehand (one turn each, uncounted), enough for every turn `measure` may take:
 * `nextTurn` takes the next turn on an idle one, `CHAT_TURNS` turns each, so no two workers ever
 * share a thread (no 409) and a worker's chat goes on where it left off.
 */
async function existingChats(handler: ChatHandler, concurrency: number) {
  const count = Math.ceil((LIMITS.warmup + LIMITS.maxTurns) / CHAT_TURNS) + concurrency
  const fresh: string[] = []
  for (let i = 0; i < count; i += 8) fresh.push(...(await Promise.all(Array.from({ length: Math.min(8, count - i) }, () => turn(handler)))))
  const idle: { threadId: string; turns: number }[] = []
  return {
    async nextTurn(): Promise<void> {
      const chat = idle.pop() ?? { threadId: fresh.shift()!, turns: 0 }
      await turn(handler, chat.threadId)
      if (++chat.turns < CHAT_TURNS) idle.push(chat)
    },
  }
}

let aguiRuns = 0
/** An AG-UI client's next turn (CopilotKit's): its own thread id, and the whole history it holds before the new message. */
async function aguiTurn(handler: ChatHandler, threadId: string, history: readonly unknown[]): Promise<void> {
  const runId = `bench-run-${++aguiRuns}`
  const messages = [...history, { id: `u-${runId}`, role: 'user', content: 'weather in Oslo' }]
  const body = JSON.stringify({ threadId, runId, messages, tools: [], context: [], state: {}, forwardedProps: {} })
  const response = await handler(new Request('http://bench.local/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body }))
  const text = await response.text()
  if (response.status !== 200 || !text.includes('"RUN_FINISHED"') || text.includes('"MESSAGES_SNAPSHOT"')) throw new Error(`AG-UI turn failed (${response.status}): ${text.slice(-300)}`)
}

/** The stored thread as an AG-UI client that got every event holds it. */
async function aguiHistory(store: ThreadStore, threadId: string): Promise<unknown[]> {
  const head = (await store.head(threadId))!
  const messages = await store.messages(threadId, 0, head.messageCount)
  return messages.map((message) => {
    if (message.role === 'user') return { id: message.id, role: 'user', content: message.content }
    if (message.role === 'tool') return { id: message.id, role: 'tool', toolCallId: message.toolCallId, content: message.content }
    const toolCalls = message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }))
    return { id: message.id, role: 'assistant', ...(message.content === '' ? {} : { content: message.content }), ...(toolCalls.length > 0 ? { toolCalls } : {}) }
  })
}

// The peer (bench/tanstackPeer.ts), in-process.
const answerTanstack = tanstackHandler(weather)
async function tanstackTurn(): Promise<void> {
  checkTanstackTurn(await answerTanstack('weather in Paris').text())
}

/**
 * Turns/s through `count` app processes (bench/instance.ts) sharing one Redis. The two requests
 * of a turn go to different processes when there are two.
 */
async function processes(url: string, count: number): Promise<number> {
  const instances = await Promise.all(Array.from({ length: count }, () => startInstance('toolgate-redis', { REDIS_URL: url })))
  try {
    let next = 0
    const post = async (body: unknown) => {
      const { status, text } = await postJson(instances[next++ % instances.length]!.url, body)
      if (status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`turn failed (${status}): ${text.slice(-300)}`)
      return text
    }
    const { perSecond } = await measure(async () => {
      const threadId = /"threadId":"([^"]+)"/.exec(await post({ message: 'weather in Paris' }))![1]
      await post({ threadId, message: 'weather in Oslo' })
    }, 16, LIMITS)
    return perSecond * 2
  } finally {
    for (const instance of instances) instance.stop()
  }
}

// The servers.
const services: Service[] = []
const closers: (() => Promise<unknown>)[] = []
const stores: { name: string; make: () => ThreadStore }[] = [{ name: 'memory', make: () => memoryStore() }]
const countedStores: { name: string; make: (wire: Wire) => ThreadStore }[] = []
/** One bare round trip to each server (PING, SELECT 1), the floor under every command a turn waits for. */
const bareRoundTrips: { name: string; send: () => Promise<unknown> }[] = []
/**
 * The same-run floor of each shared store: the memory store, plus one awaited round trip to that
 * store's server (PING, SELECT 1) per commit. What a turn of this design waits for, with none of the
 * store's own work: each store's turns/s is printed as a ratio to its floor (goal ≥ 0.8×).
 */
const storeFloors: { name: string; of: string; make: () => ThreadStore }[] = []
/**
 * With `carriesEvents`, the floor's run events are not in this process's memory as far as the run
 * knows: its log says `inCommits` and is not marked in process, so the run holds each event until
 * the write carrying it is answered and its commits carry them, as on a shared store's log (the
 * events then go to a memory log, each number once).
 */
type RunEventLog = NonNullable<ThreadStore['events']>
type LoggedEvent = Parameters<RunEventLog['append']>[1][number]
function floorStore(send: (commit: ThreadCommit) => Promise<unknown>, carriesEvents = false): ThreadStore {
  const memory = memoryStore()
  const log = memory.events!
  const logged = new Map<string, number>()
  const keep = async (runId: string, events: readonly LoggedEvent[], final: boolean) => {
    const last = logged.get(runId) ?? 0
    const fresh = events.filter((event) => event.seq > last)
    if (fresh.length > 0) logged.set(runId, fresh.at(-1)!.seq)
    if (final) logged.delete(runId)
    await log.append(runId, fresh, final)
  }
  const events: RunEventLog = {
    inCommits: true,
    append: keep,
    read: (runId, after, limit) => log.read(runId, after, limit),
    wait: (runId, after, timeoutMs, signal) => log.wait(runId, after, timeoutMs, signal),
  }
  return {
    ...memory,
    ...(carriesEvents ? { events } : {}),
    async commit(commit) {
      await send(commit)
      const written = await memory.commit(commit)
      if (written && carriesEvents && commit.events) await keep(commit.events.runId, commit.events.events, commit.events.final !== false)
      return written
    },
  }
}
let redisUrl: string | undefined
/** Redis's own counters of the commands it ran (INFO commandstats): what its commit scripts cost inside the server. */
let redisCommandStats: { reset(): Promise<unknown>; read(): Promise<string> } | undefined
/**
 * The CPU time (ms) each store's server used so far, from /proc (Linux): Redis's process (its
 * `process_id`), PostgreSQL's postmaster and every child (backends, WAL writer, ...). What a turn
 * costs the server is then measured beside what it costs this process.
 */
const serverCpu = new Map<string, () => number>()
const CLOCK_TICK_MS = existsSync('/proc/self/stat') ? 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) : 0
function cpuOfProcesses(pids: () => number[]): () => number {
  return () =>
    pids().reduce((sum, pid) => {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
        return sum + (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS
      } catch {
        return sum // a backend that ended meanwhile
      }
    }, 0)
}
try {
  if (!runs('redis')) throw new Error('not asked for (STORES)')
  const redis = await startRedis()
  services.push(redis)
  redisUrl = redis.url
  const client = await createClient({ url: redis.url }).connect()
  closers.push(() => client.quit())
  bareRoundTrips.push({ name: 'redis PING', send: () => client.sendCommand(['PING']) })
  redisCommandStats = { reset: () => client.sendCommand(['CONFIG', 'RESETSTAT']), read: async () => String(await client.sendCommand(['INFO', 'commandstats'])) }
  if (CLOCK_TICK_MS > 0) {
    const pid = Number(/process_id:(\d+)/.exec(String(await client.sendCommand(['INFO', 'server'])))![1])
    serverCpu.set('redis', cpuOfProcesses(() => [pid]))
  }
  storeFloors.push({ name: 'memory + PING', of: 'redis', make: () => floorStore(() => client.sendCommand(['PING'])) })
  // A second floor, as PostgreSQL's rows: what a turn must store, written plainly, one script per
  // commit: the head's JSON (compare-and-set on its version), each appended message an entry of
  // one list, the commit's events one entry. No expiry, no check of the head it follows, no wake-up
  // (PUBLISH), no index of the run's log: what any durable Redis store of this design writes. The
  // store's distance to it is its own work; this floor's distance to PING's is the data's.
  const writesSha = String(
    await client.sendCommand([
      'SCRIPT',
      'LOAD',
      `if (tonumber(redis.call('HGET', KEYS[1], 'v')) or 0) + 1 ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'h', ARGV[2])
if #ARGV > 2 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 3)) end
return 1`,
    ]),
  )
  storeFloors.push({
    name: 'memory + writes',
    of: 'redis',
    make: () =>
      floorStore(({ head, append, events }) => {
        const data = append.map((message) => JSON.stringify(message))
        if (events) data.push(events.events.map((event) => event.data).join(''))
        return client.sendCommand(['EVALSHA', writesSha, '2', `floor:{${head.id}}:head`, `floor:{${head.id}}:data`, String(head.version), JSON.stringify(head), ...data])
      }, true),
  })
  stores.push({ name: 'redis', make: () => redisStore({ client, prefix: `bench${stores.length}:` }) })
  countedStores.push({
    name: 'redis',
    make: (wire) =>
      redisStore({
        // The part is the first key the command names: a release also names the run's log.
        client: { sendCommand: (args) => wire.track(redisKind(args), /:(log|events|end|thread)$/.test((args[0]!.startsWith('EVAL') ? args[3] : args[1]) ?? '') ? 'log' : 'thread', () => client.sendCommand(args)) },
        prefix: 'counted:',
      }),
  })
} catch (error) {
  console.log(`  (no Redis: ${(error as Error).message})`)
}
try {
  if (!runs('postgres')) throw new Error('not asked for (STORES)')
  const postgres = await startPostgres({ fsync: PG_FSYNC })
  services.push(postgres)
  // `pipeline: true` (node-postgres 8.2x), as docs/deployment.md advises for the store's pool: a run's commits that follow one another are written on one connection.
  const pool = new pg.Pool({ connectionString: postgres.connectionString, max: 16, pipeline: true })
  closers.push(() => pool.end())
  bareRoundTrips.push({ name: 'postgres SELECT 1', send: () => pool.query({ name: 'bench_select_1', text: 'SELECT 1', values: [] }) })
  if (CLOCK_TICK_MS > 0) {
    const dataDir = (await pool.query('SHOW data_directory')).rows[0].data_directory as string
    const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
    const children = () => execFileSync('pgrep', ['-P', String(postmaster)], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().split('\n').filter(Boolean).map(Number)
    serverCpu.set('postgres', cpuOfProcesses(() => [postmaster, ...children()]))
  }
  storeFloors.push({ name: 'memory + SELECT 1', of: 'postgres', make: () => floorStore(() => pool.query({ name: 'bench_select_1', text: 'SELECT 1', values: [] })) })
  // The same with the run's events carried by its commits, from a log the run does not know is in
  // this process (as a shared store's): the run's own cost of such a log, no store's.
  storeFloors.push({ name: 'the same, log held', of: 'postgres', make: () => floorStore(() => pool.query({ name: 'bench_select_1', text: 'SELECT 1', values: [] }), true) })
  // A second floor: the least a write of this design costs the server, one transaction per commit
  // that inserts the thread's row (then updates it) and appends one row, each by primary key.
  await pool.query(`CREATE TABLE bench_floor_heads (id text PRIMARY KEY, version integer NOT NULL);
    CREATE TABLE bench_floor_rows (id text NOT NULL, seq integer NOT NULL, PRIMARY KEY (id, seq))`)
  storeFloors.push({
    name: 'memory + write',
    of: 'postgres',
    make: () =>
      floorStore((commit) =>
        commit.head.version === 1
          ? pool.query({ name: 'bench_floor_insert', text: 'INSERT INTO bench_floor_heads VALUES ($1, 1)', values: [commit.head.id] })
          : pool.query({
              name: 'bench_floor_write',
              text: 'WITH head AS (UPDATE bench_floor_heads SET version = $2 WHERE id = $1 RETURNING id) INSERT INTO bench_floor_rows SELECT id, $2 FROM head',
              values: [commit.head.id, commit.head.version],
            }),
      ),
  })
  // A third: the rows a turn must store, written plainly, one statement per commit: the head's JSON
  // as the thread's row (compare-and-set on its version), each appended message a row, the
  // commit's events one row (the bench's turns make no decision records). No expiry, no check of
  // the head it follows, one table and one index: what any durable store of this design writes.
  // The store's distance to it is its own work; this floor's distance to the first is the server's.
  await pool.query(`CREATE TABLE bench_floor_threads (id text PRIMARY KEY, version integer NOT NULL, head text NOT NULL);
    CREATE TABLE bench_floor_data (id text NOT NULL, seq integer NOT NULL, body text NOT NULL, PRIMARY KEY (id, seq))`)
  const rows = `INSERT INTO bench_floor_data SELECT head.id, r.seq, r.body FROM head, (
    SELECT $4 + m.ord::integer AS seq, m.body::text AS body FROM json_array_elements($5::json) WITH ORDINALITY AS m(body, ord)
    UNION ALL SELECT -$2, $6::text WHERE $6::text IS NOT NULL) r`
  storeFloors.push({
    name: 'memory + rows',
    of: 'postgres',
    make: () =>
      floorStore(({ head, append, events }) => {
        const values = [head.id, head.version, JSON.stringify(head), head.messageCount - append.length, JSON.stringify(append), events ? events.events.map((event) => event.data).join('') : null]
        return head.version === 1
          ? pool.query({ name: 'bench_rows_insert', text: `WITH head AS (INSERT INTO bench_floor_threads VALUES ($1, $2, $3) RETURNING id) ${rows}`, values })
          : pool.query({ name: 'bench_rows_write', text: `WITH head AS (UPDATE bench_floor_threads SET version = $2, head = $3 WHERE id = $1 AND version = $2 - 1 RETURNING id) ${rows}`, values })
      }, true),
  })
  await postgresStore({ pool }).ensureSchema()
  stores.push({ name: 'postgres', make: () => postgresStore({ pool }) })
  countedStores.push({
    name: 'postgres',
    make: (wire) => {
      // A pg Pool as the store's own (it writes a run's commits that follow one another on one
      // connection), each of whose connections counts what it sends.
      const counted = new pg.Pool({ connectionString: postgres.connectionString, max: 16, pipeline: true })
      closers.push(() => counted.end())
      counted.on('connect', (connection) => {
        const send = connection.query.bind(connection) as (...args: unknown[]) => Promise<unknown> | undefined
        ;(connection as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
          const callback = typeof args.at(-1) === 'function' ? (args.pop() as (error: unknown, result?: unknown) => void) : undefined
          const statement = args[0] as string | { text: string }
          const text = typeof statement === 'string' ? statement : statement.text
          const kind = text.includes('pg_notify') ? 'NOTIFY' : sqlKind(text)
          // The part is the table the statement first names.
          const part = kind === 'NOTIFY' ? 'notify' : /_runs?$|_run_events$|_run_log$/.test(kind) ? 'log' : 'thread'
          const answer = wire.track(kind, part, () => send(...args) as Promise<unknown>)
          if (!callback) return answer
          answer.then((result) => callback(undefined, result), (error) => callback(error))
          return undefined
        }
      })
      return postgresStore({ pool: counted })
    },
  })
} catch (error) {
  console.log(`  (no PostgreSQL: ${(error as Error).message})`)
}

try {
  console.log(`stores.bench: the chat handler in-process (Fetch, no HTTP), one server tool per turn (node ${process.version}, ≤${LIMITS.maxTurns} turns or ${LIMITS.budgetMs} ms each)`)
  console.log(`  PostgreSQL: a throwaway server with fsync=${PG_FSYNC ? 'on (WAL flushed to disk, as a stock server)' : 'off (its commits skip the disk; PG_FSYNC=on for a stock server\'s flushes)'}`)
  if (!ONLY) console.log('\n  memory store beside TanStack AI chat() (which stores no thread), in-process:')
  const memoryHandler = handlerFor(memoryStore())
  for (const concurrency of ONLY ? [] : [1, 8, 32]) {
    // Alternated and the best of two kept for each: the machine's other load then hurts neither side alone.
    let ours = 0
    let theirs = 0
    for (let round = 0; round < 2; round++) {
      ours = Math.max(ours, (await measure(() => turn(memoryHandler), concurrency, LIMITS)).perSecond)
      theirs = Math.max(theirs, (await measure(tanstackTurn, concurrency, LIMITS)).perSecond)
    }
    console.log(`  concurrency ${String(concurrency).padStart(2)}: toolgate ${ours.toFixed(0).padStart(5)} turns/s, @tanstack/ai ${theirs.toFixed(0).padStart(5)} turns/s: ${(ours / theirs).toFixed(2)}×`)
  }

  // Each store beside its same-run floor (memory + one awaited round trip per commit), interleaved,
  // the order rotated each round, the median of three kept; each store's ratio to its floor per round.
  const ROUNDS = 3
  const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!
  const contenders = [...stores, ...storeFloors.map(({ name, make }) => ({ name, make }))]
  const floorOf = (name: string) => storeFloors.find((floor) => floor.of === name)
  /** The store's other floors (PostgreSQL: a minimal write transaction per commit), printed beside the goal's. */
  const moreFloorsOf = (name: string) => storeFloors.filter((floor) => floor.of === name).slice(1)
  async function table(title: string, run: (handler: ChatHandler, concurrency: number) => Promise<number>) {
    console.log(title)
    const rows = contenders.map(() => [] as string[])
    for (const concurrency of [1, 8]) {
      const handlers = contenders.map(({ make }) => handlerFor(make()))
      const samples = contenders.map(() => [] as number[])
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < contenders.length; k++) {
          const index = (k + round) % contenders.length
          samples[index]!.push(await run(handlers[index]!, concurrency))
        }
      }
      for (const [index, { name }] of contenders.entries()) {
        const perSecond = median(samples[index]!)
        const floor = floorOf(name)
        let versus = `${(perSecond / median(samples[0]!)).toFixed(2)}× memory`
        // A store's further floors beside its first (the goal's): how far the work they keep falls short of it on its own.
        const self = storeFloors.find((other) => other.name === name)
        const goal = self && floorOf(self.of) !== self ? floorOf(self.of) : undefined
        if (goal) {
          const at = contenders.findIndex((contender) => contender.name === goal.name)
          const ratios = samples[index]!.map((value, round) => value / samples[at]![round]!)
          versus += `, ${median(ratios).toFixed(2)}× ${goal.name} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`
        }
        if (floor) {
          const floorIndex = contenders.findIndex((contender) => contender.name === floor.name)
          const perRound = samples[index]!.map((value, round) => value / samples[floorIndex]![round]!)
          const ratio = median(perRound)
          versus += `, ${ratio.toFixed(2)}× its floor (${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)})${ratio >= 0.8 ? ' met' : ' goal ≥0.8'}`
          for (const more of moreFloorsOf(name)) {
            const at = contenders.findIndex((contender) => contender.name === more.name)
            const ratios = samples[index]!.map((value, round) => value / samples[at]![round]!)
            versus += `, ${median(ratios).toFixed(2)}× ${more.name} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`
          }
        }
        rows[index]!.push(`c=${concurrency}: ${perSecond.toFixed(0).padStart(5)} turns/s (${versus})`)
      }
    }
    for (const [index, { name }] of contenders.entries()) console.log(`  ${name.padEnd(18)} ${rows[index]!.join('   ')}`)
  }
  const handlers = stores.map(({ make }) => handlerFor(make()))
  await table(
    `\n  turns/s, a new thread per turn, each store beside its floor (memory + one awaited round trip per commit), interleaved, median of ${ROUNDS} rounds (goal: ≥ 0.8× the floor):`,
    async (handler, concurrency) => (await measure(() => turn(handler), concurrency, LIMITS)).perSecond,
  )

  // The common case in a chat: the next turn on a thread this instance wrote last (its cache
  // applies). Each worker holds a chat of CHAT_TURNS turns at a time, on threads made beforehand.
  // Stores of their own (table makes them): the memory store above holds every thread the new-thread
  // line made, and a heap that large makes its turn slower than it is.
  await table(`\n  turns/s, the next turn on an existing thread (chats of ${CHAT_TURNS} turns, threads made beforehand), beside the floors, median of ${ROUNDS} rounds:`, async (handler, concurrency) => {
    const chats = await existingChats(handler, concurrency)
    return (await measure(() => chats.nextTurn(), concurrency, LIMITS)).perSecond
  })

  // How much of a shared store's turn is its event log: the same store with the run's events kept
  // in memory instead (the release carries the log's last events on both, so this is the log's
  // writes while the run streams).
  const shared = stores.slice(1)
  if (shared.length > 0) {
    const logless = shared.map(({ make }) => handlerFor({ ...make(), events: memoryStore().events }))
    const best = shared.map(() => 0)
    let memory = 0
    for (let round = 0; round < 2; round++) {
      memory = Math.max(memory, (await measure(() => turn(handlers[0]!), 1, LIMITS)).perSecond)
      for (const [index, handler] of logless.entries()) best[index] = Math.max(best[index]!, (await measure(() => turn(handler), 1, LIMITS)).perSecond)
    }
    const cells = shared.map(({ name }, index) => `${name} ${best[index]!.toFixed(0)} turns/s (${(best[index]! / memory).toFixed(2)}× memory)`)
    console.log(`  the same with the event log in memory, concurrency 1: ${cells.join('   ')}`)
  }

  // Where a shared store's turn goes beyond its floor's: this process's CPU (the handler, the
  // client library, serializing) and the store server's (/proc), per turn, one turn at a time.
  if (serverCpu.size > 0) {
    const costed = contenders.filter(({ name }) => name !== 'memory')
    const serverOf = (name: string) => serverCpu.get(name) ?? serverCpu.get(storeFloors.find((floor) => floor.name === name)?.of ?? '')
    const costs = costed.map(() => ({ client: [] as number[], server: [] as number[], wall: [] as number[] }))
    const costHandlers = costed.map(({ make }) => handlerFor(make()))
    for (const handler of costHandlers) for (let i = 0; i < 100; i++) await turn(handler)
    await redisCommandStats?.reset()
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < costed.length; k++) {
        const index = (k + round) % costed.length
        const server = serverOf(costed[index]!.name)!
        const [cpu, serverBefore] = [process.cpuUsage(), server()]
        const { done, ms } = await measure(() => turn(costHandlers[index]!), 1, { warmup: 0, maxTurns: 1000, budgetMs: 1500 })
        const used = process.cpuUsage(cpu)
        costs[index]!.client.push((used.user + used.system) / done)
        costs[index]!.server.push(((server() - serverBefore) * 1000) / done)
        costs[index]!.wall.push((ms * 1000) / done)
      }
    }
    const us = (values: readonly number[]) => `${median(values).toFixed(0).padStart(5)} µs`
    console.log(`\n  what a turn costs, one at a time (median of ${ROUNDS} interleaved rounds): this process's CPU (handler, client library, serializing), the store server's CPU (/proc), the turn's time`)
    for (const [index, { name }] of costed.entries()) console.log(`  ${name.padEnd(18)} client ${us(costs[index]!.client)}   server ${us(costs[index]!.server)}   turn ${us(costs[index]!.wall)}`)
    for (const [index, { name }] of costed.entries()) {
      const floor = floorOf(name)
      if (!floor) continue
      for (const [label, beside] of [['its floor', floor], ...moreFloorsOf(name).map((more) => [more.name, more] as const)] as const) {
        const at = costed.findIndex((contender) => contender.name === beside.name)
        const more = (part: 'client' | 'server' | 'wall') => (median(costs[index]![part]) - median(costs[at]![part])).toFixed(0)
        console.log(`  ${name} beyond ${label}, per turn: client +${more('client')} µs, server +${more('server')} µs, turn +${more('wall')} µs`)
      }
    }
    // The time Redis spent inside each kind of command (its own clock: the machine's load adds to it).
    const stats = [...((await redisCommandStats?.read()) ?? '').matchAll(/cmdstat_(evalsha|hget|lrange|ping):calls=(\d+),usec=(\d+)/g)]
    if (stats.length > 0) console.log(`  inside Redis, per call (INFO commandstats, these rounds): ${stats.map(([, command, calls, usec]) => `${command!.toUpperCase()} ${(Number(usec) / Number(calls)).toFixed(1)} µs`).join(', ')}`)
  }

  console.log(`\n  what a turn sends the store's server, one turn at a time (${COUNTED} turns on new threads, then ${COUNTED} second turns on them):`)
  for (const { name, make } of countedStores) {
    const wire = new Wire()
    const handler = handlerFor(make(wire))
    const threads: string[] = []
    for (let i = 0; i < 5; i++) await turn(handler) // scripts loaded, connections open
    // A run's last event-log write may still be in flight when its response ends: let it land.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20))
    await settle()
    wire.reset()
    for (let i = 0; i < COUNTED; i++) threads.push(await turn(handler))
    await settle()
    console.log(`  ${name.padEnd(9)} new thread:  ${wire.describe(COUNTED)}`)
    wire.reset()
    for (const threadId of threads) await turn(handler, threadId)
    await settle()
    console.log(`  ${name.padEnd(9)} next turn:   ${wire.describe(COUNTED)}`)
    // The same, after another instance (a store on the same server, uncounted) wrote each thread
    // last: this instance's cache misses, and the turn may wait no more than before it had one.
    const other = handlerFor(make(new Wire()))
    for (const threadId of threads) await turn(other, threadId)
    await settle()
    wire.reset()
    for (const threadId of threads) await turn(handler, threadId)
    await settle()
    console.log(`  ${name.padEnd(9)} next turn after another instance wrote: ${wire.describe(COUNTED)}`)
    // An AG-UI client's next turn, sending its whole history (CopilotKit does, every turn): on the
    // instance that wrote last, it waits for what a Toolgate turn does; after another instance, for
    // the head read, the history read (its check) and what the turn writes. Histories are read first, uncounted.
    const reader = make(new Wire())
    let histories = await Promise.all(threads.map((threadId) => aguiHistory(reader, threadId)))
    await settle()
    wire.reset()
    for (const [index, threadId] of threads.entries()) await aguiTurn(handler, threadId, histories[index]!)
    await settle()
    console.log(`  ${name.padEnd(9)} AG-UI next turn (its whole history sent): ${wire.describe(COUNTED)}`)
    for (const threadId of threads) await turn(other, threadId)
    histories = await Promise.all(threads.map((threadId) => aguiHistory(reader, threadId)))
    await settle()
    wire.reset()
    for (const [index, threadId] of threads.entries()) await aguiTurn(handler, threadId, histories[index]!)
    await settle()
    console.log(`  ${name.padEnd(9)} AG-UI next turn after another instance wrote: ${wire.describe(COUNTED)}`)
  }

  // What one round trip costs here: a turn waits for at least its commits and its last event-log write, one after another.
  const floors = []
  const bareMs = new Map<string, number>()
  for (const { name, send } of bareRoundTrips) {
    for (let i = 0; i < 200; i++) await send()
    const start = performance.now()
    for (let i = 0; i < 1000; i++) await send()
    const ms = (performance.now() - start) / 1000
    bareMs.set(name.split(' ')[0]!, ms)
    floors.push(`${name} ${ms.toFixed(3)} ms`)
  }
  if (floors.length > 0) console.log(`  a bare round trip, one at a time: ${floors.join(', ')}`)
  if (!ONLY) console.log(`\n  one more turn on a thread with N prior turns (median of ${SAMPLE} turns; mean bytes sent to the store per turn):`)
  const flatness: string[] = []
  for (const { name, make } of ONLY ? [] : stores) {
    const cells: string[] = []
    const perTurn = new Map<number, number>()
    for (const prior of HISTORY) {
      const { store, meter } = metered(make())
      const handler = handlerFor(store)
      const threadId = await turn(handler)
      for (let i = 1; i < prior; i++) await turn(handler, threadId)
      const bytesBefore = meter.bytes
      const times: number[] = []
      for (let i = 0; i < SAMPLE; i++) {
        const start = performance.now()
        await turn(handler, threadId)
        times.push(performance.now() - start)
      }
      // The median: one turn slowed by the machine's other load moves it little.
      const ms = times.sort((a, b) => a - b)[SAMPLE >> 1]!
      perTurn.set(prior, ms)
      cells.push(`N=${String(prior).padEnd(3)} ${ms.toFixed(2).padStart(5)} ms ${String(Math.round((meter.bytes - bytesBefore) / SAMPLE)).padStart(5)} B`)
    }
    console.log(`  ${name.padEnd(9)} ${cells.join('   ')}`)
    const [first, last] = [HISTORY[0]!, HISTORY.at(-1)!]
    flatness.push(`${name} ${perTurn.get(first)!.toFixed(2)} → ${perTurn.get(last)!.toFixed(2)} ms (${(perTurn.get(last)! / perTurn.get(first)!).toFixed(2)}×)`)
  }
  // An instance takes the history of a thread it wrote last from its cache: a long thread costs its
  // turn no read of the whole history, only the JSON of what it appends.
  if (!ONLY) console.log(`  long thread, per turn at N=${HISTORY[0]} → N=${HISTORY.at(-1)} prior turns: ${flatness.join('   ')}`)

  // The model over HTTP (aimock serving OpenAI Chat Completions, its own process): a turn waits for
  // the provider too, and a shared store's writes can ride beside those waits. Printed with
  // STORES=redis too: the Redis goal (≥ 0.8× memory) is read off this line.
  if (stores.length > 1 && (!ONLY || runs('redis'))) {
    const mock = await startInstance('aimock')
    try {
      const { openAIChatModel } = await import('@toolgate/ai/providers')
      const httpModel = openAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-bench', baseURL: `${mock.url.replace(/\/$/, '')}/v1` })
      const httpHandlers = stores.map(({ make }) => createChatHandler({ model: httpModel, tools: [weather], store: make(), limits: { maxThreadMessages: 5000 } }))
      const limits = { warmup: 100, maxTurns: 1000, budgetMs: 1500 }
      const cells: string[] = []
      for (const concurrency of [1, 8]) {
        const samples = stores.map(() => [] as number[])
        for (let round = 0; round < ROUNDS; round++) {
          for (let k = 0; k < stores.length; k++) {
            const index = (k + round) % stores.length
            samples[index]!.push((await measure(() => turn(httpHandlers[index]!), concurrency, limits)).perSecond)
          }
        }
        const memory = median(samples[0]!)
        cells.push(
          `c=${concurrency}: ` +
            stores.map(({ name }, index) => `${name} ${median(samples[index]!).toFixed(0)}${index === 0 ? '' : ` (${(median(samples[index]!) / memory).toFixed(2)}× memory${name === 'redis' ? (median(samples[index]!) / memory >= 0.8 ? ' met' : ', goal ≥0.8') : ''})`}`).join(', '),
        )
      }
      console.log(`\n  with the model over HTTP (aimock, OpenAI Chat Completions streaming), a new thread per turn, turns/s, median of ${ROUNDS} interleaved rounds: ${cells.join('   ')}`)
    } finally {
      mock.stop()
    }
  }

  if (redisUrl && !ONLY) {
    console.log('\n  app processes on one Redis, over HTTP (each turn: a new thread, then a second message on it), concurrency 16:')
    const one = await processes(redisUrl, 1)
    const two = await processes(redisUrl, 2)
    console.log(`  one process: ${one.toFixed(0)} turns/s   two processes: ${two.toFixed(0)} turns/s (${(two / one).toFixed(2)}×; the processes share this machine's cores with the load generator)`)
  }
} finally {
  for (const close of closers) await close().catch(() => {})
  for (const service of services) await service.stop().catch(() => {})
}
