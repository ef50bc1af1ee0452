import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { StoreError, type ThreadHead } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { postgresStore } from '@toolgate/ai/server/postgres'
import { weatherTool } from './fixtures.ts'
import { stored } from './helpers/store.ts'
import { closeAll, startServer } from './helpers/server.ts'
import { startPostgres, type PostgresServer } from '../services/postgres.ts'

// What a turn sends PostgreSQL, on a real server through a stock pg Pool. On a node-postgres Pool
// made with `pipeline: true`, a run's commit sent behind one not yet answered is written behind it
// on that one's connection: the server takes them in order, so the follower is never refused for
// coming first and sent again, and a connection that breaks between them neither loses a write nor
// makes one twice. A read of the head asked in the tick a commit of that thread is sent is answered
// by that commit.

afterEach(closeAll)

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgres()
}, 60_000)
afterAll(() => server?.stop())

const head = (id: string, version: number): ThreadHead => ({ id, version, createdAt: 0, updatedAt: 0, messageCount: version, bytes: 0, resolvedInterruptIds: [] })
const message = (id: string) => ({ role: 'user' as const, id, content: id })

type Query = (...args: unknown[]) => unknown

/**
 * A real pg.Pool (`pipeline`: made with `pipeline: true`) whose connections each send their
 * statements in the order asked, one `slow` picks after a delay (a slow link to the server), and
 * tell `answered` of each commit's answer before the store hears it; counts commits and head reads sent.
 */
function pooled(slow: (text: string) => number, answered?: (client: pg.PoolClient) => Promise<void>, pipeline = false) {
  // `pipeline` (node-postgres 8.2x) writes each statement as soon as it is asked, not once the last is answered.
  const pool = new pg.Pool({ connectionString: server.connectionString, max: 4, ...(pipeline ? { pipeline: true } : {}) } as pg.PoolConfig)
  const sent = { commits: 0, headReads: 0 }
  pool.on('connect', (client) => {
    const send = client.query.bind(client) as Query
    let queue: Promise<unknown> = Promise.resolve()
    ;(client as unknown as { query: Query }).query = (...args: unknown[]) => {
      const callback = typeof args.at(-1) === 'function' ? (args.pop() as (error: unknown, result?: unknown) => void) : undefined
      const statement = args[0] as string | { text: string }
      const text = typeof statement === 'string' ? statement : statement.text
      const commit = /WITH head AS \(\s*(?:INSERT INTO|UPDATE) \w+_threads/.test(text)
      if (commit) sent.commits++
      if (/^SELECT head FROM \w+_threads/.test(text)) sent.headReads++
      const delay = slow(text)
      // Sent in the order asked (each after its delay), answered as the connection answers.
      let reply!: Promise<unknown>
      const sending = queue.then(() => (delay > 0 ? new Promise((resolve) => setTimeout(resolve, delay)) : undefined)).then(() => void (reply = send(...args) as Promise<unknown>))
      queue = sending
      const answer = sending.then(async () => {
        const result = await reply
        if (commit && answered) await answered(client)
        return result
      })
      if (!callback) return answer
      answer.then((result) => callback(undefined, result), (error) => callback(error))
      return undefined
    }
  })
  return { pool, sent }
}

describe('a commit sent behind one not yet answered (PostgreSQL, a node-postgres Pool)', () => {
  it('is written behind it on its connection, on a pool that pipelines: it lands after it on its first try even when the first one’s link is slower, sent once, never refused for coming first', async () => {
    let delayNext = false
    const { pool, sent } = pooled(
      (text) => {
        if (!delayNext || !/(?:INSERT INTO|UPDATE) chain_threads/.test(text)) return 0
        delayNext = false
        return 50
      },
      undefined,
      true,
    )
    try {
      const store = postgresStore({ pool, table: 'chain' })
      await store.ensureSchema()
      const id = 'slow'
      const [one, two, three] = [head(id, 1), head(id, 2), head(id, 3)]
      expect(await store.commit({ head: one, append: [message('a')] })).toBe(true)
      // Two connections open and idle: on separate ones the second commit would reach the server first.
      await Promise.all([pool.query('SELECT 1'), pool.query('SELECT 1')])
      sent.commits = 0
      delayNext = true
      const second = store.commit({ head: two, append: [message('b')], follows: one })
      const third = store.commit({ head: three, append: [message('c')], follows: two })
      expect(await Promise.all([second, third])).toEqual([true, true])
      expect(sent.commits).toBe(2)
      const thread = (await stored(store, id))!
      expect(thread.head).toEqual(three)
      expect(thread.messages.map((m) => m.id)).toEqual(['a', 'b', 'c'])
    } finally {
      await pool.end()
    }
  })

  it('neither loses a write nor makes one twice when the connection breaks after the first landed, before its answer: what is stored is whole, and the broken connection is not used again', async () => {
    const admin = new pg.Client({ connectionString: server.connectionString })
    await admin.connect()
    let breakAfterNext = false
    const broken: pg.PoolClient[] = []
    const { pool, sent } = pooled(
      () => 0,
      async (client) => {
        if (!breakAfterNext) return
        breakAfterNext = false
        // The first commit has landed (the one behind it is on the wire too); the connection goes before its answer is read.
        broken.push(client)
        const ended = new Promise((resolve) => client.once('end', resolve))
        await admin.query('SELECT pg_terminate_backend($1)', [(client as unknown as { processID: number }).processID])
        await ended
        await new Promise((r) => setTimeout(r, 50))
        throw new Error('connection terminated before the answer was read')
      },
      true,
    )
    pool.on('error', () => {})
    try {
      const store = postgresStore({ pool, table: 'chain' })
      await store.ensureSchema()
      const [one, two, three] = [head('cut', 1), head('cut', 2), head('cut', 3)]
      expect(await store.commit({ head: one, append: [message('a')] })).toBe(true)
      sent.commits = 0
      breakAfterNext = true
      const second = store.commit({ head: two, append: [message('b')], follows: one })
      const third = store.commit({ head: three, append: [message('c')], follows: two })
      // Both are observed at once: the one behind may fail first (its answer is read as the connection goes).
      const [first, behind] = await Promise.allSettled([second, third])
      expect(first.status === 'rejected' && first.reason).toBeInstanceOf(StoreError)
      // The one behind it was answered before the connection went, or fails as the first did: its answer was lost.
      if (behind.status === 'rejected') expect(behind.reason).toBeInstanceOf(StoreError)
      const landed = behind.status === 'fulfilled' && behind.value
      expect(broken).toHaveLength(1)
      expect(sent.commits).toBe(2)
      const thread = (await stored(store, 'cut'))!
      expect(thread.head).toEqual(landed ? three : expect.objectContaining({ id: 'cut' }))
      // Whole: the stored head counts exactly the messages stored, each once, in order.
      expect(thread.messages.map((m) => m.id)).toEqual(['a', 'b', 'c'].slice(0, thread.head.messageCount))
      expect([two, three]).toContainEqual(thread.head)
      // The pool gave the broken connection up: the next commits go through.
      const next = head('cut', thread.head.version + 1)
      expect(await store.commit({ head: next, append: [message('d')], follows: thread.head })).toBe(true)
      expect(await store.commit({ head: head('cut', next.version + 1), append: [message('e')] })).toBe(true)
      expect((await stored(store, 'cut'))!.messages.map((m) => m.id)).toEqual([...thread.messages.map((m) => m.id), 'd', 'e'])
    } finally {
      await admin.end()
      await pool.end()
    }
  })
})

describe('a read of a thread’s head asked in the tick a commit of that thread is sent (PostgreSQL)', () => {
  it('is answered by that commit, with no statement of its own: the head it wrote, the head it found when it did not write, none when the thread is gone', async () => {
    const { pool, sent } = pooled(() => 0)
    try {
      const store = postgresStore({ pool, table: 'reads' })
      await store.ensureSchema()
      const one = head('read', 1)
      expect(await store.commit({ head: one, append: [message('a')] })).toBe(true)
      sent.commits = 0
      // Written: the read gets the head the commit wrote.
      const two = head('read', 2)
      const [afterWrite, wrote] = await Promise.all([store.head('read'), store.commit({ head: two, append: [message('b')], follows: one })])
      expect(wrote).toBe(true)
      expect(afterWrite).toEqual(two)
      // Not written (it follows a head the thread no longer has): the read gets the stored head. Asked before the commit, in the same tick.
      const found = store.head('read')
      expect(await store.commit({ head: head('read', 3), append: [message('c')], follows: one })).toBe(false)
      expect(await found).toEqual(two)
      // Gone (expired): none.
      await pool.query(`UPDATE reads_threads SET expires_at = now() - interval '1 second' WHERE id = 'read'`)
      const gone = store.head('read')
      expect(await store.commit({ head: head('read', 3), append: [message('c')], follows: two })).toBe(false)
      expect(await gone).toBeUndefined()
      expect(sent).toEqual({ commits: 3, headReads: 0 })
      // A read with no commit of its thread sent after it in its tick is sent alone.
      expect(await store.head('read')).toBeUndefined()
      expect(await Promise.all([store.head('other'), store.commit({ head: head('another', 1), append: [message('x')] })])).toEqual([undefined, true])
      expect(sent.headReads).toBe(2)
    } finally {
      await pool.end()
    }
  })

  it('so a next turn on the thread this instance wrote last sends no head read: its claim answers it', async () => {
    const { pool, sent } = pooled(() => 0)
    try {
      const store = postgresStore({ pool, table: 'turns' })
      await store.ensureSchema()
      const rule = { when: /weather in (\w+)/i, call: (m: RegExpMatchArray) => ({ tool: 'get_weather', input: { city: m[1] } }), then: ([r]: any[]) => `It is ${r.output?.tempC} degrees` }
      const app = await startServer({ model: scriptedModel([rule]), tools: [weatherTool], store })
      const first = await app.send('weather in Oslo')
      expect(first.text).toBe('It is 4 degrees')
      sent.headReads = 0
      const next = await app.send('weather in Oslo', first.threadId)
      expect(next.text).toBe('It is 4 degrees')
      expect(sent.headReads).toBe(0)
      expect((await stored(store, first.threadId))!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant'])
    } finally {
      await pool.end()
    }
  })
})
