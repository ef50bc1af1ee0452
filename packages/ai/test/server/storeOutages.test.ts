import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import pg from 'pg'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { memoryStore, StoreError, type ThreadStore } from '@toolgate/ai/server'
import { type ErrorBody } from '@toolgate/ai/protocol'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { redisStore } from '@toolgate/ai/server/redis'
import { postgresStore, type PostgresListenerLike } from '@toolgate/ai/server/postgres'
import { startRedis, stopChild, waitForOutput, type RedisServer } from '../services/redis.ts'
import { startPostgres, type PostgresServer } from '../services/postgres.ts'
import { closeAll, startServer } from './helpers/server.ts'

// Stores under outages, against the real servers: restarted, stopped and frozen while an instance
// runs. An instance survives and serves again, readers are woken again once the notification
// channel is back (and poll meanwhile), requests during the outage get 503 STORE_ERROR, and the
// schema can be created by many instances at once.

const packageDir = fileURLToPath(new URL('../..', import.meta.url))
const serverScript = fileURLToPath(new URL('../services/chatServer.ts', import.meta.url))

let redis: RedisServer
let postgres: PostgresServer
let dir: string
const children: ChildProcess[] = []

beforeAll(async () => {
  ;[redis, postgres] = await Promise.all([startRedis(), startPostgres()])
  dir = mkdtempSync(join(tmpdir(), 'toolgate-outage-'))
}, 60_000)
afterEach(async () => {
  await Promise.all(children.splice(0).map(stopChild))
  await closeAll()
})
afterAll(async () => {
  await Promise.all([redis?.stop(), postgres?.stop()])
  rmSync(dir, { recursive: true, force: true })
})

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits, bounded, until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 600 && !condition(); attempt++) await pause(10)
  if (!condition()) throw new Error('condition never held')
}

/** An instance in its own process, its store set up as the README shows. */
async function instance(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--conditions=@toolgate/source', '--import', 'tsx', serverScript], {
    cwd: packageDir,
    env: { ...process.env, TOOL_LOG: join(dir, 'tools.log'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let port = 0
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    const match = /listening (\d+)/.exec(output)
    if (match) port = Number(match[1])
  })
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  await waitForOutput(child, /listening \d+/, 'chat server', 30_000)
  return { child, url: `http://127.0.0.1:${port}/`, output: () => output }
}

const turn = async (url: string, message: string) => {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) })
  return { response, text: await response.text() }
}

/**
 * Sends turns until one finishes; every failed one meanwhile must be a 503 STORE_ERROR with
 * `Retry-After`. Returns how many failed.
 */
async function untilServed(url: string): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const { response, text } = await turn(url, 'tell a story')
    if (response.status === 200 && text.includes('"RUN_FINISHED"')) return attempt
    if (response.status === 200) {
      expect(text).toContain('"code":"STORE_ERROR"')
    } else {
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/)
      expect((JSON.parse(text) as ErrorBody).error.code).toBe('STORE_ERROR')
    }
    await pause(100)
  }
  throw new Error('the instance never served a turn again')
}

describe('an instance set up as the README shows survives its store restarting', () => {
  it('on Redis: the process lives on, and serves again once Redis is back', async () => {
    const a = await instance({ REDIS_URL: redis.url, PREFIX: 'survive:' })
    expect(await untilServed(a.url)).toBe(0)
    await redis.restart()
    await untilServed(a.url)
    expect(a.child.exitCode).toBeNull()
    expect(a.child.signalCode).toBeNull()
    // The client's connection errors went to the store's `onError`, not to a crash.
    expect(a.output()).toMatch(/store-error redisStore: (subscriber )?connection failed/)
  }, 60_000)

  it('on PostgreSQL: the process lives on, and serves again once the server is back', async () => {
    const a = await instance({ DATABASE_URL: postgres.connectionString, PREFIX: 'survive' })
    expect(await untilServed(a.url)).toBe(0)
    await postgres.restart()
    await untilServed(a.url)
    expect(a.child.exitCode).toBeNull()
    expect(a.child.signalCode).toBeNull()
    expect(a.output()).toMatch(/store-error postgresStore: (idle connection|LISTEN connection)/)
  }, 60_000)
})

describe('requests during an outage get 503 STORE_ERROR', () => {
  it('PostgreSQL down: 503 with Retry-After, no connection string in the answer; served again once it is up', async () => {
    const pool = new pg.Pool({ connectionString: postgres.connectionString })
    const store = postgresStore({ pool, table: 'down', onError: () => {} })
    await store.ensureSchema()
    const server = await startServer({ model: scriptedModel([{ when: /.*/, reply: 'hi' }]), store })
    const { threadId } = await server.send('hello')
    await postgres.down()
    try {
      const response = await fetch(`${server.url}?threadId=${threadId}`)
      const text = await response.text()
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('2')
      expect(JSON.parse(text)).toEqual({ error: { code: 'STORE_ERROR', message: 'The conversation store is unavailable; try again shortly' } })
      expect(text).not.toContain('127.0.0.1')
      const posted = await server.post({ message: 'hello again' })
      expect(posted.status).toBe(503)
      // The store's own error names the operation and the failure's code, not where the server is.
      const failure = await store.head(threadId).catch((error: unknown) => error)
      expect(failure).toBeInstanceOf(StoreError)
      expect(failure).toMatchObject({ code: 'STORE_ERROR', store: 'postgresStore', operation: 'head' })
      expect((failure as StoreError).message).toMatch(/^postgresStore: head failed \(\w+( [\w.-]+)?\)$/)
      expect((failure as StoreError).message).not.toContain(new URL(postgres.connectionString).port)
    } finally {
      await postgres.up()
    }
    expect((await server.get(threadId)).status).toBe('idle')
    await pool.end()
  }, 60_000)

  it('Redis down: a log write of a run another instance made (its thread indexed beside it) fails with one StoreError, and leaves no failure unobserved', async () => {
    const down = { sendCommand: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })), on: () => {} }
    const store = redisStore({ client: down, prefix: 'down:', onError: () => {} })
    // A run id this store did not make: its first write also tells readers where its thread is.
    await expect(store.events.append('run_made_elsewhere', [{ seq: 1, data: '{}' }], false, 'thread_x')).rejects.toBeInstanceOf(StoreError)
    // An unobserved rejection would be reported by the test runner once this tick is over.
    await pause(20)
  })

  it('Redis frozen: a command without an answer within `timeoutMs` is a 503, not a hang', async () => {
    const client = await createClient({ url: redis.url }).connect()
    const errors: StoreError[] = []
    const store = redisStore({ client, prefix: 'frozen:', timeoutMs: 300, onError: (error) => errors.push(error) })
    const server = await startServer({ model: scriptedModel([{ when: /.*/, reply: 'hi' }]), store })
    const { threadId } = await server.send('hello')
    redis.freeze()
    try {
      const response = await fetch(`${server.url}?threadId=${threadId}`)
      expect(response.status).toBe(503)
      expect(((await response.json()) as ErrorBody).error.code).toBe('STORE_ERROR')
    } finally {
      redis.thaw()
    }
    expect((await server.get(threadId)).status).toBe('idle')
    await client.quit()
  }, 30_000)

  it('a failed write ends the run with RUN_ERROR STORE_ERROR, and the release is retried until the thread is free', async () => {
    const inner = memoryStore()
    let failing = 0
    let blips = 1
    // The write after the tool and the first attempt to release fail, as in a blip.
    const store: ThreadStore = {
      ...inner,
      head: (id) => inner.head(id),
      messages: (id, from, to) => inner.messages(id, from, to),
      commit: (commit) => (failing-- > 0 ? Promise.reject(new StoreError('blip', 'commit', new Error('connection reset'))) : inner.commit(commit)),
    }
    const lookup = toolDefinition({ name: 'lookup', description: 'Looks up', inputSchema: v.object({}) }).server(() => {
      if (blips-- > 0) failing = 2
      return { found: true }
    })
    const server = await startServer({ model: scriptedModel([{ when: /.*/, call: () => ({ tool: 'lookup', input: {} }), then: () => 'done' }]), tools: [lookup], store, onError: () => {} })
    const turned = await server.send('look it up')
    const failed = turned.events.at(-1) as { type: string; code?: string; message?: string }
    expect(failed.type).toBe('RUN_ERROR')
    expect(failed.code).toBe('STORE_ERROR')
    expect(failed.message).not.toContain('connection reset')
    // Released before the error went out: the thread takes the next message at once.
    expect((await server.get(turned.threadId)).status).toBe('idle')
    expect((await server.send('again', turned.threadId)).finished?.type).toBe('RUN_FINISHED')
  })
})

describe('run event notifications come back after an outage', () => {
  it('Redis pub/sub: after a restart a reader is woken by a notification again, not by polling', async () => {
    const client = await createClient({ url: redis.url }).connect()
    const subscriber = await client.duplicate().connect()
    try {
      const looks: string[] = []
      const counting = { sendCommand: (args: string[]) => (looks.push(args[0]!), client.sendCommand(args)), on: client.on.bind(client) }
      const reader = redisStore({ client: counting, subscriber, prefix: 'rewake:', onError: () => {} })
      const writer = redisStore({ client, prefix: 'rewake:', onError: () => {} })
      await writer.events.append('run_r', [{ seq: 1, data: '{"n":1}' }], false)
      await reader.events.wait('run_r', 0, 1000, new AbortController().signal) // starts the subscription
      await redis.restart()
      await writer.events.append('run_r', [{ seq: 1, data: '{"n":1}' }], false)
      // node-redis subscribes again once it reconnects; the server says when it has.
      for (let attempt = 0; attempt < 200 && Number(((await client.sendCommand(['PUBSUB', 'NUMSUB', 'rewake:run-events'])) as unknown[])[1]) < 1; attempt++) await pause(50)
      looks.length = 0
      // A minute's wait: only the notification can end it within the test's time.
      const waiting = reader.events.wait('run_r', 1, 60_000, new AbortController().signal)
      await pause(300)
      await writer.events.append('run_r', [{ seq: 2, data: '{"n":2}' }], false)
      await waiting
      expect(looks.filter((command) => command === 'LLEN')).toEqual(['LLEN'])
    } finally {
      await subscriber.quit()
      await client.quit()
    }
  }, 60_000)

  it('PostgreSQL LISTEN: after a restart the listener connects again, and a reader is woken by NOTIFY', async () => {
    const pool = new pg.Pool({ connectionString: postgres.connectionString })
    pool.on('error', () => {})
    let connects = 0
    const listener = async () => {
      const client = new pg.Client({ connectionString: postgres.connectionString })
      await client.connect()
      connects++
      return client
    }
    const looks: string[] = []
    // A look counts once answered: one only sent may still be answered after the append below, and find it.
    const counting = { query: (text: string, values?: unknown[]) => pool.query(text, values).then((result) => (looks.push(text), result)) }
    const reader = postgresStore({ pool: counting, listener, table: 'relisten', onError: () => {} })
    const writer = postgresStore({ pool, table: 'relisten', onError: () => {} })
    await writer.ensureSchema()
    await writer.events.append('run_l', [{ seq: 1, data: '{"n":1}' }], false)
    await reader.events.wait('run_l', 0, 1000, new AbortController().signal)
    expect(connects).toBe(1)
    await postgres.restart()
    await waitForListeners(pool, 'relisten_run_events', 1)
    expect(connects).toBe(2)
    looks.length = 0
    const waiting = reader.events.wait('run_l', 1, 60_000, new AbortController().signal)
    await pause(300)
    await writer.events.append('run_l', [{ seq: 2, data: '{"n":2}' }], false)
    await waiting
    expect(looks.filter((text) => text.includes('AS more'))).toHaveLength(1)
    await pool.end()
  }, 60_000)

  it('PostgreSQL LISTEN: while the listener is down a reader polls, and once it is back it is woken by NOTIFY', async () => {
    const pool = new pg.Pool({ connectionString: postgres.connectionString })
    let open = true
    const clients: pg.Client[] = []
    const listener = async (): Promise<PostgresListenerLike> => {
      if (!open) throw new Error('not now')
      const client = new pg.Client({ connectionString: postgres.connectionString })
      await client.connect()
      clients.push(client)
      return client
    }
    const looks: string[] = []
    // A look counts once answered: one only sent may still be answered after the append below, and find it.
    const counting = { query: (text: string, values?: unknown[]) => pool.query(text, values).then((result) => (looks.push(text), result)) }
    // The reader's listener reports its connection's loss right after it tells its waits to poll.
    const dropped: unknown[] = []
    const reader = postgresStore({ pool: counting, listener, table: 'fallback', onError: (error) => dropped.push(error) })
    const writer = postgresStore({ pool, table: 'fallback', onError: () => {} })
    await writer.ensureSchema()
    await writer.events.append('run_f', [{ seq: 1, data: '{"n":1}' }], false)
    await reader.events.wait('run_f', 0, 1000, new AbortController().signal)
    await waitForListeners(pool, 'fallback_run_events', 1)

    // The listener's connection is killed, and cannot connect again for now.
    open = false
    await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN fallback_run_events'`)
    await waitForListeners(pool, 'fallback_run_events', 0)
    // The server may show the listener gone before its client hears of it: a wait begun in between
    // would take the reader's later "down" for a wake-up and return without polling.
    await until(() => dropped.length > 0)
    looks.length = 0
    const polled = reader.events.wait('run_f', 1, 60_000, new AbortController().signal)
    // The reader has looked once and found nothing new before the event is written: only a poll
    // can find it now (a fixed pause let a loaded machine look first after the append; a look
    // counted when sent let the server answer it after the append).
    await until(() => looks.some((text) => text.includes('AS more')))
    await writer.events.append('run_f', [{ seq: 2, data: '{"n":2}' }], false)
    await polled
    expect(looks.filter((text) => text.includes('AS more')).length).toBeGreaterThan(1)

    open = true
    await waitForListeners(pool, 'fallback_run_events', 1)
    looks.length = 0
    const woken = reader.events.wait('run_f', 2, 60_000, new AbortController().signal)
    await pause(300)
    await writer.events.append('run_f', [{ seq: 3, data: '{"n":3}' }], false)
    await woken
    expect(looks.filter((text) => text.includes('AS more'))).toHaveLength(1)
    await Promise.all(clients.map((client) => client.end().catch(() => {})))
    await pool.end()
  }, 60_000)
})

/** Waits until `count` connections LISTEN on `channel`, as the server reports them (bounded). */
async function waitForListeners(pool: pg.Pool, channel: string, count: number): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      const { rows } = await pool.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE query = $1 AND state = 'idle'`, [`LISTEN ${channel}`])
      if (Number(rows[0].n) === count) return
    } catch {
      // the server is still starting
    }
    await pause(50)
  }
  throw new Error(`never ${count} listeners on ${channel}`)
}

describe('ensureSchema() on a fresh database', () => {
  it('succeeds for 8 instances starting at once', async () => {
    const admin = new pg.Client({ connectionString: postgres.connectionString })
    await admin.connect()
    try {
      for (let round = 0; round < 3; round++) {
        await admin.query(`CREATE DATABASE fresh${round}`)
        const url = postgres.connectionString.replace(/\/postgres$/, `/fresh${round}`)
        const pools = Array.from({ length: 8 }, () => new pg.Pool({ connectionString: url, max: 1 }))
        const outcomes = await Promise.allSettled(pools.map((pool) => postgresStore({ pool }).ensureSchema()))
        expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([])
        const { rows } = await pools[0]!.query(`SELECT count(*) AS n FROM information_schema.tables WHERE table_name LIKE 'toolgate_%'`)
        expect(Number(rows[0].n)).toBe(5) // threads, messages, decisions, run log, attachments
        await Promise.all(pools.map((pool) => pool.end()))
      }
    } finally {
      await admin.end()
    }
  }, 60_000)
})

describe('a thread id with U+0000 or another control character', () => {
  const ids = ['a\u0000b', 'thread\u0001', 'line\nbreak', 'del\u007f']

  async function refusesEverywhere(store: ThreadStore) {
    const server = await startServer({ model: scriptedModel([{ when: /.*/, reply: 'hi' }]), store })
    for (const threadId of ids) {
      const answers = [
        await server.post({ threadId, message: 'hi' }),
        await server.post({ threadId, resume: [{ interruptId: 'int_x', approved: true }] }),
        await server.post({ threadId, stop: true }),
        await server.post({ threadId, runId: 'run_x', messages: [{ id: 'm1', role: 'user', content: 'hi' }], tools: [], context: [], state: {}, forwardedProps: {} }),
        await fetch(`${server.url}?threadId=${encodeURIComponent(threadId)}`),
        await fetch(`${server.url}?threadId=${encodeURIComponent(threadId)}`, { headers: { accept: 'text/event-stream' } }),
      ]
      for (const answer of answers) {
        expect(answer.status).toBe(400)
        expect(((await answer.json()) as ErrorBody).error).toMatchObject({ code: 'INVALID_REQUEST', path: 'threadId' })
      }
    }
  }

  it('is refused with 400 on every route on the memory store', () => refusesEverywhere(memoryStore()))

  it('is refused with 400 on every route on Redis', async () => {
    const client = await createClient({ url: redis.url }).connect()
    await refusesEverywhere(redisStore({ client, prefix: 'nul:' }))
    await client.quit()
  })

  it('is refused with 400 on every route on PostgreSQL', async () => {
    const pool = new pg.Pool({ connectionString: postgres.connectionString })
    const store = postgresStore({ pool, table: 'nul' })
    await store.ensureSchema()
    await refusesEverywhere(store)
    await pool.end()
  })
})
