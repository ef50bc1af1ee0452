/** @module @toolgate/ai/server/redis */
import { InvalidOptionError } from '../../errors.ts'
import type { DecisionRecord } from '../../protocol/decisions.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import { randomId } from '../../util/randomId.ts'
import type { AttachmentStore } from '../thread/attachmentStore.ts'
import { THREAD_WATCH_POLL_MS, threadWakeKey, type LoggedEvent, type RunEventLog, type ThreadHead, type ThreadStore } from '../thread/threadStore.ts'
import { redisAttachments } from './redisAttachments.ts'
import { hashSlot, runIdInSlot } from './redisSlots.ts'
import { RunWakeups } from './runWakeups.ts'
import { OutageLog, storeCall, StoreError, survivesErrors, type StoreErrorListener } from './storeError.ts'

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
  /**
   * A thread untouched for this long expires (its keys carry a TTL). Default 30 days. A write moves
   * the TTL only once less than this is left, to a 64th more (so most writes leave it alone): a
   * thread expires up to a 64th of this later than this after its last write, never sooner.
   */
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

/**
 * A run's events: a sorted set scored by each event's seq (its member is `<seq>:<data>`, unique
 * even for two events of equal data), so ids come from the log, and a write Redis lost leaves a
 * gap that readers see instead of renumbering what follows; and, once the run ended, an `end`
 * marker. Both expire: `retention` after the end, a day after the last write for a run whose
 * process died. The first event of a `seq` is kept: a batch that lands after the release that
 * carried it too changes nothing, nor the ended log's retention. Each write publishes the run's id
 * on the store's channel, for waiting readers on any instance.
 *
 * This is the Lua of that write (the events at ARGV[from..]; `last` is '1' for the run's last),
 * shared by the commit (the events a run's write carries) and the log's own append, so both keep
 * the one rule.
 */
const logEvents = (keys: { events: string; end: string }, argv: { from: string; last: string; retention: string; channel: string; runId: string }) => `
-- Events past the log's highest seq (every event but one of a batch sent again, or of a gap
-- filled late) are new: one ZADD for them all, and a look per event only for the others.
local top = redis.call('ZRANGE', ${keys.events}, -1, -1, 'WITHSCORES')
local highest = tonumber(top[2] or '0')
local fresh = {}
for i = ${argv.from}, #ARGV do
  local member = ARGV[i]
  local seq = string.sub(member, 1, string.find(member, ':', 1, true) - 1)
  if tonumber(seq) > highest or redis.call('ZCOUNT', ${keys.events}, seq, seq) == 0 then
    fresh[#fresh + 1] = seq
    fresh[#fresh + 1] = member
  end
end
for i = 1, #fresh, 1000 do redis.call('ZADD', ${keys.events}, unpack(fresh, i, math.min(i + 999, #fresh))) end
local retention = tonumber(${argv.retention})
if ${argv.last} == '1' then redis.call('SET', ${keys.end}, '1', 'PX', retention)
else
  local ended = redis.call('PTTL', ${keys.end})
  if ended ~= -2 then retention = ended end
end
if retention > 0 then redis.call('PEXPIRE', ${keys.events}, retention) end
redis.call('PUBLISH', ${argv.channel}, ${argv.runId})
`

// A thread is keys in one hash slot (so a cluster keeps them together): a hash with the head's
// version `v` and JSON `h`, a list of its messages as JSON, a list of its decision records, a
// hash of its files, and its runs' event logs. A commit is one Lua script: compare the version,
// set the head, push the new messages and records, renew the TTLs when due, and publish the thread's wakeup
// key on the store's channel (ARGV[5], ARGV[6]) for its watchers on any instance. Nothing is read
// back. A commit sent behind one not yet answered (`follows`, ARGV[7]) also checks that the stored
// head is that one: by the token of the commit that sent it (`#…`, kept in the hash as `t`, ARGV[13]
// this commit's), or for a head this store did not send, by its text. A run's writes carry the events its log had not sent (KEYS[5],
// KEYS[6]: its log, as APPEND_EVENTS writes it; ARGV[9] the log's time to live, ARGV[10] the run's
// id to publish, ARGV[11] '1' when they are the run's last, carried by its release): written, and
// the last ones end its log, only if the head is written, in the same script. ARGV[3] is the
// thread's TTL and ARGV[12] what its keys are given when it moves; messages start at ARGV[14].
const COMMIT = `
local stored = redis.call('HMGET', KEYS[1], 'v', 't')
if tonumber(stored[1] or '0') ~= tonumber(ARGV[1]) - 1 then return 0 end
if ARGV[7] ~= '' then
  if string.byte(ARGV[7]) == 35 then
    if stored[2] ~= ARGV[7] then return 0 end
  elseif redis.call('HGET', KEYS[1], 'h') ~= ARGV[7] then return 0 end
end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'h', ARGV[2], 't', ARGV[13])
local messages = 14 + tonumber(ARGV[4])
local decisions = messages + tonumber(ARGV[8])
-- Pushes ARGV[from .. to - 1]; true when that made the list.
local function push(key, from, to)
  local length = 0
  for i = from, to - 1, 1000 do length = redis.call('RPUSH', key, unpack(ARGV, i, math.min(i + 999, to - 1))) end
  return length > 0 and length == to - from
end
local madeMessages = push(KEYS[2], 14, messages)
local madeRecords = push(KEYS[3], messages, decisions)
-- Expiry moves only once less than the thread's TTL (ARGV[3]) is left, to a 64th more (ARGV[12]),
-- on every key of the thread (PEXPIRE on one that does not exist does nothing); a list made
-- meanwhile gets as long. So each key holds at least the TTL after a write, and the head expires first.
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then
  for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[12]) end
else
  if madeMessages then redis.call('PEXPIRE', KEYS[2], ARGV[12]) end
  if madeRecords then redis.call('PEXPIRE', KEYS[3], ARGV[12]) end
end
redis.call('PUBLISH', ARGV[5], ARGV[6])
if KEYS[5] then${logEvents({ events: 'KEYS[5]', end: 'KEYS[6]' }, { from: 'decisions', last: 'ARGV[11]', retention: 'ARGV[9]', channel: 'ARGV[5]', runId: 'ARGV[10]' })}end
return 1
`

// The log's own append: KEYS the log (events, end); ARGV[1] '1' for the run's last events,
// ARGV[2] the retention, ARGV[3] the channel, ARGV[4] the run's id, the events from ARGV[5].
const APPEND_EVENTS = `${logEvents({ events: 'KEYS[1]', end: 'KEYS[2]' }, { from: '5', last: 'ARGV[1]', retention: 'ARGV[2]', channel: 'ARGV[3]', runId: 'ARGV[4]' })}
return 1
`

const DAY_MS = 24 * 60 * 60 * 1000

/** A run's log: its events' sorted set and its end marker. */
type LogKeys = readonly [events: string, end: string]

/** How many runs logged elsewhere than their ids say a store remembers (see `movedRuns`). */
const MOVED_RUNS = 1000

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
  const outages = options.onError ? undefined : new OutageLog()
  const onError = options.onError ?? outages!.report
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
  /** What a thread's keys are given when their TTL moves (see `threadTtlMs`); a file is given as much, so it never expires before its thread. */
  const renewedTtl = String(ttlMs + Math.floor(ttlMs / 64))
  if (typeof prefix !== 'string') throw new InvalidOptionError('redisStore', 'prefix', 'must be a string')
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) throw new InvalidOptionError('redisStore', 'threadTtlMs', 'must be a positive integer of milliseconds')
  if (!Number.isSafeInteger(retentionMs) || retentionMs < 1) throw new InvalidOptionError('redisStore', 'eventRetentionMs', 'must be a positive integer of milliseconds')

  const script = scriptRunner(send)
  const headKey = (threadId: string) => `${prefix}{${threadId}}:head`
  const messagesKey = (threadId: string) => `${prefix}{${threadId}}:messages`
  const decisionsKey = (threadId: string) => `${prefix}{${threadId}}:decisions`
  // A run's log is kept in its thread's slot, so the thread's commits write it and the release that
  // ends the run ends its log in the same script. The store mints run ids (`events.newRunId`) that
  // hash to their thread's slot (`redisSlots.ts`): the log is then under the run's own id
  // (`{<runId>}:events`), where a reader given that id alone finds it. A run whose id the store did
  // not mint (an app's, or one minted by an instance of a version before) is logged under its
  // thread's tag instead, with an index from run to thread written beside its first event.
  const runLogKeys = (runId: string): LogKeys => [`${prefix}{${runId}}:events`, `${prefix}{${runId}}:end`]
  const threadLogKeys = (runId: string, threadId: string): LogKeys => [`${prefix}{${threadId}}:run:${runId}:events`, `${prefix}{${threadId}}:run:${runId}:end`]
  /** Run ids this store minted (`events.newRunId`), by their thread: in its slot by construction, so no CRC16 of either key per write. Bounded; a run forgotten is checked by its keys. */
  const minted = new Map<string, string>()
  const inThreadSlot = (runId: string, threadId: string) => minted.get(runId) === threadId || hashSlot(runLogKeys(runId)[0]) === hashSlot(headKey(threadId))
  /** Where a run of `threadId` is logged: under its id when that shares the thread's slot (or given no thread). */
  const writtenAt = (runId: string, threadId: string | undefined): LogKeys =>
    threadId === undefined || inThreadSlot(runId, threadId) ? runLogKeys(runId) : threadLogKeys(runId, threadId)
  /** Where a reader looks first. */
  const logKeys = (runId: string, threadId: string | undefined): LogKeys => movedRuns.get(runId) ?? writtenAt(runId, threadId)
  const threadKey = (runId: string) => `${prefix}{${runId}}:thread`
  /**
   * Runs a reader found logged elsewhere than `writtenAt` says (by the index, given the run's id
   * alone; by instances of versions before: in the run's own slot, or under its thread's tag with
   * an id that hashes to the thread's slot by chance): read and waited for there. Bounded; a run
   * forgotten is looked for again.
   */
  const movedRuns = new Map<string, LogKeys>()
  const remember = (runId: string, keys: LogKeys) => {
    if (movedRuns.size >= MOVED_RUNS) movedRuns.delete(movedRuns.keys().next().value!)
    movedRuns.set(runId, keys)
  }
  const filesKey = (threadId: string) => `${prefix}{${threadId}}:files`
  const channel = `${prefix}run-events`
  const { subscriber } = options
  if (subscriber !== undefined && typeof subscriber.subscribe !== 'function') {
    throw new InvalidOptionError('redisStore', 'subscriber', 'must be a second connected node-redis client (`client.duplicate()`)')
  }
  // node-redis emits `ready` once it reconnected: the outage's end, for the default log.
  const back = (operation: string) => outages && { event: 'ready', listener: () => outages.recovered('redisStore', operation) }
  survivesErrors(client, reportFrom('connection'), back('connection'))
  if (subscriber) survivesErrors(subscriber, reportFrom('subscriber connection'), back('subscriber connection'))
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

  /** The log at `keys`: `undefined` when it holds nothing (no event yet, or expired). */
  const readLog = async ([events, end]: LogKeys, after: number, limit?: number) => {
    const page = limit === undefined ? [] : ['LIMIT', '0', String(limit + 1)]
    const [items, ended] = await Promise.all([
      send(['ZRANGEBYSCORE', events, `(${Math.max(0, after)}`, '+inf', ...page]) as Promise<string[]>,
      send(['EXISTS', end]) as Promise<number>,
    ])
    if (items.length === 0 && Number(ended) !== 1 && Number(await send(['EXISTS', events])) === 0) return undefined
    const more = limit !== undefined && items.length > limit
    const read = (more ? items.slice(0, limit) : items).map((item) => {
      const colon = item.indexOf(':')
      return { seq: Number(item.slice(0, colon)), data: item.slice(colon + 1) }
    })
    return { events: read, ended: Number(ended) === 1 && !more }
  }

  /** A run logged under its thread's tag: its first event also tells readers given only the run's id where its thread is. */
  const indexed = (runId: string, threadId: string | undefined, logged: readonly LoggedEvent[]) => {
    if (threadId === undefined || logged[0]?.seq !== 1 || inThreadSlot(runId, threadId)) return undefined
    return send(['SET', threadKey(runId), threadId, 'PX', String(DAY_MS)])
  }

  const events: RunEventLog = {
    inCommits: true,
    newRunId: (threadId) => {
      const runId = runIdInSlot(hashSlot(headKey(threadId)))
      if (minted.size >= MOVED_RUNS) minted.delete(minted.keys().next().value!)
      minted.set(runId, threadId)
      return runId
    },
    async append(runId, logged: readonly LoggedEvent[], final, threadId) {
      const ttl = final ? retentionMs : DAY_MS
      const index = indexed(runId, threadId, logged)
      await script(APPEND_EVENTS, [...writtenAt(runId, threadId)], [final ? '1' : '0', String(ttl), channel, runId, ...logged.map((event) => `${event.seq}:${event.data}`)])
      await index
    },
    async read(runId, after, limit, threadId) {
      const keys = logKeys(runId, threadId)
      const read = await readLog(keys, after, limit)
      if (read !== undefined || movedRuns.has(runId)) return read
      // Not where its id says: logged under its thread's tag, by a version before or with an id
      // the store did not mint (given its id alone: found by the index), or in its own slot by a
      // version before the thread's tag.
      const thread = threadId ?? ((await send(['GET', threadKey(runId)])) as string | null) ?? undefined
      if (thread === undefined) return undefined
      const other = keys[0] === runLogKeys(runId)[0] ? threadLogKeys(runId, thread) : runLogKeys(runId)
      const moved = await readLog(other, after, limit)
      if (moved !== undefined) remember(runId, other)
      return moved
    },
    wait(runId, after, timeoutMs, signal, threadId) {
      const hasMore = async () => {
        const [events, end] = logKeys(runId, threadId)
        const [newer, ended] = await Promise.all([send(['ZCOUNT', events, `(${after}`, '+inf']) as Promise<number>, send(['EXISTS', end]) as Promise<number>])
        return Number(newer) > 0 || Number(ended) === 1
      }
      return wakeups.wait(runId, hasMore, timeoutMs, signal)
    },
  }

  /**
   * The token of the commit that sent each head (this store's own prefix, then a count): a commit
   * that follows the head sends it, not the head's text again. A head sent twice keeps its first.
   */
  const tokens = new WeakMap<ThreadHead, string>()
  const tokenPrefix = `#${randomId()}:`
  let sent = 0

  return {
    name: 'redis',
    pipelines: true,
    events,
    attachments: redisAttachments({ script, send, filesKey, ttl: renewedTtl }),
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
    async commit({ head, append, decisions = [], follows, events: last }) {
      let token = tokens.get(head)
      if (token === undefined) tokens.set(head, (token = tokenPrefix + (sent++).toString(36)))
      const args = [
        String(head.version),
        JSON.stringify(head),
        String(ttlMs),
        String(append.length),
        channel,
        threadWakeKey(head.id),
        follows === undefined ? '' : (tokens.get(follows) ?? JSON.stringify(follows)),
        String(decisions.length),
        String(last?.final === false ? DAY_MS : retentionMs),
        last?.runId ?? '',
        last?.final === false ? '0' : '1',
        renewedTtl,
        token,
        ...append.map((message) => JSON.stringify(message)),
        ...decisions.map((record) => JSON.stringify(record)),
      ]
      const keys = [headKey(head.id), messagesKey(head.id), decisionsKey(head.id), filesKey(head.id)]
      if (last) {
        keys.push(...writtenAt(last.runId, head.id))
        for (const event of last.events) args.push(`${event.seq}:${event.data}`)
        // Only readers given the run's id alone need an index: its failure fails no release.
        indexed(last.runId, head.id, last.events)?.catch(reportFrom('commit'))
      }
      return Number(await script(COMMIT, keys, args)) === 1
    },
  }
}

/**
 * Runs a Lua script by its SHA, loading it on the first NOSCRIPT (after a restart or a failover
 * too). Once its SHA is known, a script is one command with nothing awaited in between.
 */
function scriptRunner(send: (args: string[]) => Promise<unknown>) {
  const shas = new Map<string, string>()
  const run = (source: string, sha: string, keys: string[], args: string[]) =>
    send(['EVALSHA', sha, String(keys.length), ...keys, ...args]).catch((error: unknown) => {
      if (!String(((error as StoreError).cause as Error | undefined)?.message).includes('NOSCRIPT')) throw error
      return send(['EVAL', source, String(keys.length), ...keys, ...args])
    })
  return (source: string, keys: string[], args: string[]): Promise<unknown> => {
    const sha = shas.get(source)
    if (sha !== undefined) return run(source, sha, keys, args)
    return send(['SCRIPT', 'LOAD', source]).then((loaded) => {
      shas.set(source, loaded as string)
      return run(source, loaded as string, keys, args)
    })
  }
}
