import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import pg from 'pg'
import type { ThreadHead } from '@toolgate/ai/server'
import { postgresStore, type PostgresQueryable } from '@toolgate/ai/server/postgres'
import { startPostgres, type PostgresServer } from '../services/postgres.ts'

// Wake-ups on PostgreSQL go after the commits they announce (a NOTIFY inside a commit holds a
// cluster-wide lock through its WAL flush): one statement at a time per store, carrying every
// commit answered meanwhile; and a wake-up that never goes out (the instance died between its
// commit and its notify, the notify failed) is found by the waiters' own look.

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

const head = (id: string, version: number): ThreadHead => ({ id, version, createdAt: 0, updatedAt: 0, messageCount: 0, bytes: 0, resolvedInterruptIds: [] })
const isNotify = (text: string) => text.includes('pg_notify')

/** A client LISTENing on the store's channel, as another instance would: what it hears, one entry per notification. */
async function eavesdrop(table: string) {
  const client = new pg.Client({ connectionString: server.connectionString })
  await client.connect()
  const heard: string[] = []
  client.on('notification', (message) => heard.push(message.payload ?? ''))
  await client.query(`LISTEN ${table}_run_events`)
  return { heard, end: () => client.end() }
}

describe('wake-ups on PostgreSQL', () => {
  it('go after the commit, one statement at a time: the commits answered while one is on its way go out together in the next, every key once', async () => {
    const table = 'coalesced'
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    const notifies: unknown[][] = []
    const gated: PostgresQueryable = {
      query: async (text, values) => {
        if (!isNotify(text)) return pool.query(text, values)
        notifies.push(values ?? [])
        await gate
        return pool.query(text, values)
      },
    }
    const store = postgresStore({ pool: gated, table })
    await store.ensureSchema()
    const listening = await eavesdrop(table)
    try {
      expect(await store.commit({ head: head('a', 1), append: [] })).toBe(true)
      // The first wake-up is on its way (held): the next commits' wait for it, and go as one.
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(notifies).toHaveLength(1)
      const written = await Promise.all([
        store.commit({ head: head('b', 1), append: [] }),
        store.commit({ head: head('c', 1), append: [] }),
        store.commit({ head: head('a', 2), append: [], events: { runId: 'run_a', events: [{ seq: 1, data: '{}' }] } }),
      ])
      expect(written).toEqual([true, true, true])
      await store.events.append('run_b', [{ seq: 1, data: '{}' }], false)
      // A refused commit wakes no one.
      expect(await store.commit({ head: head('b', 1), append: [] })).toBe(false)
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(notifies).toHaveLength(1)
      open()
      await expect.poll(() => listening.heard.length).toBe(2)
      expect(notifies).toHaveLength(2)
      expect(listening.heard[0]).toBe('thread:a')
      expect(listening.heard[1]!.split('\n').sort()).toEqual(['run_a', 'run_b', 'thread:a', 'thread:b', 'thread:c'])
    } finally {
      open()
      await listening.end()
    }
  })

  it('lost (its instance died after the commit, or the notify failed) are made up by the waiters’ look: a watcher and a reader on another instance still see the commit', async () => {
    const table = 'lost'
    const failures: string[] = []
    const notifying: string[] = []
    // The writer's notifies never reach the server, as when its process dies right after the commit.
    const losing: PostgresQueryable = {
      query: (text, values) => {
        if (!isNotify(text)) return pool.query(text, values)
        notifying.push(text)
        return Promise.reject(Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }))
      },
    }
    const writer = postgresStore({ pool: losing, table, onError: (error) => void failures.push(error.operation) })
    await writer.ensureSchema()
    const listener = new pg.Client({ connectionString: server.connectionString })
    await listener.connect()
    const listening = await eavesdrop(table)
    try {
      const reader = postgresStore({ pool, listener, table })
      expect(await writer.commit({ head: head('t', 1), append: [] })).toBe(true)
      await writer.events.append('run_t', [{ seq: 1, data: '{"n":1}' }], false)
      // A minute's wait each, with notifications flowing: no notification will come.
      const watched = reader.watch!('t', 1, 60_000, new AbortController().signal)
      const waited = reader.events.wait('run_t', 1, 60_000, new AbortController().signal)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(await writer.commit({ head: head('t', 2), append: [], events: { runId: 'run_t', events: [{ seq: 2, data: '{"n":2}' }] } })).toBe(true)
      await Promise.all([watched, waited])
      expect((await reader.head('t'))?.version).toBe(2)
      expect((await reader.events.read('run_t', 1))?.events).toEqual([{ seq: 2, data: '{"n":2}' }])
      expect(notifying.length).toBeGreaterThan(0)
      expect(failures).toContain('NOTIFY')
      expect(listening.heard).toEqual([])
    } finally {
      await Promise.all([listener.end(), listening.end()])
    }
  }, 15_000)

  it('that fail are logged as what they are (no request waits for one), and a pool the app ends right after its last commit sends none and logs nothing', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      // A notify the server refuses: the line says what it costs, not that requests fail.
      const refusing: PostgresQueryable = { query: (text, values) => (isNotify(text) ? Promise.reject(new Error('refused')) : pool.query(text, values)) }
      const refused = postgresStore({ pool: refusing, table: 'refused' })
      await refused.ensureSchema()
      expect(await refused.commit({ head: head('r', 1), append: [] })).toBe(true)
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(logged.mock.calls.map(([line]) => String(line))).toEqual([
        expect.stringMatching(/^\[toolgate\] postgresStore: NOTIFY failed \(Error\); watchers and readers on other instances see the change by their next look \(within 5 s\)$/),
      ])
      logged.mockClear()
      // An app closing its pool once its last turn is answered.
      const own = new pg.Pool({ connectionString: server.connectionString, max: 2 })
      const closing = postgresStore({ pool: own, table: 'closing' })
      await closing.ensureSchema()
      expect(await closing.commit({ head: head('c', 1), append: [] })).toBe(true)
      await own.end()
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(logged).not.toHaveBeenCalled()
    } finally {
      logged.mockRestore()
    }
  })
})
