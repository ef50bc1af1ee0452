import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import type { ThreadHead } from '@toolgate/ai/server'
import { postgresStore } from '@toolgate/ai/server/postgres'
import { startPostgres, type PostgresServer } from '../services/postgres.ts'

// A run's events on PostgreSQL: one row per write (a thread commit's events or the log's own batch),
// read back as the events they hold under the log's rules (in order, each number once, a late
// write filling its gap, the end marked, kept a while after the end), on a real server.

let server: PostgresServer
let pool: pg.Pool
beforeAll(async () => {
  server = await startPostgres()
  pool = new pg.Pool({ connectionString: server.connectionString, max: 8 })
}, 60_000)
afterAll(async () => {
  await pool?.end()
  await server?.stop()
})

let tables = 0
async function freshStore(options: { eventRetentionMs?: number } = {}) {
  const table = `log${tables++}`
  const store = postgresStore({ pool, table, ...options })
  await store.ensureSchema()
  return { store, table }
}

/** One event of a run as logged: its number and JSON text. */
interface LoggedEvent {
  readonly seq: number
  readonly data: string
}

const head = (id: string, version: number): ThreadHead => ({ id, version, createdAt: 0, updatedAt: 0, messageCount: 0, bytes: 0, resolvedInterruptIds: [] })
const event = (seq: number, data = `{"n":${seq}}`): LoggedEvent => ({ seq, data })
const events = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => event(from + i))
const rows = async (table: string, runId: string) => Number((await pool.query(`SELECT count(*) AS n FROM ${table}_run_log WHERE run_id = $1`, [runId])).rows[0].n)

describe('the run log on PostgreSQL', () => {
  it('writes each write’s events as one row, a commit’s with its head, and reads them back as they were', async () => {
    const { store, table } = await freshStore()
    const odd = [event(6, ''), event(7, '{"text":"ü \\"quoted\\" \\\\ back\\nslash 😀"}'), event(8, '{"a":[1,2,{"b":null}]}')]
    expect(await store.commit({ head: head('t1', 1), append: [], events: { runId: 'run_one', events: events(1, 5), final: false } })).toBe(true)
    expect(await rows(table, 'run_one')).toBe(1)
    await store.events.append('run_one', odd, false)
    expect(await rows(table, 'run_one')).toBe(2)
    // The release: its last events, then the end.
    expect(await store.commit({ head: head('t1', 2), append: [], events: { runId: 'run_one', events: [event(9)] } })).toBe(true)
    expect(await rows(table, 'run_one')).toBe(3)
    expect(await store.events.read('run_one', 0)).toEqual({ events: [...events(1, 5), ...odd, event(9)], ended: true })
    // A refused commit writes none of its events.
    expect(await store.commit({ head: head('t1', 2), append: [], events: { runId: 'run_two', events: events(1, 3) } })).toBe(false)
    expect(await rows(table, 'run_two')).toBe(0)
    expect(await store.events.read('run_two', 0)).toBeUndefined()
    // An end with no events left to write.
    await store.events.append('run_three', events(1, 2), false)
    await store.events.append('run_three', [], true)
    expect(await store.events.read('run_three', 2)).toEqual({ events: [], ended: true })
    expect(await store.events.read('run_three', 0)).toEqual({ events: events(1, 2), ended: true })
  })

  it('reads overlapping, late and unordered writes as each number once, in order, the first written winning, page by page', async () => {
    const { store } = await freshStore()
    // A batch on its way that the release carries too, landing after it: nothing changes.
    await store.events.append('run_overlap', events(1, 3), false)
    expect(await store.commit({ head: head('t2', 1), append: [], events: { runId: 'run_overlap', events: [...events(4, 5), event(6, '{"last":true}')] } })).toBe(true)
    await store.events.append('run_overlap', [event(4, '{"late":true}'), event(5, '{"late":true}')], false)
    expect(await store.events.read('run_overlap', 0)).toEqual({ events: [...events(1, 5), event(6, '{"last":true}')], ended: true })
    expect(await store.events.read('run_overlap', 4)).toEqual({ events: [event(5), event(6, '{"last":true}')], ended: true })

    // A gap (a batch lost, or still on its way) is seen as one, and filled when the batch lands.
    await store.events.append('run_gap', events(1, 2), false)
    await store.events.append('run_gap', events(5, 6), false)
    expect((await store.events.read('run_gap', 0))?.events.map((e) => e.seq)).toEqual([1, 2, 5, 6])
    await store.events.append('run_gap', events(3, 4), false)
    expect(await store.events.read('run_gap', 0)).toEqual({ events: events(1, 6), ended: false })
    expect(await store.events.read('run_gap', 2)).toEqual({ events: events(3, 6), ended: false })
    // Numbers that do not follow one another in one write.
    await store.events.append('run_gap', [event(7), event(9)], false)
    await store.events.append('run_gap', [event(8)], true)
    expect(await store.events.read('run_gap', 6)).toEqual({ events: events(7, 9), ended: true })

    // Pages: at most `limit` events each, every event once, `ended` only with the last; the same batch written over and over too.
    for (let i = 0; i < 4; i++) await store.events.append('run_pages', events(1, 3), false)
    await store.events.append('run_pages', events(2, 6), false)
    await store.events.append('run_pages', events(7, 7), false)
    await store.events.append('run_pages', events(8, 10), true)
    for (const limit of [1, 2, 3, 4, 50]) {
      const read: LoggedEvent[] = []
      let ended = false
      for (let pages = 0; !ended && pages < 20; pages++) {
        const page = (await store.events.read('run_pages', read.at(-1)?.seq ?? 0, limit))!
        expect(page.events.length).toBeGreaterThan(0)
        expect(page.events.length).toBeLessThanOrEqual(limit)
        read.push(...page.events)
        ended = page.ended
      }
      expect({ limit, read, ended }).toEqual({ limit, read: events(1, 10), ended: true })
    }
  })

  it('keeps an ended run’s log for the retention after its last write, which a late batch does not extend, and a live run’s while it writes', async () => {
    const { store, table } = await freshStore({ eventRetentionMs: 300 })
    await store.events.append('run_ended', events(1, 2), false)
    await store.events.append('run_ended', [event(3)], true)
    await store.events.append('run_ended', [event(2)], false)
    await store.events.append('run_live', events(1, 2), false)
    const left = async (runId: string) =>
      (await pool.query(`SELECT ended, (extract(epoch FROM expires_at - now()) * 1000)::float8 AS left FROM ${table}_run_log WHERE run_id = $1 ORDER BY ended DESC`, [runId])).rows as { ended: boolean; left: number }[]
    // A live run's writes stay a day; the last write the retention.
    expect((await left('run_live'))[0]!.left).toBeGreaterThan(23 * 3600_000)
    expect((await left('run_ended'))[0]).toEqual({ ended: true, left: expect.any(Number) })
    expect((await left('run_ended'))[0]!.left).toBeLessThanOrEqual(300)
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(await store.events.read('run_ended', 0)).toBeUndefined()
    expect(await store.events.read('run_live', 0)).toEqual({ events: events(1, 2), ended: false })
    // A live run whose first write is a day old is still read while a later one is not.
    await pool.query(`UPDATE ${table}_run_log SET expires_at = now() - interval '1 second' WHERE run_id = 'run_live'`)
    await store.events.append('run_live', [event(3)], false)
    expect(await store.events.read('run_live', 0)).toEqual({ events: events(1, 3), ended: false })
    await store.purgeExpired()
    expect(await rows(table, 'run_ended')).toBe(0)
    expect(await rows(table, 'run_live')).toBe(2)
    // Every write expired: gone, and purged.
    await pool.query(`UPDATE ${table}_run_log SET expires_at = now() - interval '1 second' WHERE run_id = 'run_live'`)
    expect(await store.events.read('run_live', 0)).toBeUndefined()
    await store.purgeExpired()
    expect(await rows(table, 'run_live')).toBe(0)
  })

  it('notifies once per commit: a commit carrying a run’s events wakes that run’s readers and the thread’s watchers on another instance', async () => {
    const { store: writer, table } = await freshStore()
    const listener = new pg.Client({ connectionString: server.connectionString })
    const watcher = new pg.Client({ connectionString: server.connectionString })
    await Promise.all([listener.connect(), watcher.connect()])
    try {
      const heard: string[] = []
      watcher.on('notification', (message) => heard.push(message.payload ?? ''))
      await watcher.query(`LISTEN ${table}_run_events`)
      const reader = postgresStore({ pool, listener, table })
      expect(await writer.commit({ head: head('t4', 1), append: [] })).toBe(true)
      await writer.events.append('run_woken', [event(1)], false)
      // A minute's wait each: only the notification can end them within the test's time.
      const run = reader.events.wait('run_woken', 1, 60_000, new AbortController().signal)
      const thread = reader.watch!('t4', 1, 60_000, new AbortController().signal)
      await new Promise((resolve) => setTimeout(resolve, 300))
      heard.length = 0
      expect(await writer.commit({ head: head('t4', 2), append: [], events: { runId: 'run_woken', events: [event(2)] } })).toBe(true)
      await Promise.all([run, thread])
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(heard).toHaveLength(1)
      // A commit of the thread alone wakes its watchers, the log's own write the run's readers, as before.
      expect(await writer.commit({ head: head('t4', 3), append: [] })).toBe(true)
      await writer.events.append('run_other', [event(1)], false)
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(heard.slice(1)).toEqual(['thread:t4', 'run_other'])
    } finally {
      await Promise.all([listener.end(), watcher.end()])
    }
  })
})

describe('a run log row altered in PostgreSQL', () => {
  it('fails the read with a StoreError naming it, rather than handing readers events cut at the wrong places', async () => {
    const { store, table } = await freshStore()
    await store.events.append('run_altered', events(1, 3), false)
    await pool.query(`UPDATE ${table}_run_log SET data = data || 'x' WHERE run_id = 'run_altered'`)
    await expect(store.events.read('run_altered', 0)).rejects.toMatchObject({ code: 'STORE_ERROR', operation: 'read events' })
    await pool.query(`UPDATE ${table}_run_log SET data = left(data, -1), seqs = '{1,2}' WHERE run_id = 'run_altered'`)
    await expect(store.events.read('run_altered', 0)).rejects.toMatchObject({ code: 'STORE_ERROR', operation: 'read events' })
    await pool.query(`UPDATE ${table}_run_log SET seqs = NULL WHERE run_id = 'run_altered'`)
    expect(await store.events.read('run_altered', 0)).toEqual({ events: events(1, 3), ended: false })
  })
})
