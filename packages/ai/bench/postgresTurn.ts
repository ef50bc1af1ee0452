/**
 * Where a chat turn on the PostgreSQL store goes: one turn at a time through the chat handler
 * in-process (as stores.bench.ts runs it), on a throwaway server with pg_stat_statements loaded.
 * Prints, per turn, for new threads and for next turns on them: the wall time; the bench process's
 * CPU (`process.cpuUsage`); each statement as the server saw it (calls, execution and planning
 * time, rows, WAL records and bytes) and as the client waited for it; the commits, WAL bytes,
 * WAL writes and syncs (pg_stat_wal); and the bytes of the values each statement sends. The
 * server runs as the tests start it (`-c fsync=off`) unless PG_FSYNC=on, which runs it as a stock
 * server would (fsync on, synchronous_commit on).
 *
 * Run: npm run build, then tsx bench/postgresTurn.ts [turns] (PROFILE_OUT=<file> also saves a
 * `.cpuprofile` of the bench process over the next turns)
 */
import { Session } from 'node:inspector/promises'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import pg from 'pg'
import { weather, weatherModel } from './workload.ts'
import { createChatHandler, memoryStore, type ChatHandler } from '@toolgate/ai/server'
import { postgresStore } from '@toolgate/ai/server/postgres'
import { startPostgres } from '../test/services/postgres.ts'

const TURNS = Number(process.argv[2] ?? 400)
const fsync = process.env.PG_FSYNC === 'on'

/** CPU time (ms) of a process and, with `children`, of every process whose parent it is: /proc, in clock ticks of 10 ms. */
function cpuMs(pid: number, children = false): number {
  const fields = (stat: string) => stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const own = (stat: string) => (Number(fields(stat)[11]) + Number(fields(stat)[12])) * 10
  let total = own(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  if (!children) return total
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (Number(fields(stat)[1]) === pid) total += own(stat)
    } catch {}
  }
  return total
}

const server = await startPostgres(fsync ? { fsync: true } : {})
const admin = new pg.Client({ connectionString: server.connectionString })
const pool = new pg.Pool({ connectionString: server.connectionString, max: 16, pipeline: true })
try {
  await admin.connect()
  await admin.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`)
  await admin.end()
  await server.restart()
  const stats = new pg.Client({ connectionString: server.connectionString })
  await stats.connect()
  await stats.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
  await stats.query(`ALTER SYSTEM SET pg_stat_statements.track_planning = on`)
  await stats.query('SELECT pg_reload_conf()')
  const backend = Number((await stats.query('SELECT pg_backend_pid() AS pid')).rows[0].pid)
  const postmaster = Number(readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])
  const settings = await stats.query(
    `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method', 'full_page_writes', 'shared_buffers', 'wal_level', 'max_wal_size') ORDER BY name`,
  )
  console.log(`postgresTurn: PostgreSQL ${(await stats.query('SHOW server_version')).rows[0].server_version}, ${settings.rows.map((row) => `${row.name}=${row.setting}`).join(' ')}`)

  /** What the client waits for and sends, by statement kind. */
  let trace: string[] | undefined
  let traceStart = 0
  const client = new Map<string, { calls: number; ms: number; bytes: number }>()
  const kindOf = (text: string) => {
    // The store's wake-ups, sent after its commits (postgresNotify.ts).
    if (/^\s*SELECT pg_notify/i.test(text)) return 'NOTIFY after commits'
    const verb = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? '?'
    const table = /\b(?:FROM|INTO|UPDATE)\s+(\w+)/i.exec(text)?.[1] ?? ''
    const withEvents = /INSERT INTO \w+_run_log/.test(text) && verb === 'WITH' && table.endsWith('_threads') ? ' +events' : ''
    return `${verb} ${table}${withEvents}`
  }
  // Each connection's statements are timed where they are sent (the store sends on the pool, and a
  // run's commits that follow one another on one connection it holds), so the store runs as on any pg Pool.
  pool.on('connect', (connection) => {
    const send = connection.query.bind(connection) as (...args: unknown[]) => unknown
    ;(connection as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const callback = typeof args.at(-1) === 'function' ? (args.pop() as (error: unknown, result?: unknown) => void) : undefined
      const statement = args[0] as string | { text: string; values?: unknown[] }
      const text = typeof statement === 'string' ? statement : statement.text
      const sent = typeof statement === 'string' ? args[1] : statement.values
      const kind = kindOf(text)
      const entry = client.get(kind) ?? { calls: 0, ms: 0, bytes: 0 }
      client.set(kind, entry)
      entry.calls++
      entry.bytes += JSON.stringify(sent ?? []).length
      const start = performance.now()
      const answer = send(...args) as Promise<unknown>
      const done = () => {
        entry.ms += performance.now() - start
        trace?.push(`${kind} ${(start - traceStart).toFixed(3)} → ${(performance.now() - traceStart).toFixed(3)} ms`)
      }
      answer.then(done, done)
      if (!callback) return answer
      answer.then((result) => callback(undefined, result), (error) => callback(error))
      return undefined
    }
  })
  const store = postgresStore({ pool })
  await store.ensureSchema()
  // Experiments on the schema, for the breakdown (PG_TRY=noexpiry,unlogged,nologindex): the tables
  // as the store makes them now (the run log is one table, toolgate_run_log, since the runs' tables went).
  const tries = (process.env.PG_TRY ?? '').split(',').filter(Boolean)
  if (tries.includes('noexpiry')) await stats.query('DROP INDEX toolgate_threads_expires_at')
  if (tries.includes('nologindex')) await stats.query('DROP INDEX toolgate_run_log_run')
  if (tries.includes('unlogged')) await stats.query('ALTER TABLE toolgate_run_log SET UNLOGGED')
  if (tries.length > 0) console.log(`  schema experiments: ${tries.join(', ')}`)
  const handler: ChatHandler = createChatHandler({ model: weatherModel, tools: [weather], store, limits: { maxThreadMessages: 5000 } })
  const turn = async (threadId?: string) => {
    const body = JSON.stringify(threadId ? { threadId, message: 'weather in Paris' } : { message: 'weather in Paris' })
    const response = await handler(new Request('http://bench.local/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body }))
    const text = await response.text()
    if (response.status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`turn failed (${response.status}): ${text.slice(-300)}`)
    return threadId ?? /"threadId":"([^"]+)"/.exec(text)![1]!
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50))
  for (let i = 0; i < 200; i++) await turn(await turn())
  await settle()

  const snapshot = async () => {
    // Exact: transaction ids handed out (one per transaction that writes) and the WAL's position.
    // Approximate: pg_stat_wal's writes and syncs, which each backend reports when it next flushes its counters.
    const [db, wal] = await Promise.all([
      stats.query(`SELECT (txid_snapshot_xmax(txid_current_snapshot()))::bigint AS xids, (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint AS lsn`),
      stats.query(`SELECT wal_write::bigint AS writes, wal_sync::bigint AS syncs FROM pg_stat_wal`),
    ])
    return { xids: Number(db.rows[0].xids), lsn: Number(db.rows[0].lsn), ...Object.fromEntries(Object.entries(wal.rows[0]).map(([key, value]) => [key, Number(value)])) } as Record<string, number>
  }

  const phase = async (name: string, run: () => Promise<void>, profileOut?: string) => {
    client.clear()
    await stats.query('SELECT pg_stat_statements_reset()')
    await stats.query('SELECT pg_stat_clear_snapshot()')
    const before = await snapshot()
    let session: Session | undefined
    if (profileOut) {
      session = new Session()
      session.connect()
      await session.post('Profiler.enable')
      await session.post('Profiler.start')
    }
    const serverCpu = cpuMs(postmaster, true)
    const cpu = process.cpuUsage()
    const start = performance.now()
    await run()
    const ms = performance.now() - start
    const used = process.cpuUsage(cpu)
    const serverCpuMs = cpuMs(postmaster, true) - serverCpu
    if (session) {
      const { profile } = await session.post('Profiler.stop')
      writeFileSync(profileOut!, JSON.stringify(profile))
      session.disconnect()
    }
    // Backends flush their counters to the shared statistics at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1200))
    await stats.query('SELECT pg_stat_clear_snapshot()')
    const after = await snapshot()
    const per = (value: number) => value / TURNS
    console.log(`\n  ${name}: ${(ms / TURNS).toFixed(3)} ms per turn (${((TURNS / ms) * 1000).toFixed(0)} turns/s); bench process CPU ${((used.user + used.system) / 1000 / TURNS).toFixed(3)} ms per turn (user ${(used.user / 1000 / TURNS).toFixed(3)}, system ${(used.system / 1000 / TURNS).toFixed(3)})`)
    const delta = (key: string) => after[key]! - before[key]!
    console.log(
      `  server per turn: CPU of every PostgreSQL process ${per(serverCpuMs).toFixed(3)} ms, ${per(delta('xids')).toFixed(2)} writing transactions, WAL ${per(delta('lsn')).toFixed(0)} B; about ${per(delta('writes')).toFixed(2)} WAL writes and ${per(delta('syncs')).toFixed(2)} WAL syncs (as the backends reported them)`,
    )
    const statements = await stats.query(
      `SELECT query, calls, total_exec_time, total_plan_time, rows, wal_records, wal_bytes, shared_blks_hit, shared_blks_read, shared_blks_dirtied FROM pg_stat_statements
       WHERE query NOT ILIKE '%pg_stat%' AND (query NOT ILIKE 'SELECT pg_%' OR query ILIKE 'SELECT pg_notify%') ORDER BY total_exec_time DESC`,
    )
    let serverMs = 0
    for (const row of statements.rows) {
      serverMs += row.total_exec_time + row.total_plan_time
      console.log(
        `    server ${kindOf(row.query).padEnd(32)} ${per(Number(row.calls)).toFixed(2)} calls, exec ${(row.total_exec_time / Number(row.calls)).toFixed(3)} ms plan ${(row.total_plan_time / Number(row.calls)).toFixed(3)} ms per call, ${(Number(row.rows) / Number(row.calls)).toFixed(1)} rows, WAL ${(Number(row.wal_records) / Number(row.calls)).toFixed(1)} records ${(Number(row.wal_bytes) / Number(row.calls)).toFixed(0)} B, buffers hit ${(Number(row.shared_blks_hit) / Number(row.calls)).toFixed(1)} dirtied ${(Number(row.shared_blks_dirtied) / Number(row.calls)).toFixed(1)}`,
      )
    }
    const tables = await stats.query(`SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname LIKE 'toolgate_%' AND n_tup_ins + n_tup_upd > 0 ORDER BY relname`)
    console.log(`    rows so far (inserted, updated, of which in place: HOT): ${tables.rows.map((row) => `${row.relname.replace('toolgate_', '')} ${row.n_tup_ins}/${row.n_tup_upd}/${row.n_tup_hot_upd}`).join(', ')}`)
    let clientMs = 0
    for (const [kind, entry] of client) {
      clientMs += entry.ms
      console.log(`    client ${kind.padEnd(32)} ${per(entry.calls).toFixed(2)} calls, ${(entry.ms / entry.calls).toFixed(3)} ms waited per call, ${(entry.bytes / entry.calls).toFixed(0)} B of values per call`)
    }
    console.log(`  per turn: statements' server time ${per(serverMs).toFixed(3)} ms, the client's waits for them ${per(clientMs).toFixed(3)} ms (overlapping ones counted each)`)
  }

  const memoryHandler = createChatHandler({ model: weatherModel, tools: [weather], store: memoryStore(), limits: { maxThreadMessages: 5000 } })
  const memoryTurn = async () => {
    const response = await memoryHandler(new Request('http://bench.local/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'weather in Paris' }) }))
    await response.text()
  }
  for (let i = 0; i < 500; i++) await memoryTurn()
  {
    const cpu = process.cpuUsage()
    const start = performance.now()
    for (let i = 0; i < TURNS; i++) await memoryTurn()
    const ms = performance.now() - start
    const used = process.cpuUsage(cpu)
    console.log(`\n  the memory store, a new thread per turn: ${(ms / TURNS).toFixed(3)} ms per turn (${((TURNS / ms) * 1000).toFixed(0)} turns/s); bench process CPU ${((used.user + used.system) / 1000 / TURNS).toFixed(3)} ms per turn`)
  }
  const threads: string[] = []
  await phase('new thread per turn', async () => {
    for (let i = 0; i < TURNS; i++) threads.push(await turn())
  })
  await phase(
    'next turn on each of those threads',
    async () => {
      for (const threadId of threads) await turn(threadId)
    },
    process.env.PROFILE_OUT,
  )
  for (const threadId of threads.slice(0, 3)) {
    trace = []
    traceStart = performance.now()
    await turn(threadId)
    trace.push(`response read ${(performance.now() - traceStart).toFixed(3)} ms`)
    await settle()
    console.log(`\n  one next turn, each statement from sent to answered:\n    ${trace.join('\n    ')}`)
    trace = undefined
  }
  const bare = async () => pool.query({ name: 'bare_select_1', text: 'SELECT 1', values: [] })
  for (let i = 0; i < 200; i++) await bare()
  const start = performance.now()
  for (let i = 0; i < 1000; i++) await bare()
  console.log(`\n  a bare SELECT 1 (named): ${((performance.now() - start) / 1000).toFixed(3)} ms`)
  await stats.end()
} finally {
  await pool.end().catch(() => {})
  await server.stop()
}
