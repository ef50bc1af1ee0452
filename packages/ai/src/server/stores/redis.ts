/** @module @toolgate/ai/server/redis */
import { InvalidOptionError } from '../../errors.ts'
import type { DecisionRecord } from '../../protocol/decisions.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import { randomId } from '../../util/randomId.ts'
import type { AttachmentStore } from '../thread/attachmentStore.ts'
import { THREAD_WATCH_POLL_MS, threadWakeKey, type LoggedEvent, type RunEventLog, type ThreadHead, type ThreadStore } from '../thread/threadStore.ts'
import { redisAttachments } from './redisAttachments.ts'
import { hashSlot, runIdInSlot } from './redisSlots.ts'
import { listHasMore, logEventsLua, pushArgsLua, pushEventArgs, readList, readSortedSet, sortedSetHasMore } from './redisRunLog.ts'
import { RunWakeups } from './runWakeups.ts'
import { tickHeadReads } from './tickHeadReads.ts'
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

// A thread is keys in one hash slot (so a cluster keeps them together): a hash with the head's
// version `v`, JSON `h` and the token `t` of the commit that wrote it, a list of its messages as
// JSON, a list of its decision records, a hash of its files, and its runs' event logs
// (redisRunLog.ts). A commit is one Lua script: compare the version, set the head, push the new
// messages and records, renew the TTLs when due, and publish on the store's channel the thread's
// wakeup key, after the run's id when it carries events (ARGV[5]), for watchers and readers on any
// instance. Nothing is read back. A commit sent behind one not yet answered
// (`follows`, ARGV[4]) also checks that the stored head is that one: by the token of the commit
// that sent it (`#…`; ARGV[3] is this commit's), or for a head this store did not send, by its
// text. Refused, it answers the stored head (nil: none), for a read of it that rides the commit.
// A run's writes carry the events its log had not sent (its log the last of KEYS): written, and
// the last ones end its log, only if the head is written, in the same script. ARGV[6] and ARGV[7]
// count the messages and records that follow from ARGV[8]; the log's arguments come after them.
// The store's settings are written into the script (as text: Redis reads a Lua number by printing it).
// KEYS are the head, the messages, the records when the commit appends some, then the log when it
// carries events. Otherwise the records and files keys, which a commit touches only to start a
// thread or move the TTLs, are named in the script from the head's key (`RECORDS`, `FILES`: the
// same slot), not sent with every commit (each argument costs Redis about 750 instructions, and 13
// a byte, to hand to Lua), and touched only before the script's first write: Redis Cluster checks
// the keys a script is sent before it runs it, a key it names itself only when it gets there (while
// the slot moves to another node, it may fail there), and a script that stops keeps what it wrote.
const RECORDS = "string.sub(KEYS[1], 1, -5) .. 'decisions'"
const FILES = "string.sub(KEYS[1], 1, -5) .. 'files'"
const commitLua = (channel: string, ttlMs: number, renewedTtlMs: number, retentionMs: number) => `
local stored = redis.call('HMGET', KEYS[1], 'v', 't')
if (stored[1] or 0) + 1 ~= ARGV[1] + 0 then return redis.call('HGET', KEYS[1], 'h') end
if ARGV[4] ~= '' then
  if string.byte(ARGV[4]) == 35 then
    if stored[2] ~= ARGV[4] then return redis.call('HGET', KEYS[1], 'h') end
  else
    local text = redis.call('HGET', KEYS[1], 'h')
    if text ~= ARGV[4] then return text end
  end
end
-- A new thread starts afresh: what a thread of the same id left (its lists, made after its head's
-- TTL last moved, outlive the head by up to a 64th of the TTL) is not its history.
if not stored[1] then redis.call('DEL', KEYS[2], ${RECORDS}, ${FILES}) end
-- Expiry moves only once less than the thread's TTL is left, to a 64th more, on every key of the
-- thread (PEXPIRE on one that does not exist does nothing); a list made meanwhile, or a new
-- thread's keys, get as long. So each key holds at least the TTL after a write, and the head
-- expires first. The keys not sent move first, before anything is written.
local renew = stored[1] and redis.call('PTTL', KEYS[1]) < ${ttlMs}
if renew then
  redis.call('PEXPIRE', ${RECORDS}, '${renewedTtlMs}')
  redis.call('PEXPIRE', ${FILES}, '${renewedTtlMs}')
end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'h', ARGV[2], 't', ARGV[3])
local messages = 8 + ARGV[6]
local decisions = messages + ARGV[7]
-- A list this push made (its length is what was pushed) gets the TTL below.
local pushed = 0
${pushArgsLua('KEYS[2]', '8', 'messages - 1', 'pushed')}
local madeMessages = messages > 8 and pushed == messages - 8
pushed = 0
${pushArgsLua('KEYS[3]', 'messages', 'decisions - 1', 'pushed')}
local madeRecords = decisions > messages and pushed == decisions - messages
if renew then
  redis.call('PEXPIRE', KEYS[1], '${renewedTtlMs}')
  redis.call('PEXPIRE', KEYS[2], '${renewedTtlMs}')
else
  if not stored[1] then redis.call('PEXPIRE', KEYS[1], '${renewedTtlMs}') end
  if madeMessages then redis.call('PEXPIRE', KEYS[2], '${renewedTtlMs}') end
end
if madeRecords then redis.call('PEXPIRE', KEYS[3], '${renewedTtlMs}') end
redis.call('PUBLISH', ${luaString(channel)}, ARGV[5])
local logKey = KEYS[decisions > messages and 4 or 3]
if logKey then${logEventsLua('logKey', 'decisions', retentionMs, DAY_MS)}end
return 1
`

// The log's own append: KEYS[1] the log; ARGV[1] the run's id, the log's arguments from ARGV[2].
const appendLua = (channel: string, retentionMs: number) => `${logEventsLua('KEYS[1]', '2', retentionMs, DAY_MS)}
redis.call('PUBLISH', ${luaString(channel)}, ARGV[1])
return 1
`

/** `text` as a Lua string literal: every byte escaped (`\ddd`), so any prefix is safe in a script. */
const luaString = (text: string) => `'${Array.from(new TextEncoder().encode(text), (byte) => `\\${byte}`).join('')}'`

const DAY_MS = 24 * 60 * 60 * 1000

/** Where a run's log is: this version's list, or the sorted set and end marker of earlier versions (0.1). */
type LogAt = { readonly list: string } | { readonly sortedSet: readonly [events: string, end: string] }


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
  const channel = `${prefix}run-events`
  const COMMIT = commitLua(channel, ttlMs, Number(renewedTtl), retentionMs)
  const APPEND = appendLua(channel, retentionMs)
  // The commit script names the records and files keys from the head key when it is not sent them (RECORDS, FILES).
  const headKey = (threadId: string) => `${prefix}{${threadId}}:head`
  const messagesKey = (threadId: string) => `${prefix}{${threadId}}:messages`
  const decisionsKey = (threadId: string) => `${prefix}{${threadId}}:decisions`
  // A run's log is kept in its thread's slot, so the thread's commits write it and the release that
  // ends the run ends its log in the same script. The store mints run ids (`events.newRunId`) that
  // hash to their thread's slot (`redisSlots.ts`): the log is then under the run's own id
  // (`{<runId>}:log`), where a reader given that id alone finds it. A run whose id the store did
  // not mint (an app's, or one minted by an instance of a version before) is logged under its
  // thread's tag instead, with an index from run to thread written beside its first event.
  const runTag = (runId: string) => `${prefix}{${runId}}:`
  const threadTag = (runId: string, threadId: string) => `${prefix}{${threadId}}:run:${runId}:`
  /**
   * Run ids this store minted (`events.newRunId`), by their thread: in its slot by construction, so
   * no CRC16 of either key per write. Two generations of at most `MOVED_RUNS` (the older dropped
   * whole when the newer fills: no iterator per run); a run forgotten is checked by its keys.
   */
  let minted = new Map<string, string>()
  let mintedBefore = new Map<string, string>()
  const inThreadSlot = (runId: string, threadId: string) =>
    (minted.get(runId) ?? mintedBefore.get(runId)) === threadId || hashSlot(runTag(runId)) === hashSlot(headKey(threadId))
  /** The tag a run of `threadId` is logged under: its id's when that shares the thread's slot (or given no thread). */
  const writtenAt = (runId: string, threadId: string | undefined): string =>
    threadId === undefined || inThreadSlot(runId, threadId) ? runTag(runId) : threadTag(runId, threadId)
  const threadKey = (runId: string) => `${prefix}{${runId}}:thread`
  /**
   * Runs a reader found logged elsewhere than `writtenAt` says (by the index, given the run's id
   * alone; by instances of versions before: in a sorted set, in the run's own slot, or under its
   * thread's tag with an id that hashes to the thread's slot by chance): read and waited for there.
   * Bounded; a run forgotten is looked for again.
   */
  const movedRuns = new Map<string, LogAt>()
  const remember = (runId: string, at: LogAt) => {
    if (movedRuns.size >= MOVED_RUNS) movedRuns.delete(movedRuns.keys().next().value!)
    movedRuns.set(runId, at)
  }
  const readAt = (at: LogAt, after: number, limit?: number) => ('list' in at ? readList(send, at.list, after, limit) : readSortedSet(send, at.sortedSet, after, limit))
  const filesKey = (threadId: string) => `${prefix}{${threadId}}:files`
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
        // A commit that carries a run's events publishes the run's id, a space, then the thread's
        // wakeup key (run ids hold no space); anything else, one key.
        await subscriber.subscribe(channel, (message) => {
          wake(message)
          const space = message.indexOf(' ')
          if (space !== -1 && !message.startsWith('thread:')) {
            wake(message.slice(0, space))
            wake(message.slice(space + 1))
          }
        })
        up()
      }),
  })

  /** A run logged under its thread's tag: its first event also tells readers given only the run's id where its thread is. */
  const indexed = (runId: string, threadId: string | undefined, logged: readonly LoggedEvent[]) => {
    if (threadId === undefined || logged[0]?.seq !== 1 || inThreadSlot(runId, threadId)) return undefined
    return send(['SET', threadKey(runId), threadId, 'PX', String(DAY_MS)])
  }

  const events: RunEventLog = {
    inCommits: true,
    newRunId: (threadId) => {
      const runId = runIdInSlot(hashSlot(headKey(threadId)))
      if (minted.size >= MOVED_RUNS) [mintedBefore, minted] = [minted, new Map()]
      minted.set(runId, threadId)
      return runId
    },
    async append(runId, logged: readonly LoggedEvent[], final, threadId) {
      const index = indexed(runId, threadId, logged)
      const args = [runId]
      pushEventArgs(args, logged, final)
      // Both awaited together: with Redis down both fail, and the index's failure must not go unobserved.
      const written = script(APPEND, [`${writtenAt(runId, threadId)}log`], args)
      await (index ? Promise.all([written, index]) : written)
    },
    async read(runId, after, limit, threadId) {
      const moved = movedRuns.get(runId)
      if (moved) return readAt(moved, after, limit)
      const tag = writtenAt(runId, threadId)
      const read = await readList(send, `${tag}log`, after, limit)
      if (read !== undefined) return read
      // Not where this version logs it: in a sorted set, by a version before; or under its
      // thread's tag, with an id the store did not mint (given its id alone: found by the index),
      // or by a version before; or in its own slot, by a version before the thread's tag.
      const thread = threadId ?? ((await send(['GET', threadKey(runId)])) as string | null) ?? undefined
      const other = thread === undefined ? undefined : tag === runTag(runId) ? threadTag(runId, thread) : runTag(runId)
      const places: LogAt[] = [{ sortedSet: [`${tag}events`, `${tag}end`] }]
      if (other !== undefined) places.push({ list: `${other}log` }, { sortedSet: [`${other}events`, `${other}end`] })
      const reads = await Promise.all(places.map((at) => readAt(at, after, limit)))
      const found = reads.findIndex((candidate) => candidate !== undefined)
      if (found === -1) return undefined
      remember(runId, places[found]!)
      return reads[found]
    },
    wait(runId, after, timeoutMs, signal, threadId) {
      const hasMore = () => {
        const at = movedRuns.get(runId)
        if (at === undefined) return listHasMore(send, `${writtenAt(runId, threadId)}log`, after)
        return 'list' in at ? listHasMore(send, at.list, after) : sortedSetHasMore(send, at.sortedSet, after)
      }
      return wakeups.wait(runId, hasMore, timeoutMs, signal)
    },
  }

  const readHead = async (threadId: string) => {
    const json = (await send(['HGET', headKey(threadId), 'h'])) as string | null
    return json == null ? undefined : (JSON.parse(json) as ThreadHead)
  }
  const headReads = tickHeadReads(readHead)

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
    // A read in the tick of a commit of its thread rides it (tickHeadReads.ts).
    head: (threadId) => headReads.read(threadId),
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
      const threadId = head.id
      const wake = threadWakeKey(threadId)
      const args = [
        String(head.version),
        JSON.stringify(head),
        token,
        follows === undefined ? '' : (tokens.get(follows) ?? JSON.stringify(follows)),
        last ? `${last.runId} ${wake}` : wake,
        String(append.length),
        String(decisions.length),
      ]
      for (const message of append) args.push(JSON.stringify(message))
      for (const record of decisions) args.push(JSON.stringify(record))
      const keys = [headKey(threadId), messagesKey(threadId)]
      if (decisions.length > 0) keys.push(decisionsKey(threadId))
      if (last) {
        keys.push(`${writtenAt(last.runId, threadId)}log`)
        pushEventArgs(args, last.events, last.final !== false)
        // Only readers given the run's id alone need an index: its failure fails no release.
        indexed(last.runId, threadId, last.events)?.catch(reportFrom('commit'))
      }
      const answer = script(COMMIT, keys, args)
      headReads.take(threadId)?.(answer.then((reply) => (Number(reply) === 1 ? head : reply == null ? undefined : (JSON.parse(reply as string) as ThreadHead))))
      return Number(await answer) === 1
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
