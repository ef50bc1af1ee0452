import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import pg from 'pg'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import type { DecisionRecord } from '@toolgate/ai/protocol'
import { createChatHandler, memoryAttachmentStore, memoryStore, type ChatHandler, type ChatRecords, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { redisStore } from '@toolgate/ai/server/redis'
import { postgresStore } from '@toolgate/ai/server/postgres'
import { attachmentStoreConformance, threadStoreConformance } from '@toolgate/ai/server/testing'
import { reviewedApp } from '../../src/server/testing/approvalAttacks.ts'
import { digestOf } from '../../src/util/digest.ts'
import { startRedis, type RedisServer } from '../services/redis.ts'
import { startPostgres, type PostgresServer } from '../services/postgres.ts'

// Every store passes the same suite, the real ones against real servers started for the run.

const runner = { describe, it, expect }

threadStoreConformance('memoryStore', ({ threadTtlMs }) => memoryStore(threadTtlMs ? { idleTtlMs: threadTtlMs } : {}), runner)
attachmentStoreConformance('memoryAttachmentStore', () => memoryAttachmentStore(), runner)

describe('on the memory store', () => {
  // Its records are frozen objects no caller can reach; what stands for a write to the process's
  // memory (a debugger, a bug elsewhere in the process) is a read that hands back other records.
  it('detects a decision record edited in place by its digest, and one removed by the chain', async () => {
    const memory = memoryStore()
    const edits = new Map<string, (records: readonly DecisionRecord[]) => readonly DecisionRecord[]>()
    const store: ThreadStore = { ...memory, decisions: async (threadId) => (edits.get(threadId) ?? ((records) => records))(await memory.decisions(threadId)) }
    const { threadId, handler } = await decidedThread(store)
    edits.set(threadId, (records) => records.map((record) => ({ ...record, by: { id: 'mallory' } })))
    await expectAltered(handler, threadId)
    edits.set(threadId, (records) => records.map((record) => ({ ...record, ranArgs: { amount: 5 } })))
    await expectAltered(handler, threadId)
    edits.set(threadId, () => [])
    await expectAltered(handler, threadId)
    edits.delete(threadId)
    expect((await handler.decisions(threadId)).map((record) => record.decision)).toEqual(['approved'])
  })
})

describe('on a real Redis', () => {
  let server: RedisServer
  let client: ReturnType<typeof createClient>
  beforeAll(async () => {
    server = await startRedis()
    client = createClient({ url: server.url })
    await client.connect()
  }, 30_000)
  afterAll(async () => {
    await client?.quit()
    await server?.stop()
  })
  let prefix = 0
  threadStoreConformance('redisStore', ({ threadTtlMs }) => redisStore({ client, prefix: `t${prefix++}:`, ...(threadTtlMs ? { threadTtlMs } : {}) }), runner)

  it('writes what changed: a commit sends the new messages only', async () => {
    const sent: string[][] = []
    const spy = { sendCommand: (args: string[]) => (sent.push(args), client.sendCommand(args)) }
    const store = redisStore({ client: spy, prefix: 'spy:' })
    const head = (version: number, messageCount: number) => ({ id: 't', version, createdAt: 0, updatedAt: 0, messageCount, bytes: 0, resolvedInterruptIds: [] })
    for (let i = 1; i <= 50; i++) await store.commit({ head: head(i, i), append: [{ role: 'user' as const, id: `m${i}`, content: 'x'.repeat(100) }] })
    const commits = sent.filter((args) => args[0] === 'EVALSHA' || args[0] === 'EVAL')
    const sizes = commits.map((args) => args.join('').length)
    // Flat: the 50th commit sends as much as the first.
    expect(Math.abs(sizes.at(-1)! - sizes[0]!)).toBeLessThan(20)
  })

  it('sends a commit that follows a head with a token of the commit that sent it, not the head again; a writer of the version before that wrote no token cannot pass for it', async () => {
    const sent: string[][] = []
    const spy = { sendCommand: (args: string[]) => (sent.push(args), client.sendCommand(args)) }
    const store = redisStore({ client: spy, prefix: 'follow:' })
    const head = (version: number, mark: string) => ({ id: 't_f', version, createdAt: 0, updatedAt: 0, messageCount: 0, bytes: 0, resolvedInterruptIds: [mark] })
    const first = head(1, 'first')
    const behind = head(2, 'behind')
    const [a, b] = await Promise.all([store.commit({ head: first, append: [] }), store.commit({ head: behind, append: [], follows: first })])
    expect([a, b]).toEqual([true, true])
    const follower = sent.filter((args) => args[0] === 'EVALSHA' || args[0] === 'EVAL').at(-1)!
    expect(follower.filter((arg) => arg.includes('"first"'))).toEqual([])
    // A writer of the version before writes version 3 (its head text only); the commit it raced was refused.
    const lost = head(3, 'lost')
    await client.sendCommand(['HSET', 'follow:{t_f}:head', 'v', '3', 'h', JSON.stringify(head(3, 'old writer'))])
    expect(await store.commit({ head: lost, append: [] })).toBe(false)
    expect(await store.commit({ head: head(4, 'after lost'), append: [], follows: lost })).toBe(false)
    expect((await store.head('t_f'))?.resolvedInterruptIds).toEqual(['old writer'])
  })

  it('answers a head read asked in the tick of a commit of its thread with that commit: the head written, or the stored head that refused it, and no command of its own', async () => {
    const sent: string[][] = []
    const spy = { sendCommand: (args: string[]) => (sent.push(args), client.sendCommand(args)) }
    const store = redisStore({ client: spy, prefix: 'ridden:' })
    const other = redisStore({ client, prefix: 'ridden:' })
    const head = (version: number, mark: string) => ({ id: 't_read', version, createdAt: 0, updatedAt: 0, messageCount: 0, bytes: 0, resolvedInterruptIds: [mark] })
    expect(await store.commit({ head: head(1, 'one'), append: [] })).toBe(true)
    sent.length = 0
    const [read, written] = await Promise.all([store.head('t_read'), store.commit({ head: head(2, 'two'), append: [] })])
    expect([written, read?.resolvedInterruptIds]).toEqual([true, ['two']])
    expect(await other.commit({ head: head(3, 'other'), append: [] })).toBe(true)
    const [stored, refused] = await Promise.all([store.head('t_read'), store.commit({ head: head(3, 'mine'), append: [] })])
    expect([refused, stored?.resolvedInterruptIds]).toEqual([false, ['other']])
    expect(sent.map((args) => args[0])).toEqual(['EVALSHA', 'EVALSHA'])
    // Alone, a read is a command of its own; a thread that is gone reads as none.
    expect((await store.head('t_read'))?.resolvedInterruptIds).toEqual(['other'])
    expect(await store.head('t_none')).toBeUndefined()
    expect(sent.map((args) => args[0])).toEqual(['EVALSHA', 'EVALSHA', 'HGET', 'HGET'])
  })

  it('with a subscriber, a reader on another instance is woken by pub/sub when events land, instead of polling', async () => {
    const subscriber = client.duplicate()
    await subscriber.connect()
    try {
      const looks: string[] = []
      const counting = { sendCommand: (args: string[]) => (looks.push(args[0]!), client.sendCommand(args)) }
      const reader = redisStore({ client: counting, subscriber, prefix: 'wake:' })
      const writer = redisStore({ client, prefix: 'wake:' })
      await writer.events!.append('run_w', [{ seq: 1, data: '{"n":1}' }], false)
      // A minute's wait: only the notification can end it within the test's time.
      const waiting = reader.events!.wait('run_w', 1, 60_000, new AbortController().signal)
      await new Promise((resolve) => setTimeout(resolve, 300))
      await writer.events!.append('run_w', [{ seq: 2, data: '{"n":2}' }], false)
      await waiting
      expect(looks.filter((command) => command === 'LLEN')).toEqual(['LLEN'])
      expect((await reader.events!.read('run_w', 1))?.events).toEqual([{ seq: 2, data: '{"n":2}' }])
    } finally {
      await subscriber.quit()
    }
  })

  it('with a subscriber, a chat watching a thread on instance B is answered by pub/sub when a reviewer decides on instance A, instead of polling', async () => {
    const subscriber = client.duplicate()
    await subscriber.connect()
    try {
      const looks: string[] = []
      const counting = { sendCommand: (args: string[]) => (args[0] === 'HGET' && args[2] === 'v' && looks.push(args[1]!), client.sendCommand(args)) }
      const a = reviewedApp(redisStore({ client, prefix: 'watch:' }))
      // A minute's wait: only the notification can end it within the test's time, unless B polls.
      const b = reviewedApp(redisStore({ client: counting, subscriber, prefix: 'watch:' }), { limits: { watchMs: 60_000 } })
      await expectWatchAnsweredAcrossInstances(a, b, () => looks.length)
    } finally {
      await subscriber.quit()
    }
  })

  it('reads ids from the log: events after a write Redis lost keep their numbers, so a reader sees the gap', async () => {
    const store = redisStore({ client, prefix: 'gap:' })
    await store.events!.append('run_g', [{ seq: 1, data: '{"n":1}' }, { seq: 2, data: '{"n":1}' }], false)
    // Events 3 and 4 were lost with a restart; 5 and 6 landed after it.
    await store.events!.append('run_g', [{ seq: 5, data: '{"n":5}' }, { seq: 6, data: '{"n":6}' }], true)
    expect((await store.events!.read('run_g', 1))?.events).toEqual([
      { seq: 2, data: '{"n":1}' },
      { seq: 5, data: '{"n":5}' },
      { seq: 6, data: '{"n":6}' },
    ])
    // Late, events 3 and 4 land after all (with 2 again, changed): the gap fills, the first 2 stays.
    await store.events!.append('run_g', [{ seq: 2, data: '{"again":2}' }, { seq: 3, data: '{"n":3}' }, { seq: 4, data: '{"n":4}' }], false)
    expect((await store.events!.read('run_g', 0))?.events.map((event) => event.data)).toEqual(['{"n":1}', '{"n":1}', '{"n":3}', '{"n":4}', '{"n":5}', '{"n":6}'])
  })

  it('reads on past a gap longer than a page: a reader given a page is never handed an empty one while events follow', async () => {
    const store = redisStore({ client, prefix: 'page:' })
    // Events 2 to 9 were lost with a restart.
    await store.events!.append('run_p', [{ seq: 1, data: '{"n":1}' }], false)
    await store.events!.append('run_p', [{ seq: 10, data: '{"n":10}' }, { seq: 11, data: '{"n":11}' }, { seq: 12, data: '{"n":12}' }], true)
    expect(await store.events!.read('run_p', 1, 2)).toEqual({ events: [{ seq: 10, data: '{"n":10}' }, { seq: 11, data: '{"n":11}' }], ended: false })
    expect(await store.events!.read('run_p', 0, 2)).toEqual({ events: [{ seq: 1, data: '{"n":1}' }, { seq: 10, data: '{"n":10}' }], ended: false })
    expect(await store.events!.read('run_p', 11, 2)).toEqual({ events: [{ seq: 12, data: '{"n":12}' }], ended: true })
    expect(await store.events!.read('run_p', 12, 2)).toEqual({ events: [], ended: true })
    // Past the end (a resume point the log never gave): ended, as the log says, not a wait for more.
    expect(await store.events!.read('run_p', 20)).toEqual({ events: [], ended: true })
    expect(await store.events!.read('run_none', 0)).toBeUndefined()
  })

  it('publishes on its prefix’s channel whatever the prefix holds (quotes, a backslash, non-ASCII): a reader on another instance is woken', async () => {
    const subscriber = client.duplicate()
    await subscriber.connect()
    try {
      const prefix = `we'ir"d\\ü]]:`
      const reader = redisStore({ client, subscriber, prefix })
      const writer = redisStore({ client, prefix })
      const head = { id: 't_odd', version: 1, createdAt: 0, updatedAt: 0, messageCount: 0, bytes: 0, resolvedInterruptIds: [] }
      // A minute's wait: only the notification can end it within the test's time.
      const woken = reader.events!.wait('run_odd', 0, 60_000, new AbortController().signal, 't_odd')
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(await writer.commit({ head, append: [], events: { runId: 'run_odd', events: [{ seq: 1, data: '{"n":1}' }] } })).toBe(true)
      await woken
      expect(await reader.events!.read('run_odd', 0, undefined, 't_odd')).toEqual({ events: [{ seq: 1, data: '{"n":1}' }], ended: true })
    } finally {
      await subscriber.quit()
    }
  })

  it('keeps a log whose first events Redis lost: later ones keep their numbers, and the first fill in if they land late', async () => {
    const store = redisStore({ client, prefix: 'lostfirst:' })
    await store.events!.append('run_l', [{ seq: 3, data: '{"n":3}' }, { seq: 4, data: '{"n":4}' }], false)
    expect(await store.events!.read('run_l', 0)).toEqual({ events: [{ seq: 3, data: '{"n":3}' }, { seq: 4, data: '{"n":4}' }], ended: false })
    await store.events!.append('run_l', [{ seq: 1, data: '{"n":1}' }, { seq: 2, data: '{"n":2}' }, { seq: 3, data: '{"again":3}' }], false)
    await store.events!.append('run_l', [{ seq: 5, data: '{"n":5}' }], true)
    expect((await store.events!.read('run_l', 0))?.events.map((event) => event.data)).toEqual(['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}', '{"n":5}'])
    expect((await store.events!.read('run_l', 0))?.ended).toBe(true)
  })

  it('logs a batch whose events do not follow one another (a gap inside it) where their numbers say, and a late batch of two such runs fills both gaps', async () => {
    const store = redisStore({ client, prefix: 'runs:' })
    await store.events!.append('run_s', [{ seq: 1, data: '{"n":1}' }, { seq: 2, data: '{"n":2}' }], false)
    await store.events!.append('run_s', [{ seq: 4, data: '{"n":4}' }, { seq: 5, data: '{"n":5}' }, { seq: 7, data: '{"n":7}' }], true)
    expect(await store.events!.read('run_s', 0)).toEqual({ events: [1, 2, 4, 5, 7].map((n) => ({ seq: n, data: `{"n":${n}}` })), ended: true })
    await store.events!.append('run_s', [{ seq: 3, data: '{"n":3}' }, { seq: 6, data: '{"n":6}' }], false)
    expect(await store.events!.read('run_s', 0)).toEqual({ events: [1, 2, 3, 4, 5, 6, 7].map((n) => ({ seq: n, data: `{"n":${n}}` })), ended: true })
  })

  it('publishes a commit that carries a run’s events once, waking the run’s readers and the thread’s watchers on another instance', async () => {
    const subscriber = client.duplicate()
    const listener = client.duplicate()
    await Promise.all([subscriber.connect(), listener.connect()])
    try {
      const heard: string[] = []
      await listener.subscribe('once:run-events', (message) => void heard.push(message))
      const reader = redisStore({ client, subscriber, prefix: 'once:' })
      const writer = redisStore({ client, prefix: 'once:' })
      const head = (version: number) => ({ id: 't_once', version, createdAt: 0, updatedAt: 0, messageCount: 0, bytes: 0, resolvedInterruptIds: [] })
      expect(await writer.commit({ head: head(1), append: [] })).toBe(true)
      // A minute's wait each: only the notification can end them within the test's time.
      const signal = new AbortController().signal
      const woken = Promise.all([reader.events!.wait('run_once', 0, 60_000, signal, 't_once'), reader.watch!('t_once', 1, 60_000, signal)])
      await new Promise((resolve) => setTimeout(resolve, 300))
      heard.length = 0
      expect(await writer.commit({ head: head(2), append: [], events: { runId: 'run_once', events: [{ seq: 1, data: '{"n":1}' }], final: false } })).toBe(true)
      await woken
      expect(heard).toHaveLength(1)
    } finally {
      await Promise.all([subscriber.quit(), listener.quit()])
    }
  })

  it('logs a batch of any size in one write (a long streamed answer)', async () => {
    const store = redisStore({ client, prefix: 'batch:' })
    const batch = Array.from({ length: 2500 }, (_, i) => ({ seq: i + 1, data: `{"delta":"w${i}"}` }))
    await store.events!.append('run_b', batch, true)
    expect(await store.events!.read('run_b', 0)).toEqual({ events: batch, ended: true })
  })

  it('keeps a run’s log a day while it streams and `eventRetentionMs` once its release ended it, which a late batch does not extend', async () => {
    const store = redisStore({ client, prefix: 'retention:', eventRetentionMs: 60_000 })
    const head = (version: number) => ({ id: 't_r', version, createdAt: 0, updatedAt: 0, messageCount: 0, bytes: 0, resolvedInterruptIds: [] })
    const ttl = async () => Number(await client.sendCommand(['PTTL', 'retention:{t_r}:run:run_r:log']))
    expect(await store.commit({ head: head(1), append: [] })).toBe(true)
    await store.events!.append('run_r', [{ seq: 1, data: '{"n":1}' }], false, 't_r')
    expect(await ttl()).toBeGreaterThan(60_000)
    expect(await store.commit({ head: head(2), append: [], events: { runId: 'run_r', events: [{ seq: 2, data: '{"n":2}' }] } })).toBe(true)
    expect(await ttl()).toBeLessThanOrEqual(60_000)
    await store.events!.append('run_r', [{ seq: 2, data: '{"n":2}' }], false, 't_r')
    expect(await ttl()).toBeLessThanOrEqual(60_000)
    expect(await ttl()).toBeGreaterThan(0)
  })

  it('moves a thread’s TTL only once less than `threadTtlMs` is left, to a 64th more, so its keys never expire sooner than `threadTtlMs` after a write; a list a commit makes meanwhile gets as long', async () => {
    const ttlMs = 6_400_000
    const renewed = ttlMs + ttlMs / 64
    const store = redisStore({ client, prefix: 'ttl:', threadTtlMs: ttlMs })
    const head = (version: number, messageCount: number) => ({ id: 't_ttl', version, createdAt: 0, updatedAt: 0, messageCount, bytes: 0, resolvedInterruptIds: [] })
    const ttl = async (key: string) => Number(await client.sendCommand(['PTTL', `ttl:{t_ttl}:${key}`]))
    expect(await store.commit({ head: head(1, 0), append: [] })).toBe(true)
    expect(await ttl('head')).toBeGreaterThan(ttlMs)
    expect(await ttl('head')).toBeLessThanOrEqual(renewed)
    // More than the TTL left: a write leaves it, and the messages list it makes gets as long as a move would give.
    await client.sendCommand(['PEXPIRE', 'ttl:{t_ttl}:head', String(ttlMs + 1000)])
    expect(await store.commit({ head: head(2, 1), append: [{ role: 'user', id: 'm1', content: 'one' }] })).toBe(true)
    expect(await ttl('head')).toBeLessThanOrEqual(ttlMs + 1000)
    expect(await ttl('messages')).toBeGreaterThan(ttlMs + 1000)
    expect(await ttl('messages')).toBeLessThanOrEqual(renewed)
    // Less than the TTL left: a write moves every key's.
    for (const key of ['head', 'messages']) await client.sendCommand(['PEXPIRE', `ttl:{t_ttl}:${key}`, String(ttlMs - 1000)])
    expect(await store.commit({ head: head(3, 2), append: [{ role: 'user', id: 'm2', content: 'two' }] })).toBe(true)
    for (const key of ['head', 'messages']) expect(await ttl(key)).toBeGreaterThan(ttlMs)
    // A file is given as long as a move gives, so it never expires before its thread.
    await store.attachments.put('t_ttl', 'att_1', { data: new Uint8Array([1]), mediaType: 'application/octet-stream' })
    expect(await ttl('files')).toBeGreaterThan(ttlMs)
    // The records list a commit makes gets as long; once less than the TTL is left, a commit that
    // appends none (it is not sent the records' and files' keys) moves theirs too.
    const record = { id: 'd_1', digest: 'd' } as never
    expect(await store.commit({ head: head(4, 2), append: [], decisions: [record] })).toBe(true)
    expect(await ttl('decisions')).toBeGreaterThan(ttlMs)
    for (const key of ['head', 'messages', 'decisions', 'files']) await client.sendCommand(['PEXPIRE', `ttl:{t_ttl}:${key}`, String(ttlMs - 1000)])
    expect(await store.commit({ head: head(5, 2), append: [] })).toBe(true)
    for (const key of ['head', 'messages', 'decisions', 'files']) expect(await ttl(key)).toBeGreaterThan(ttlMs)
  })

  it('starts a thread afresh under the id of one whose head expired first: what the old one’s lists still held is not its history', async () => {
    const store = redisStore({ client, prefix: 'afresh:' })
    const head = (messageCount: number, decisions?: number) => ({
      id: 't_again', version: 1, createdAt: 0, updatedAt: 0, messageCount, bytes: 0, resolvedInterruptIds: [], ...(decisions ? { decisions: { count: decisions, last: 'd' } } : {}),
    })
    const record = { id: 'd_old', digest: 'd' } as never
    expect(await store.commit({ head: head(1, 1), append: [{ role: 'user', id: 'm_old', content: 'old' }], decisions: [record] })).toBe(true)
    await store.attachments.put('t_again', 'att_old', { data: new Uint8Array([1]), mediaType: 'application/octet-stream' })
    // The head expired; the lists made after its TTL last moved had up to a 64th of the TTL more.
    await client.sendCommand(['DEL', 'afresh:{t_again}:head'])
    expect(await store.commit({ head: head(1), append: [{ role: 'user', id: 'm_new', content: 'new' }] })).toBe(true)
    expect(await store.messages('t_again', 0, 2)).toEqual([{ role: 'user', id: 'm_new', content: 'new' }])
    expect(await store.decisions('t_again')).toEqual([])
    expect(await store.attachments.get('t_again', 'att_old')).toBeUndefined()
    expect(Number(await client.sendCommand(['PTTL', 'afresh:{t_again}:messages']))).toBeGreaterThan(0)
  })

  it('still reads a run logged before its log moved to the thread’s slot (a deployment mid-upgrade), given the thread or not', async () => {
    const store = redisStore({ client, prefix: 'upgrade:' })
    // What a store before this layout wrote: the run's log in its own slot.
    const events = ['1:{"type":"RUN_STARTED","threadId":"t_old","runId":"run_old"}', '2:{"type":"RUN_FINISHED"}']
    await client.sendCommand(['ZADD', 'upgrade:{run_old}:events', '1', events[0]!, '2', events[1]!])
    const reader = redisStore({ client, prefix: 'upgrade:' })
    const started = { seq: 1, data: events[0]!.slice(2) }
    expect(await reader.events!.read('run_old', 0, undefined, 't_old')).toEqual({ events: [started, { seq: 2, data: '{"type":"RUN_FINISHED"}' }], ended: false })
    // A minute's wait, polled (no subscriber): only a look where the run was logged ends it within the test's time.
    const waiting = reader.events!.wait('run_old', 2, 60_000, new AbortController().signal, 't_old')
    await client.sendCommand(['SET', 'upgrade:{run_old}:end', '1'])
    await waiting
    expect(await reader.events!.read('run_old', 1, undefined, 't_old')).toEqual({ events: [{ seq: 2, data: '{"type":"RUN_FINISHED"}' }], ended: true })
    expect(await store.events!.read('run_old', 0)).toEqual({ events: [started, { seq: 2, data: '{"type":"RUN_FINISHED"}' }], ended: true })
  })

  it('still reads a run an instance of the version before logged under its thread’s tag, with its index (a deployment mid-upgrade), given the thread or its id alone', async () => {
    const events = ['1:{"type":"RUN_STARTED","threadId":"t_tag","runId":"run_tag"}', '2:{"type":"RUN_FINISHED"}']
    const started = { seq: 1, data: events[0]!.slice(2) }
    // What that version wrote: the log under the thread's tag, and the run's thread beside it.
    await client.sendCommand(['ZADD', 'tagged:{t_tag}:run:run_tag:events', '1', events[0]!, '2', events[1]!])
    await client.sendCommand(['SET', 'tagged:{run_tag}:thread', 't_tag'])
    const byId = redisStore({ client, prefix: 'tagged:' })
    expect(await byId.events!.read('run_tag', 0)).toEqual({ events: [started, { seq: 2, data: '{"type":"RUN_FINISHED"}' }], ended: false })
    const reader = redisStore({ client, prefix: 'tagged:' })
    expect(await reader.events!.read('run_tag', 1, undefined, 't_tag')).toEqual({ events: [{ seq: 2, data: '{"type":"RUN_FINISHED"}' }], ended: false })
    // A minute's wait, polled (no subscriber): only a look where the run was logged ends it within the test's time.
    const waiting = byId.events!.wait('run_tag', 2, 60_000, new AbortController().signal)
    await client.sendCommand(['SET', 'tagged:{t_tag}:run:run_tag:end', '1'])
    await waiting
    expect(await byId.events!.read('run_tag', 1)).toEqual({ events: [{ seq: 2, data: '{"type":"RUN_FINISHED"}' }], ended: true })
  })

  it('detects a decision record altered in Redis by its digest: GET ?decisions is refused and the handler throws', async () => {
    const store = redisStore({ client, prefix: 'tamper:' })
    const { threadId, handler } = await decidedThread(store)
    const key = `tamper:{${threadId}}:decisions`
    const [json] = (await client.sendCommand(['LRANGE', key, '0', '0'])) as string[]
    await client.sendCommand(['LSET', key, '0', JSON.stringify({ ...JSON.parse(json!), by: { id: 'mallory' } })])
    await expectAltered(handler, threadId)
  })

  it('refuses a subscriber that cannot subscribe', () => {
    expect(() => redisStore({ client, subscriber: {} as never })).toThrow(/subscriber/)
  })

  it('refuses an onError that is not a function and a timeout that is not a positive integer, naming the option', () => {
    expect(() => redisStore({ client, onError: 'log' as never })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', option: 'onError' }))
    expect(() => redisStore({ client, timeoutMs: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', option: 'timeoutMs' }))
  })

  it('listens for the client’s connection errors unless the app does, so a dropped connection cannot crash the process', () => {
    const bare = client.duplicate()
    const errors: unknown[] = []
    redisStore({ client: bare, onError: (error) => errors.push(error) })
    expect(bare.listenerCount('error')).toBe(1)
    bare.emit('error', new Error('Socket closed unexpectedly'))
    expect(errors).toEqual([expect.objectContaining({ code: 'STORE_ERROR', store: 'redisStore', operation: 'connection' })])
    const own = client.duplicate()
    own.on('error', () => {})
    redisStore({ client: own })
    expect(own.listenerCount('error')).toBe(1)
  })
})

describe('on a Redis Cluster node (one node holding every slot: a script whose keys span slots fails there, as on any cluster)', () => {
  let server: RedisServer
  let client: ReturnType<typeof createClient>
  beforeAll(async () => {
    server = await startRedis({ cluster: true })
    client = await createClient({ url: server.url }).connect()
  }, 30_000)
  afterAll(async () => {
    await client?.quit()
    await server?.stop()
  })
  let prefix = 0
  threadStoreConformance('redisStore on a cluster', ({ threadTtlMs }) => redisStore({ client, prefix: `c${prefix++}:`, ...(threadTtlMs ? { threadTtlMs } : {}) }), runner)

  const turn = async (store: ThreadStore) => {
    const handler = createChatHandler({ model: scriptedModel([{ when: /hello/, reply: 'hi there' }]), store })
    const live = await (await handler(new Request('http://test.local/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hello' }) }))).text()
    return { live, threadId: /"threadId":"([^"]+)"/.exec(live)![1]!, runId: /"runId":"([^"]+)"/.exec(live)![1]! }
  }
  const slotOf = async (key: string) => Number(await client.sendCommand(['CLUSTER', 'KEYSLOT', key]))

  it('ends a run’s log with its release, in the thread’s hash slot: no log write follows it, and a reader on another instance gets every event', async () => {
    const sent: string[][] = []
    const spy = { sendCommand: (args: string[]) => (sent.push(args), client.sendCommand(args)) }
    const { live, threadId, runId } = await turn(redisStore({ client: spy, prefix: 'release:' }))
    const scripts = sent.filter((args) => args[0] === 'EVALSHA' || args[0] === 'EVAL')
    const release = scripts.at(-1)!
    // The last script is the release: the thread's head and the run's log, which its id places in the thread's slot.
    expect(release.slice(3, 3 + Number(release[2]))).toEqual(expect.arrayContaining([`release:{${threadId}}:head`, `release:{${runId}}:log`]))
    expect(release.slice(3).some((arg) => arg.includes('"RUN_FINISHED"'))).toBe(true)
    // Every key a script names is in one hash slot, as the cluster computes it (it ran them all too).
    for (const args of scripts) {
      const slots = await Promise.all(args.slice(3, 3 + Number(args[2])).map(slotOf))
      expect(new Set(slots).size).toBe(1)
    }
    const reader = redisStore({ client, prefix: 'release:' })
    const logged = await reader.events!.read(runId, 0, undefined, threadId)
    expect(logged?.ended).toBe(true)
    expect(logged?.events.map((event) => `id: ${runId}:${event.seq}\ndata: ${event.data}\n\n`).join('')).toBe(live)
    // By the run's id alone (a TanStack rejoin), too.
    expect(await reader.events!.read(runId, 0)).toEqual(logged)
  })

  it('mints a run’s id in its thread’s slot: a turn sends no index from run to thread, and a reader given the run’s id alone (a TanStack rejoin) finds the run', async () => {
    const sent: string[][] = []
    const spy = { sendCommand: (args: string[]) => (sent.push(args), client.sendCommand(args)) }
    const { live, threadId, runId } = await turn(redisStore({ client: spy, prefix: 'minted:' }))
    expect(runId).toMatch(/^run_[\w-]{1,64}$/)
    expect(await slotOf(runId)).toBe(await slotOf(threadId))
    expect(sent.map((args) => args[0])).not.toContain('SET')
    const reader = redisStore({ client, prefix: 'minted:' })
    const logged = await reader.events!.read(runId, 0)
    expect(logged?.ended).toBe(true)
    expect(logged?.events.map((event) => `id: ${runId}:${event.seq}\ndata: ${event.data}\n\n`).join('')).toBe(live)
  })
})

describe('on a real PostgreSQL', () => {
  let server: PostgresServer
  let pool: pg.Pool
  /** A pool made with `pipeline: true`: the store writes a run's commits that follow one another on one of its connections. */
  let pipelined: pg.Pool
  beforeAll(async () => {
    server = await startPostgres()
    pool = new pg.Pool({ connectionString: server.connectionString, max: 20 })
    pipelined = new pg.Pool({ connectionString: server.connectionString, max: 20, pipeline: true })
  }, 60_000)
  afterAll(async () => {
    await pool?.end()
    await pipelined?.end()
    await server?.stop()
  })
  let table = 0
  for (const [name, of] of [['postgresStore', () => pool], ['postgresStore on a pool that pipelines', () => pipelined]] as const) {
    threadStoreConformance(
      name,
      async ({ threadTtlMs }) => {
        const store = postgresStore({ pool: of(), table: `t${table++}`, ...(threadTtlMs ? { threadTtlMs } : {}) })
        await store.ensureSchema()
        return store
      },
      runner,
    )
  }

  it('creates its schema idempotently and refuses a table name that is not an identifier', async () => {
    const store = postgresStore({ pool, table: 'idem' })
    await store.ensureSchema()
    await store.ensureSchema()
    const { rows } = await pool.query(`SELECT count(*) AS n FROM information_schema.tables WHERE table_name LIKE 'idem_%'`)
    expect(Number(rows[0].n)).toBe(5) // threads, messages, decisions, run log, attachments
    expect(() => postgresStore({ pool, table: 'x; DROP TABLE y' })).toThrow(/table/)
  })

  it('upgrades a schema made with foreign keys on messages, decisions and run events (it drops them), and purgeExpired still takes a thread’s rows and an ended run’s events along, in the run log and in the tables where earlier versions logged', async () => {
    // The schema as versions before this one made it.
    await pool.query(`
      CREATE TABLE old_threads (id text PRIMARY KEY, version integer NOT NULL, head text NOT NULL, expires_at timestamptz NOT NULL);
      CREATE INDEX old_threads_expires_at ON old_threads (expires_at);
      CREATE TABLE old_messages (thread_id text NOT NULL REFERENCES old_threads (id) ON DELETE CASCADE, seq integer NOT NULL, message text NOT NULL, PRIMARY KEY (thread_id, seq));
      CREATE TABLE old_decisions (thread_id text NOT NULL REFERENCES old_threads (id) ON DELETE CASCADE, seq integer NOT NULL, record text NOT NULL, PRIMARY KEY (thread_id, seq));
      CREATE TABLE old_runs (run_id text PRIMARY KEY, ended boolean NOT NULL, expires_at timestamptz NOT NULL);
      CREATE INDEX old_runs_expires_at ON old_runs (expires_at);
      CREATE TABLE old_run_events (run_id text NOT NULL REFERENCES old_runs (run_id) ON DELETE CASCADE, seq integer NOT NULL, data text NOT NULL, PRIMARY KEY (run_id, seq));
      CREATE TABLE old_attachments (thread_id text NOT NULL REFERENCES old_threads (id) ON DELETE CASCADE, id text NOT NULL, media_type text NOT NULL, filename text, data bytea NOT NULL, PRIMARY KEY (thread_id, id));`)
    const foreignKeys = async () =>
      (
        await pool.query(
          `SELECT conrelid::regclass::text AS owner FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text LIKE 'old\\_%' ORDER BY 1`,
        )
      ).rows.map((row) => row.owner)
    expect(await foreignKeys()).toEqual(['old_attachments', 'old_decisions', 'old_messages', 'old_run_events'])
    const store = postgresStore({ pool, table: 'old', threadTtlMs: 300, eventRetentionMs: 300 })
    await store.ensureSchema()
    // The files' key stays: it is checked once per file, not once per message or event.
    expect(await foreignKeys()).toEqual(['old_attachments'])

    const head = (id: string, version: number, messageCount: number, decisions?: number) => ({
      id, version, createdAt: 0, updatedAt: 0, messageCount, bytes: 0, resolvedInterruptIds: [], ...(decisions ? { decisions: { count: decisions, last: 'd' } } : {}),
    })
    const message = (id: string) => ({ role: 'user' as const, id, content: id })
    const record = { id: 'd', digest: 'd' } as never
    expect(await store.commit({ head: head('gone', 1, 2, 1), append: [message('a'), message('b')], decisions: [record] })).toBe(true)
    await store.attachments.put('gone', 'att_1', { data: new Uint8Array([1, 2, 3]), mediaType: 'image/png' })
    await store.events.append('run_gone', [{ seq: 1, data: '{"n":1}' }, { seq: 2, data: '{"n":2}' }], true)
    await new Promise((resolve) => setTimeout(resolve, 400))
    // Written after the others expired: it stays, with its rows.
    expect(await store.commit({ head: head('kept', 1, 1), append: [message('c')] })).toBe(true)
    await store.events.append('run_kept', [{ seq: 1, data: '{"n":1}' }], false)
    // Runs an instance of an earlier version logged meanwhile (a rolling upgrade), one of them over.
    await pool.query(`INSERT INTO old_runs VALUES ('run_old_gone', true, now() - interval '1 second'), ('run_old_kept', false, now() + interval '1 day');
      INSERT INTO old_run_events VALUES ('run_old_gone', 1, '{}'), ('run_old_kept', 1, '{}')`)
    await store.purgeExpired()
    const left = async (table: string, column: string) =>
      (await pool.query(`SELECT ${column} AS id, count(*)::int AS n FROM old_${table} GROUP BY 1 ORDER BY 1`)).rows.map((row) => `${row.id}:${row.n}`)
    expect(await left('threads', 'id')).toEqual(['kept:1'])
    expect(await left('messages', 'thread_id')).toEqual(['kept:1'])
    expect(await left('decisions', 'thread_id')).toEqual([])
    expect(await left('attachments', 'thread_id')).toEqual([])
    expect(await left('run_log', 'run_id')).toEqual(['run_kept:1'])
    expect(await left('runs', 'run_id')).toEqual(['run_old_kept:1'])
    expect(await left('run_events', 'run_id')).toEqual(['run_old_kept:1'])
    // The id is free again, from scratch.
    expect(await store.commit({ head: head('gone', 1, 1), append: [message('z')] })).toBe(true)
    expect(await store.messages('gone', 0, 2)).toEqual([message('z')])
  })

  it('writes a live run’s event batch without waiting for the disk, on that transaction alone: a run’s last batch, thread commits and the connection’s next statements wait for it', async () => {
    const single = new pg.Pool({ connectionString: server.connectionString, max: 1 })
    // The WAL writer asleep for 10 s (its longest), so only a durable commit flushes what is written.
    await pool.query(`ALTER SYSTEM SET wal_writer_delay = '10s'`)
    await pool.query('SELECT pg_reload_conf()')
    await new Promise((resolve) => setTimeout(resolve, 300))
    try {
      const store = postgresStore({ pool: single, table: 'durable' })
      await store.ensureSchema()
      const setting = async () => (await single.query('SHOW synchronous_commit')).rows[0].synchronous_commit
      const before = await setting()
      const written = async () => (await single.query('SELECT pg_current_wal_insert_lsn() AS lsn')).rows[0].lsn as string
      /** Whether the WAL is on disk up to `lsn` (all of it, without one). */
      const flushed = async (lsn?: string) =>
        (await single.query('SELECT pg_current_wal_flush_lsn() >= coalesce($1::pg_lsn, pg_current_wal_insert_lsn()) AS flushed', [lsn ?? null])).rows[0].flushed
      await store.events.append('run_live', [{ seq: 1, data: '{"n":1}' }], false)
      expect(await flushed()).toBe(false)
      expect(await setting()).toBe(before)
      let lsn = await written()
      await store.events.append('run_live', [{ seq: 2, data: '{"n":2}' }], true)
      expect(await flushed(lsn)).toBe(true)
      await store.events.append('run_next', [{ seq: 1, data: '{"n":1}' }], false)
      expect(await flushed()).toBe(false)
      lsn = await written()
      const head = { id: 'durable', version: 1, createdAt: 0, updatedAt: 0, messageCount: 1, bytes: 0, resolvedInterruptIds: [] }
      expect(await store.commit({ head, append: [{ role: 'user', id: 'm1', content: 'one' }] })).toBe(true)
      expect(await flushed(lsn)).toBe(true)
      expect((await store.events.read('run_live', 0))?.events.map((event) => event.seq)).toEqual([1, 2])
    } finally {
      await single.end()
      await pool.query('ALTER SYSTEM RESET wal_writer_delay')
      await pool.query('SELECT pg_reload_conf()')
    }
  })

  it('moves a thread’s expiry only once less than its time is left (the row is updated in place), never to sooner than its time after the write', async () => {
    const expiry = async (table: string, column: string, id: string) =>
      (await pool.query(`SELECT (extract(epoch FROM expires_at - now()) * 1000)::float8 AS left, extract(epoch FROM expires_at)::text AS at FROM ${table} WHERE ${column} = $1`, [id])).rows[0] as { left: number; at: string }
    const head = (id: string, version: number) => ({ id, version, createdAt: 0, updatedAt: 0, messageCount: version, bytes: 0, resolvedInterruptIds: [] })
    const message = (id: string) => ({ role: 'user' as const, id, content: id })
    const DAY = 24 * 3600_000
    const store = postgresStore({ pool, table: 'renew' })
    await store.ensureSchema()
    expect(await store.commit({ head: head('long', 1), append: [message('a')] })).toBe(true)
    const first = await expiry('renew_threads', 'id', 'long')
    expect(first.left).toBeGreaterThanOrEqual(30 * DAY)
    expect(await store.commit({ head: head('long', 2), append: [message('b')] })).toBe(true)
    expect((await expiry('renew_threads', 'id', 'long')).at).toBe(first.at)

    // A short TTL: each write a while after the last has less than the TTL left, and moves it.
    const short = postgresStore({ pool, table: 'renew', threadTtlMs: 300 })
    expect(await short.commit({ head: head('short', 1), append: [message('a')] })).toBe(true)
    const before = await expiry('renew_threads', 'id', 'short')
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await short.commit({ head: head('short', 2), append: [message('b')] })).toBe(true)
    const after = await expiry('renew_threads', 'id', 'short')
    expect(Number(after.at)).toBeGreaterThan(Number(before.at))
  })

  it('names its statements on a node-postgres pool, so the server plans each once per connection; anything else gets query(text, values)', async () => {
    const single = new pg.Pool({ connectionString: server.connectionString, max: 1 })
    try {
      const prepared = async () => (await single.query(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'toolgate_%'`)).rows.length
      const head = (version: number, messageCount: number) => ({ id: 'named', version, createdAt: 0, updatedAt: 0, messageCount, bytes: 0, resolvedInterruptIds: [] })
      const first = { role: 'user' as const, id: 'm1', content: 'one' }
      const second = { role: 'user' as const, id: 'm2', content: 'two' }
      const plain = postgresStore({ pool: { query: (text: string, values?: unknown[]) => single.query(text, values) }, table: 'named' })
      await plain.ensureSchema()
      expect(await plain.commit({ head: head(1, 1), append: [first] })).toBe(true)
      expect(await plain.messages('named', 0, 1)).toEqual([first])
      expect(await prepared()).toBe(0)
      const store = postgresStore({ pool: single, table: 'named' })
      expect(await store.commit({ head: head(2, 2), append: [second] })).toBe(true)
      expect(await store.commit({ head: head(2, 3), append: [second] })).toBe(false)
      expect(await store.messages('named', 0, 2)).toEqual([first, second])
      expect((await store.head('named'))?.version).toBe(2)
      expect(await prepared()).toBe(4) // the commit, its wake-up after it, the messages, the head: each prepared once
      expect(() => postgresStore({ pool, namedStatements: 'yes' as never })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', option: 'namedStatements' }))
    } finally {
      await single.end()
    }
  })

  it('with a secret, refuses records rewritten in PostgreSQL with their chain and the head’s tip recomputed, and records deleted with the tip (issue 36)', async () => {
    const store = postgresStore({ pool, table: 'forged' })
    await store.ensureSchema()
    const secret = 'records-secret-0123456789-abcdefghijkl'
    const setTip = async (threadId: string, tip: { count: number; last: string } | undefined) => {
      const { rows } = await pool.query('SELECT head FROM forged_threads WHERE id = $1', [threadId])
      await pool.query('UPDATE forged_threads SET head = $2 WHERE id = $1', [threadId, JSON.stringify({ ...JSON.parse(rows[0].head), decisions: tip })])
    }
    // `by` rewritten, its digest recomputed as a writer without the secret can, and the head's tip moved to it.
    const rewritten = await decidedThread(store, secret)
    const { rows } = await pool.query('SELECT record FROM forged_decisions WHERE thread_id = $1', [rewritten.threadId])
    const { digest: _, ...body } = { ...JSON.parse(rows[0].record), by: { id: 'mallory' } }
    const digest = await digestOf(body)
    await pool.query('UPDATE forged_decisions SET record = $2 WHERE thread_id = $1', [rewritten.threadId, JSON.stringify({ ...body, digest })])
    await setTip(rewritten.threadId, { count: 1, last: digest })
    await expectAltered(rewritten.handler, rewritten.threadId)
    // Every record deleted, and the tip with them: the call still shows its approval.
    const deleted = await decidedThread(store, secret)
    await pool.query('DELETE FROM forged_decisions WHERE thread_id = $1', [deleted.threadId])
    await setTip(deleted.threadId, undefined)
    await expectAltered(deleted.handler, deleted.threadId)
  })

  it('refuses a listener that is neither a client nor a function that connects one, naming the option', () => {
    expect(() => postgresStore({ pool, listener: {} as never })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', option: 'listener' }))
    expect(() => postgresStore({ pool, timeoutMs: 1.5 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', option: 'timeoutMs' }))
  })

  it('detects a decision record altered in PostgreSQL by its digest, and one removed by the chain', async () => {
    const store = postgresStore({ pool, table: 'tamper' })
    await store.ensureSchema()
    const { threadId, handler } = await decidedThread(store)
    await pool.query(`UPDATE tamper_decisions SET record = replace(record, '"amount":500', '"amount":5') WHERE thread_id = $1`, [threadId])
    await expectAltered(handler, threadId)
    const second = await decidedThread(store)
    await pool.query(`DELETE FROM tamper_decisions WHERE thread_id = $1`, [second.threadId])
    await expectAltered(second.handler, second.threadId)
  })

  it('with a listener, a reader on another instance is woken by NOTIFY when events land, instead of polling', async () => {
    const listener = new pg.Client({ connectionString: server.connectionString })
    await listener.connect()
    try {
      const looks: string[] = []
      const counting = { query: (text: string, values?: unknown[]) => (looks.push(text), pool.query(text, values)) }
      const reader = postgresStore({ pool: counting, listener, table: 'wake' })
      const writer = postgresStore({ pool, table: 'wake' })
      await writer.ensureSchema()
      await writer.events.append('run_w', [{ seq: 1, data: '{"n":1}' }], false)
      // A minute's wait: only the notification can end it within the test's time.
      const waiting = reader.events.wait('run_w', 1, 60_000, new AbortController().signal)
      await new Promise((resolve) => setTimeout(resolve, 300))
      await writer.events.append('run_w', [{ seq: 2, data: '{"n":2}' }], false)
      await waiting
      expect(looks.filter((text) => text.includes('AS more'))).toHaveLength(1)
      expect((await reader.events.read('run_w', 1))?.events).toEqual([{ seq: 2, data: '{"n":2}' }])
    } finally {
      await listener.end()
    }
  })

  it('with a listener, a chat watching a thread on instance B is answered by NOTIFY when a reviewer decides on instance A, instead of polling', async () => {
    const listener = new pg.Client({ connectionString: server.connectionString })
    await listener.connect()
    try {
      let looks = 0
      const counting = { query: (text: string, values?: unknown[]) => (text.startsWith('SELECT version') && looks++, pool.query(text, values)) }
      const writer = postgresStore({ pool, table: 'watch' })
      await writer.ensureSchema()
      const a = reviewedApp(writer)
      // A minute's wait: only the notification can end it within the test's time, unless B polls.
      const b = reviewedApp(postgresStore({ pool: counting, listener, table: 'watch' }), { limits: { watchMs: 60_000 } })
      // A's turn's last wake-ups go after its commits, at most 10 ms apart: they are out well within this.
      await expectWatchAnsweredAcrossInstances(a, b, () => looks, () => new Promise((resolve) => setTimeout(resolve, 300)))
    } finally {
      await listener.end()
    }
  })
})

/**
 * Alice's chat on instance B watches her thread (`GET ?watch`) while Bob, a reviewer, approves on
 * instance A: B answers with the new version, having looked at the head's version once (`looks`),
 * so a notification woke it. The watch waits long enough first for a polling store to look again.
 * `settled` waits for the wake-ups of A's turn that may still be on their way (PostgreSQL sends
 * them after its commits), which would make B look once more.
 */
async function expectWatchAnsweredAcrossInstances(a: ReturnType<typeof reviewedApp>, b: ReturnType<typeof reviewedApp>, looks: () => number, settled?: () => Promise<unknown>) {
  const { threadId, interrupt } = await a.ask('pay 500')
  await settled?.()
  const now = (await (await b.get(`threadId=${threadId}&watch=0`, 'alice')).json()) as { threadId: string; version: number }
  expect(now).toEqual({ threadId, version: expect.any(Number) })
  const watching = b.get(`threadId=${threadId}&watch=${now.version}`, 'alice')
  await new Promise((resolve) => setTimeout(resolve, 1500))
  await (await a.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, 'bob')).text()
  const answer = await watching
  expect(answer.status).toBe(200)
  expect(((await answer.json()) as { version: number }).version).toBeGreaterThan(now.version)
  expect(looks()).toBe(1)
  await a.idle(threadId)
  expect(a.ran).toEqual([{ tool: 'transfer_money', input: { to: 'Bob', amount: 500 } }])
}

/** A thread with one recorded approval, on `store` (signed with `secret`, when given). */
async function decidedThread(store: ThreadStore, secret?: string) {
  const transfer = toolDefinition({ name: 'transfer_money', description: 'Sends money', inputSchema: v.object({ amount: v.number() }), needsApproval: true }).server(async () => ({ ok: true }))
  const model = scriptedModel([{ when: 'pay', call: () => ({ tool: 'transfer_money', input: { amount: 500 } }), then: () => 'paid' }])
  const handler = createChatHandler({ model, tools: [transfer], store, identify: () => ({ id: 'bob' }), ...(secret ? { decisions: { secret } } : {}) })
  const post = (body: unknown) => handler(new Request('http://test/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
  const events = (await (await post({ message: 'pay' })).text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)))
  const threadId = events[0].threadId as string
  await (await post({ threadId, resume: [{ interruptId: events.at(-1).outcome.interrupts[0].id, approved: true }] })).text()
  expect((await handler.decisions(threadId)).map((record) => record.decision)).toEqual(['approved'])
  return { threadId, handler }
}

async function expectAltered(handler: ChatHandler & ChatRecords, threadId: string) {
  const response = await handler(new Request(`http://test/chat?threadId=${threadId}&decisions`))
  expect(response.status).toBe(500)
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('DECISION_RECORD_ALTERED')
  await expect(handler.decisions(threadId)).rejects.toMatchObject({ code: 'DECISION_RECORD_ALTERED' })
}
