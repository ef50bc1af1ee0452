/** @module @toolgate/ai/server/redis */
import { InvalidOptionError } from '../../errors.ts'
import type { DecisionRecord } from '../../protocol/decisions.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import type { AttachmentStore } from '../run/attachments.ts'
import { THREAD_WATCH_POLL_MS, threadWakeKey, type LoggedEvent, type RunEventLog, type ThreadHead, type ThreadStore } from '../thread/threadStore.ts'
import { redisAttachments } from './redisAttachments.ts'
import { RunWakeups } from './runWakeups.ts'
import { defaultStoreErrorListener, storeCall, StoreError, survivesErrors, type StoreErrorListener } from './storeError.ts'

/**
 * What the store needs of a Redis client: node-redis v5's `sendCommand` (`createClient()` from
 * `redis`, connected). The store never imports the client library.
 */
export interface RedisClientLike {
  sendCommand(args: string[]): Promise<unknown>
  /** node-redis emits `'error'` while it reconnects; the store listens (unless you do), so a restart of Redis does not crash the process. */
  on?(event: 'error', listener: (error: unknown) => void): unknown
  listenerCount?(event: 'error'): number
}

/**
 * A second connection for pub/sub (node-redis v5: `await client.duplicate().connect()`): a
 * connection that subscribes can send nothing else. node-redis subscribes again after it
 * reconnects; until it is `'ready'`, waiting readers poll.
 */
export interface RedisSubscriberLike {
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>
  on?(event: 'error' | 'ready' | 'reconnecting' | 'end', listener: (error?: unknown) => void): unknown
  listenerCount?(event: 'error'): number
}

export interface RedisStoreOptions {
  readonly client: RedisClientLike
  /**
   * Wakes readers that reattach to a run as soon as its events land, and watchers of a thread
   * (`GET ?watch`) as soon as it changes, on any instance; without it they look every 50 ms (a
   * thread's watchers every second). Every instance should be given one.
   */
  readonly subscriber?: RedisSubscriberLike
  /** Prefix of every key. Default `toolgate:`. */
  readonly prefix?: string
  /** A thread untouched for this long expires (its keys carry a TTL, renewed by every write). Default 30 days. */
  readonly threadTtlMs?: number
  /** How long a run's events stay readable after it ends. Default 5 minutes. */
  readonly eventRetentionMs?: number
  /**
   * Connection errors no request awaits (the clients' `'error'` events while Redis restarts), as
   * `StoreError`s; requests that fail meanwhile get 503 `STORE_ERROR`. Default: the server log.
   */
  readonly onError?: StoreErrorListener
  /**
   * A command without an answer after this long fails with `StoreError` (503 `STORE_ERROR`),
   * rather than holding the request while Redis is frozen or node-redis waits to reconnect.
   * Default 10 seconds.
   */
  readonly timeoutMs?: number
}

/** A `ThreadStore` on Redis, with the files tools return kept beside each thread. */
export interface RedisStore extends ThreadStore {
  readonly events: RunEventLog
  readonly attachments: AttachmentStore
}

// A thread is keys in one hash slot (so a cluster keeps them together): a hash with the head's
// version `v` and JSON `h`, a list of its messages as JSON, a list of its decision records, and a
// hash of its files. A commit is one Lua script: compare the version, set the head, push the new
// messages and records, renew the TTLs, and publish the thread's wakeup key on the store's channel
// (ARGV[5], ARGV[6]) for its watchers on any instance. Nothing is read back. A commit sent behind
// one not yet answered (`follows`, ARGV[7]) also compares the stored head's text with that one's.
const COMMIT = `
local version = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if version ~= tonumber(ARGV[1]) - 1 then return 0 end
if ARGV[7] ~= '' and redis.call('HGET', KEYS[1], 'h') ~= ARGV[7] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'h', ARGV[2])
local split = 8 + tonumber(ARGV[4])
for i = 8, split - 1 do redis.call('RPUSH', KEYS[2], ARGV[i]) end
for i = split, #ARGV do redis.call('RPUSH', KEYS[3], ARGV[i]) end
local ttl = tonumber(ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ttl) end
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ttl) end
if redis.call('EXISTS', KEYS[4]) == 1 then redis.call('PEXPIRE', KEYS[4], ttl) end
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1
`

// A run's events: a sorted set scored by each event's seq (its member is `<seq>:<data>`, unique
// even for two events of equal data), so ids come from the log, and a write Redis lost leaves a
// gap that readers see instead of renumbering what follows; and, once the run ended, an `end`
// marker. Both expire: `retention` after the end, a day after the last write for a run whose
// process died. Each append publishes the run's id on the store's channel (ARGV[3]), for waiting
// readers on any instance.
const APPEND_EVENTS = `
for i = 5, #ARGV do
  local member = ARGV[i]
  redis.call('ZADD', KEYS[1], tonumber(string.sub(member, 1, string.find(member, ':', 1, true) - 1)), member)
end
local ttl = tonumber(ARGV[2])
if ARGV[1] == '1' then redis.call('SET', KEYS[2], '1', 'PX', ttl) end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ttl) end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`

const DAY_MS = 24 * 60 * 60 * 1000

/** How often a waiting reader looks for new events without a subscriber (a blocking read would hold the shared client). */
const POLL_MS = 50

/**
 * A `ThreadStore` on Redis (node-redis v5), shared by every instance that uses the same server
 * and prefix: a write is one compare-and-set script that appends only the new messages, and
 * runs' events are kept for clients that reconnect, on any instance.
 */
export function redisStore(options: RedisStoreOptions): RedisStore {
  const { client } = options
  if (typeof client?.sendCommand !== 'function') {
    throw new InvalidOptionError('redisStore', 'client', 'must be a connected node-redis client (`createClient()` from `redis`)')
  }
  if (options.onError !== undefined && typeof options.onError !== 'function') throw new InvalidOptionError('redisStore', 'onError', 'must be a function')
  const onError = options.onError ?? defaultStoreErrorListener
  const reportFrom = (operation: string) => (error: unknown) => {
    try {
      onError(new StoreError('redisStore', operation, error))
    } catch (hookError) {
      console.error('[toolgate] redisStore onError threw:', hookError)
    }
  }
  /** A command; a failure of the client or the server becomes a `StoreError` naming it. */
  const timeoutMs = options.timeoutMs ?? 10_000
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw new InvalidOptionError('redisStore', 'timeoutMs', 'must be a positive integer of milliseconds')
  const send = (args: string[], operation = args[0]!): Promise<unknown> => storeCall('redisStore', operation, timeoutMs, () => client.sendCommand(args))
  const prefix = options.prefix ?? 'toolgate:'
  const ttlMs = options.threadTtlMs ?? 30 * DAY_MS
  const retentionMs = options.eventRetentionMs ?? 5 * 60 * 1000
  if (typeof prefix !== 'string') throw new InvalidOptionError('redisStore', 'prefix', 'must be a string')
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) throw new InvalidOptionError('redisStore', 'threadTtlMs', 'must be a positive integer of milliseconds')
  if (!Number.isSafeInteger(retentionMs) || retentionMs < 1) throw new InvalidOptionError('redisStore', 'eventRetentionMs', 'must be a positive integer of milliseconds')

  const script = scriptRunner(send)
  const headKey = (threadId: string) => `${prefix}{${threadId}}:head`
  const messagesKey = (threadId: string) => `${prefix}{${threadId}}:messages`
  const decisionsKey = (threadId: string) => `${prefix}{${threadId}}:decisions`
  const eventsKey = (runId: string) => `${prefix}{${runId}}:events`
  const endKey = (runId: string) => `${prefix}{${runId}}:end`
  const filesKey = (threadId: string) => `${prefix}{${threadId}}:files`
  const channel = `${prefix}run-events`
  const { subscriber } = options
  if (subscriber !== undefined && typeof subscriber.subscribe !== 'function') {
    throw new InvalidOptionError('redisStore', 'subscriber', 'must be a second connected node-redis client (`client.duplicate()`)')
  }
  survivesErrors(client, reportFrom('connection'))
  if (subscriber) survivesErrors(subscriber, reportFrom('subscriber connection'))
  const wakeups = new RunWakeups({
    pollMs: POLL_MS,
    listen:
      subscriber &&
      (async ({ wake, up, down }) => {
        // node-redis subscribes again before it is 'ready' after a reconnect; a dropped connection
        // is always followed by 'reconnecting' (or 'end'), while an 'error' alone may leave it up.
        subscriber.on?.('ready', up)
        for (const lost of ['reconnecting', 'end'] as const) subscriber.on?.(lost, down)
        await subscriber.subscribe(channel, wake)
        up()
      }),
  })

  const readEvents = async (runId: string, after: number, limit?: number) => {
    const page = limit === undefined ? [] : ['LIMIT', '0', String(limit + 1)]
    const [items, end] = await Promise.all([
      send(['ZRANGEBYSCORE', eventsKey(runId), `(${Math.max(0, after)}`, '+inf', ...page]) as Promise<string[]>,
      send(['EXISTS', endKey(runId)]) as Promise<number>,
    ])
    const more = limit !== undefined && items.length > limit
    const events = (more ? items.slice(0, limit) : items).map((item) => {
      const colon = item.indexOf(':')
      return { seq: Number(item.slice(0, colon)), data: item.slice(colon + 1) }
    })
    return { events, ended: Number(end) === 1 && !more }
  }

  const events: RunEventLog = {
    async append(runId, logged: readonly LoggedEvent[], final) {
      const ttl = final ? retentionMs : DAY_MS
      await script(APPEND_EVENTS, [eventsKey(runId), endKey(runId)], [final ? '1' : '0', String(ttl), channel, runId, ...logged.map((event) => `${event.seq}:${event.data}`)])
    },
    async read(runId, after, limit) {
      const read = await readEvents(runId, after, limit)
      if (read.events.length === 0 && !read.ended && Number(await send(['EXISTS', eventsKey(runId)])) === 0) return undefined
      return read
    },
    wait(runId, after, timeoutMs, signal) {
      const hasMore = async () => {
        const [newer, end] = await Promise.all([
          send(['ZCOUNT', eventsKey(runId), `(${after}`, '+inf']) as Promise<number>,
          send(['EXISTS', endKey(runId)]) as Promise<number>,
        ])
        return Number(newer) > 0 || Number(end) === 1
      }
      return wakeups.wait(runId, hasMore, timeoutMs, signal)
    },
  }

  /** The text each head was sent as, so a commit that follows it compares that text without making it again. */
  const sentAs = new WeakMap<ThreadHead, string>()

  return {
    name: 'redis',
    pipelines: true,
    events,
    attachments: redisAttachments({ script, send, filesKey, ttlMs }),
    async head(threadId) {
      const json = (await send(['HGET', headKey(threadId), 'h'])) as string | null
      return json == null ? undefined : (JSON.parse(json) as ThreadHead)
    },
    async messages(threadId, from, to) {
      if (to <= from) return []
      const items = (await send(['LRANGE', messagesKey(threadId), String(from), String(to - 1)])) as string[]
      return items.map((item) => JSON.parse(item) as ThreadMessage)
    },
    async decisions(threadId) {
      const items = (await send(['LRANGE', decisionsKey(threadId), '0', '-1'])) as string[]
      return items.map((item) => JSON.parse(item) as DecisionRecord)
    },
    watch(threadId, version, timeoutMs, signal) {
      const moved = async () => Number((await send(['HGET', headKey(threadId), 'v'])) ?? 0) !== version
      return wakeups.wait(threadWakeKey(threadId), moved, timeoutMs, signal, THREAD_WATCH_POLL_MS)
    },
    async commit({ head, append, decisions = [], follows }) {
      const json = JSON.stringify(head)
      sentAs.set(head, json)
      const args = [
        String(head.version),
        json,
        String(ttlMs),
        String(append.length),
        channel,
        threadWakeKey(head.id),
        follows === undefined ? '' : (sentAs.get(follows) ?? JSON.stringify(follows)),
        ...append.map((message) => JSON.stringify(message)),
        ...decisions.map((record) => JSON.stringify(record)),
      ]
      return Number(await script(COMMIT, [headKey(head.id), messagesKey(head.id), decisionsKey(head.id), filesKey(head.id)], args)) === 1
    },
  }
}

/** Runs a Lua script by its SHA, loading it on the first NOSCRIPT (after a restart or a failover too). */
function scriptRunner(send: (args: string[]) => Promise<unknown>) {
  const shas = new Map<string, string>()
  return async (source: string, keys: string[], args: string[]): Promise<unknown> => {
    let sha = shas.get(source)
    if (sha === undefined) {
      sha = (await send(['SCRIPT', 'LOAD', source])) as string
      shas.set(source, sha)
    }
    try {
      return await send(['EVALSHA', sha, String(keys.length), ...keys, ...args])
    } catch (error) {
      if (!String(((error as StoreError).cause as Error | undefined)?.message).includes('NOSCRIPT')) throw error
      return send(['EVAL', source, String(keys.length), ...keys, ...args])
    }
  }
}
