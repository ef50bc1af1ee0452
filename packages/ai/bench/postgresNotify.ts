/**
 * What a NOTIFY inside a commit costs the server's commits: 8 connections each committing one
 * small insert after another for a while, a LISTENing client connected, in four ways: no NOTIFY;
 * `pg_notify` inside the insert's transaction (PostgreSQL then takes a cluster-wide lock at
 * pre-commit and holds it through the WAL flush); a `pg_notify` statement of its own after each
 * commit is answered (not awaited by the writer); and one `pg_notify` per event-loop turn carrying
 * every commit answered in it, one in flight at a time (as postgresStore does). Prints commits/s,
 * each round timed until its last notification is sent too, median of 3 interleaved rounds with
 * the range, with the server's fsync off and on.
 *
 * Run: tsx bench/postgresNotify.ts [ms per round, default 2000]
 */
import pg from 'pg'
import { startPostgres } from '../test/services/postgres.ts'

const ROUND_MS = Number(process.argv[2] ?? 2000)
const CONNECTIONS = 8
type Way = 'none' | 'inside' | 'after each' | 'after, one per turn'
const WAYS: Way[] = ['none', 'inside', 'after each', 'after, one per turn']

for (const fsync of [false, true]) {
  const server = await startPostgres({ fsync })
  const pool = new pg.Pool({ connectionString: server.connectionString, max: CONNECTIONS + 2 })
  const listener = new pg.Client({ connectionString: server.connectionString })
  try {
    await listener.connect()
    await listener.query('LISTEN raw')
    let heard = 0
    listener.on('notification', () => void heard++)
    await pool.query('CREATE TABLE raw_rows (id bigserial PRIMARY KEY, writer integer NOT NULL, n integer NOT NULL)')
    const figures = new Map<Way, number[]>(WAYS.map((way) => [way, []]))
    for (let round = 0; round < 3; round++) {
      for (const way of WAYS) {
        let queued: string[] = []
        let sending = false
        const notifies: Promise<unknown>[] = []
        const flush = () => {
          if (sending || queued.length === 0) return
          const payload = queued.join('\n')
          queued = []
          sending = true
          let done!: () => void
          notifies.push(new Promise<void>((resolve) => (done = resolve)))
          void pool.query({ name: 'raw_notify_many', text: `SELECT pg_notify('raw', $1)`, values: [payload] }).finally(() => {
            sending = false
            if (queued.length > 0) flush()
            done()
          })
        }
        const deadline = Date.now() + ROUND_MS
        let commits = 0
        const writer = async (id: number) => {
          const client = await pool.connect()
          try {
            for (let n = 0; Date.now() < deadline; n++) {
              const values = [id, n]
              if (way === 'inside') {
                await client.query({ name: 'raw_inside', text: `INSERT INTO raw_rows (writer, n) VALUES ($1, $2) RETURNING pg_notify('raw', $1::text)`, values })
              } else {
                await client.query({ name: 'raw_insert', text: 'INSERT INTO raw_rows (writer, n) VALUES ($1, $2)', values })
                if (way === 'after each') notifies.push(pool.query({ name: 'raw_notify', text: `SELECT pg_notify('raw', $1::text)`, values: [id] }))
                if (way === 'after, one per turn') {
                  if (queued.push(String(id)) === 1) setImmediate(flush)
                }
              }
              commits++
            }
          } finally {
            client.release()
          }
        }
        const started = performance.now()
        await Promise.all(Array.from({ length: CONNECTIONS }, (_, id) => writer(id)))
        for (let i = 0; i < notifies.length; i++) await notifies[i]
        figures.get(way)!.push((commits / (performance.now() - started)) * 1000)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }
    const line = WAYS.map((way) => {
      const sorted = figures.get(way)!.sort((a, b) => a - b)
      return `${way} ${Math.round(sorted[1]!)} (${Math.round(sorted[0]!)}–${Math.round(sorted[2]!)})`
    })
    console.log(`fsync=${fsync ? 'on ' : 'off'}, ${CONNECTIONS} connections, commits/s: ${line.join(', ')}; notifications heard ${heard}`)
  } finally {
    await listener.end().catch(() => {})
    await pool.end()
    await server.stop()
  }
}
