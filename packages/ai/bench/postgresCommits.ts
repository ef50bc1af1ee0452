/**
 * What a turn's commits cost the PostgreSQL server, counted rather than timed (the machine's other
 * load moves turns/s far more than these counts): a new-thread turn and a next turn are run through
 * the chat handler and the commit statements the store sends are captured; then they are replayed
 * with fresh thread and run ids (same lengths), one turn pair after another (c=1) and from 8
 * connections at once (c=8), beside the same number of statements of each floor:
 *   SELECT 1      the goal's floor (stores.bench's "memory + SELECT 1")
 *   write         the least write of this design (stores.bench's "memory + write"): the thread's row
 *                 inserted, then updated by compare-and-set on its version, one small row appended
 *   rows          the rows a turn must store, written plainly (stores.bench's "memory + rows"): the
 *                 head's JSON, each message a row, a commit's events one row; one table, one index,
 *                 no expiry, no check of the head it follows
 *   store         the store's own statements, as captured
 * Printed per turn: the server's CPU (every PostgreSQL process, /proc, 10 ms ticks over thousands of
 * turns), this process's CPU (node-postgres encoding values and reading answers: no JSON of heads or
 * messages, made once at capture), the WAL written and the wall time. The server runs as the tests
 * start it (fsync off) unless PG_FSYNC=on.
 *
 * Run: npm run build, then tsx bench/postgresCommits.ts [turn pairs per round, default 2000]
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import pg from 'pg'
import { weather, weatherModel } from './workload.ts'
import { createChatHandler } from '@toolgate/ai/server'
import { postgresStore } from '@toolgate/ai/server/postgres'
import { startPostgres } from '../test/services/postgres.ts'

const PAIRS = Number(process.argv[2] ?? 2000)
const ROUNDS = 3

const server = await startPostgres({ fsync: process.env.PG_FSYNC === 'on' })
const pool = new pg.Pool({ connectionString: server.connectionString, max: 4 })
const clients: pg.Client[] = []
try {
  // The store's commits of one new-thread turn and the next turn on it, as sent.
  const captured: { text: string; values: unknown[] }[] = []
  let capturing = false
  pool.on('connect', (connection) => {
    const send = connection.query.bind(connection) as (...args: unknown[]) => unknown
    ;(connection as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const statement = args[0] as { text?: string; values?: unknown[] }
      if (capturing && /^\s*WITH head AS/.test(statement.text ?? '')) captured.push({ text: statement.text!, values: [...statement.values!] })
      return send(...args)
    }
  })
  const store = postgresStore({ pool })
  await store.ensureSchema()
  const handler = createChatHandler({ model: weatherModel, tools: [weather], store })
  const turn = async (threadId?: string) => {
    const body = JSON.stringify(threadId ? { threadId, message: 'weather in Paris' } : { message: 'weather in Paris' })
    const text = await (await handler(new Request('http://bench.local/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body }))).text()
    if (!text.includes('"RUN_FINISHED"')) throw new Error(`turn failed: ${text.slice(-300)}`)
    return threadId ?? /"threadId":"([^"]+)"/.exec(text)![1]!
  }
  await turn(await turn())
  capturing = true
  await turn(await turn())
  await new Promise((resolve) => setTimeout(resolve, 50))
  capturing = false
  const threadId = captured[0]!.values[0] as string
  const runIds = [...new Set(captured.flatMap(({ values }) => values.filter((value): value is string => typeof value === 'string' && /^run_[\w-]+$/.test(value))))]
  console.log(
    `postgresCommits: ${captured.length} commits a turn pair (new thread, next turn), ${captured.reduce((sum, { values }) => sum + JSON.stringify(values).length, 0)} B of values; fsync=${process.env.PG_FSYNC === 'on' ? 'on' : 'off'}`,
  )

  const admin = new pg.Client({ connectionString: server.connectionString })
  await admin.connect()
  clients.push(admin)
  await admin.query(`CREATE TABLE bench_floor_heads (id text PRIMARY KEY, version integer NOT NULL);
    CREATE TABLE bench_floor_rows (id text NOT NULL, seq integer NOT NULL, PRIMARY KEY (id, seq));
    CREATE TABLE bench_floor_threads (id text PRIMARY KEY, version integer NOT NULL, head text NOT NULL);
    CREATE TABLE bench_floor_data (id text NOT NULL, seq integer NOT NULL, body text NOT NULL, PRIMARY KEY (id, seq))`)
  const dataDir = (await admin.query('SHOW data_directory')).rows[0].data_directory as string
  const postmaster = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0])
  const serverCpuMs = () =>
    [postmaster, ...execFileSync('pgrep', ['-P', String(postmaster)]).toString().split('\n').filter(Boolean).map(Number)].reduce((sum, pid) => {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
        return sum + (Number(fields[11]) + Number(fields[12])) * 10
      } catch {
        return sum // a process that ended meanwhile
      }
    }, 0)
  const walBytes = async () => Number((await admin.query(`SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint AS lsn`)).rows[0].lsn)

  /** Fresh ids as long as the captured ones, so rows and index entries are as large. */
  let minted = 0
  const fresh = (like: string) => {
    const id = `${like.slice(0, like.indexOf('_') + 1)}${(minted++).toString(36)}`
    return id.padEnd(like.length, '-')
  }
  const rowsSql = `INSERT INTO bench_floor_data SELECT head.id, r.seq, r.body FROM head, (
    SELECT $4 + m.ord::integer AS seq, m.body::text AS body FROM json_array_elements($5::json) WITH ORDINALITY AS m(body, ord)
    UNION ALL SELECT -$2, $6::text WHERE $6::text IS NOT NULL) r`
  /** Each contender: one turn pair's statements on `client`. */
  const contenders: Record<string, (client: pg.Client) => Promise<void>> = {
    'SELECT 1': async (client) => {
      for (let i = 0; i < captured.length; i++) await client.query({ name: 'select_1', text: 'SELECT 1', values: [] })
    },
    write: async (client) => {
      const id = fresh(threadId)
      for (const [i, { values }] of captured.entries()) {
        await (values[1] === 1
          ? client.query({ name: 'write_insert', text: 'INSERT INTO bench_floor_heads VALUES ($1, 1)', values: [id] })
          : client.query({
              name: 'write_update',
              text: 'WITH head AS (UPDATE bench_floor_heads SET version = $2 WHERE id = $1 RETURNING id) INSERT INTO bench_floor_rows SELECT id, $2 FROM head',
              values: [id, i + 1],
            }))
      }
    },
    rows: async (client) => {
      const id = fresh(threadId)
      for (const { values } of captured) {
        const head = values[2] as string
        const version = values[1] as number
        const append = values.find((value): value is string => typeof value === 'string' && value.startsWith('[{')) ?? '[]'
        const events = values.find((value): value is string => typeof value === 'string' && value.startsWith('{"type"')) ?? null
        const first = (JSON.parse(head) as { messageCount: number }).messageCount - (JSON.parse(append) as unknown[]).length
        const rowValues = [id, version, head, first, append, events]
        const { rowCount } = await (version === 1
          ? client.query({ name: 'rows_insert', text: `WITH head AS (INSERT INTO bench_floor_threads VALUES ($1, $2, $3) RETURNING id) ${rowsSql}`, values: rowValues })
          : client.query({ name: 'rows_update', text: `WITH head AS (UPDATE bench_floor_threads SET version = $2, head = $3 WHERE id = $1 AND version = $2 - 1 RETURNING id) ${rowsSql}`, values: rowValues }))
        if (!rowCount) throw new Error('rows: not written')
      }
    },
    store: async (client) => {
      const ids = new Map<unknown, string>([[threadId, fresh(threadId)], ...runIds.map((runId) => [runId, fresh(runId)] as const)])
      for (const [i, { text, values }] of captured.entries()) {
        const { rowCount, rows } = await client.query({ name: `store_${i}`, text, values: values.map((value) => ids.get(value) ?? value) })
        if (!rowCount || (rows[0] && 'written' in rows[0] && Number(rows[0].written) !== 1)) throw new Error(`store: commit ${i} not written`)
      }
    },
  }

  for (const concurrency of [1, 8]) {
    while (clients.length < concurrency + 1) {
      const client = new pg.Client({ connectionString: server.connectionString })
      await client.connect()
      clients.push(client)
    }
    const workers = clients.slice(1, concurrency + 1)
    const samples = new Map<string, { serverUs: number[]; clientUs: number[]; wal: number[]; wallUs: number[] }>()
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, pair] of Object.entries(contenders)) {
        for (const worker of workers) for (let i = 0; i < 20; i++) await pair(worker)
        const [server0, wal0, cpu0, start] = [serverCpuMs(), await walBytes(), process.cpuUsage(), performance.now()]
        let next = 0
        await Promise.all(workers.map(async (worker) => {
          while (next++ < PAIRS) await pair(worker)
        }))
        const [wall, cpu, wal, serverMs] = [performance.now() - start, process.cpuUsage(cpu0), (await walBytes()) - wal0, serverCpuMs() - server0]
        const turns = 2 * PAIRS
        const sample = samples.get(name) ?? { serverUs: [], clientUs: [], wal: [], wallUs: [] }
        samples.set(name, sample)
        sample.serverUs.push((serverMs * 1000) / turns)
        sample.clientUs.push((cpu.user + cpu.system) / turns)
        sample.wal.push(wal / turns)
        sample.wallUs.push((wall * 1000) / turns)
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!
    const spread = (values: number[]) => `${median(values).toFixed(0).padStart(4)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`
    console.log(`\n  c=${concurrency}, per turn, median of ${ROUNDS} interleaved rounds of ${PAIRS} turn pairs (spread):`)
    for (const [name, sample] of samples) {
      console.log(`  ${name.padEnd(9)} server CPU ${spread(sample.serverUs)} µs   client CPU ${spread(sample.clientUs)} µs   WAL ${median(sample.wal).toFixed(0).padStart(5)} B   wall ${spread(sample.wallUs)} µs`)
    }
  }
} finally {
  for (const client of clients) await client.end().catch(() => {})
  await pool.end().catch(() => {})
  await server.stop()
}
