/** @module @toolgate/ai/server/postgres */
import { InvalidOptionError } from '../../errors.ts'
import type { DecisionRecord } from '../../protocol/decisions.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import type { AttachmentStore } from '../thread/attachmentStore.ts'
import { THREAD_WATCH_POLL_MS, threadWakeKey, type RunEventLog, type ThreadHead, type ThreadStore } from '../thread/threadStore.ts'
import { postgresAttachments } from './postgresAttachments.ts'
import { notifyAfterCommits } from './postgresNotify.ts'
import { LOG_COLUMNS, logColumns, logValues, postgresRunLog, purgeRunLogSql, runLogSchema } from './postgresRunLog.ts'
import { RunWakeups } from './runWakeups.ts'
import { tickHeadReads } from './tickHeadReads.ts'
import { OutageLog, storeCall, StoreError, survivesErrors, type StoreErrorListener } from './storeError.ts'
import { connectionChains, ending, isNodePostgres, pipelinedPool, statementName, type ConnectionChain, type NamedQueryable, type PostgresQueryable } from './postgresConnections.ts'
import { listen, type PostgresListenerLike } from './postgresListener.ts'

export type { PostgresListenerLike, PostgresQueryable }

export interface PostgresStoreOptions {
  readonly pool: PostgresQueryable
  /**
   * Wakes readers that reattach to a run as soon as its events land, and watchers of a thread
   * (`GET ?watch`) as soon as it changes, on any instance (LISTEN/NOTIFY, sent once the commit is
   * answered, so it never holds up commits); without it they look every 100 ms (a thread's
   * watchers every second), with it every 5 s, for a wake-up lost when an instance dies between a
   * commit and its notify. Every instance should be given one: a function that
   * connects a `pg.Client` of its own, called again (with backoff) whenever the connection drops,
   * while readers poll. A connected client works too, until its connection drops.
   */
  readonly listener?: PostgresListenerLike | (() => Promise<PostgresListenerLike>)
  /** Prefix of the store's tables (`<table>_threads`, `<table>_messages`, ...). Default `toolgate`. */
  readonly table?: string
  /**
   * Sends each statement by name (node-postgres' `query({ name, text, values })`), so the server
   * parses and plans it once per connection instead of on every call: on localhost that halves a
   * commit's time. Default: on for a node-postgres Pool or Client (Neon's are built on them), off
   * for anything else (PGlite, a wrapper of your own), which gets `query(text, values)` as before.
   */
  readonly namedStatements?: boolean
  /**
   * A thread untouched for this long expires (`purgeExpired()` deletes it), or up to 1/64 of it
   * later: a write moves the expiry only once less than this is left. Default 30 days.
   */
  readonly threadTtlMs?: number
  /** How long a run's events stay readable after it ends. Default 5 minutes. */
  readonly eventRetentionMs?: number
  /**
   * Connection errors no request awaits (an idle pooled connection or the listener dropping while
   * the server restarts), as `StoreError`s; requests that fail meanwhile get 503 `STORE_ERROR`.
   * Default: the server log.
   */
  readonly onError?: StoreErrorListener
  /**
   * A statement without an answer after this long fails with `StoreError` (503 `STORE_ERROR`),
   * rather than holding the request while the server is frozen or unreachable. Default 10 seconds.
   */
  readonly timeoutMs?: number
}

export interface PostgresStore extends ThreadStore {
  readonly events: RunEventLog
  /** The files tools return, in `<table>_attachments`, kept as long as their thread. */
  readonly attachments: AttachmentStore
  /** Creates the tables and indexes if missing; safe to call on every start of every instance, at once (it holds an advisory lock). */
  ensureSchema(): Promise<void>
  /** Deletes expired threads (their messages go with them) and expired run events; run it from a cron. */
  purgeExpired(): Promise<void>
}

/** The schema `ensureSchema()` creates, for a migration tool of your own. */
export function postgresSchema(table = 'toolgate'): string {
  const t = checkedTable(table)
  return `
CREATE TABLE IF NOT EXISTS ${t}_threads (
  id          text PRIMARY KEY,
  version     integer NOT NULL,
  head        text NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ${t}_threads_expires_at ON ${t}_threads (expires_at);
CREATE TABLE IF NOT EXISTS ${t}_messages (
  thread_id   text NOT NULL,
  seq         integer NOT NULL,
  message     text NOT NULL,
  PRIMARY KEY (thread_id, seq)
);
CREATE TABLE IF NOT EXISTS ${t}_decisions (
  thread_id   text NOT NULL,
  seq         integer NOT NULL,
  record      text NOT NULL,
  PRIMARY KEY (thread_id, seq)
);
${runLogSchema(t).trim()}
CREATE TABLE IF NOT EXISTS ${t}_attachments (
  thread_id   text NOT NULL REFERENCES ${t}_threads (id) ON DELETE CASCADE,
  id          text NOT NULL,
  media_type  text NOT NULL,
  filename    text,
  data        bytea NOT NULL,
  PRIMARY KEY (thread_id, id)
);
-- Messages and decisions carry no foreign key: each row is written by the statement that writes
-- its thread's row, and deleted with it by the store (purgeExpired, an expired id used again), so
-- the key's per-row check (a trigger, a lookup and a row lock for every message) bought nothing.
-- Schemas made before drop theirs, and that of ${t}_run_events, where earlier versions logged
-- runs' events (see postgresStore's purgeExpired).
DO $toolgate_keys$
DECLARE key record;
BEGIN
  FOR key IN SELECT conrelid::regclass AS owner, conname FROM pg_constraint
    WHERE contype = 'f' AND conrelid = ANY (ARRAY[to_regclass('${t}_messages'), to_regclass('${t}_decisions'), to_regclass('${t}_run_events')])
  LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', key.owner, key.conname);
  END LOOP;
END
$toolgate_keys$;`
}

/**
 * `postgresSchema` as one statement that first takes a transaction-scoped advisory lock: instances
 * starting at once on a fresh database queue instead of racing on the catalog (`CREATE ... IF NOT
 * EXISTS` is not atomic: two creators both see nothing and one fails on a duplicate key). A `DO`
 * block is one statement, so it runs in one transaction on any driver.
 */
function lockedSchema(table: string): string {
  return `DO $toolgate$
BEGIN
  PERFORM pg_advisory_xact_lock(${SCHEMA_LOCK}, hashtext('${table}'));
  ${postgresSchema(table).trim()}
END
$toolgate$`
}

/** The advisory lock's first key: "tg" in ASCII, so it does not collide with an app's single-key locks by chance. */
const SCHEMA_LOCK = 0x7467

/**
 * A thread's expiry is set this many TTLs ahead, and a write moves it only once
 * less than one TTL is left: most writes then leave every indexed column as it was, so PostgreSQL
 * updates the row in place (a HOT update: no new entry in the primary key's or the expiry's index,
 * less WAL). A thread thus expires between its TTL and 1/64 of it more after its last write, never sooner.
 */
const RENEWED = 1 + 1 / 64

const DAY_MS = 24 * 60 * 60 * 1000

/** How often a waiting reader looks for new events without a listener (a pooled `query` cannot LISTEN). */
const POLL_MS = 100

/**
 * How often a waiting reader or watcher looks while notifications flow: a wake-up goes after its
 * commit (postgresNotify.ts), so a process that dies in between, or a notify that fails, loses it,
 * and the waiter finds the commit by this look instead.
 */
const LISTENING_POLL_MS = 5000

/**
 * A `ThreadStore` on PostgreSQL: a thread's head is one row written by compare-and-set on its
 * `version`, its messages are rows appended in the same statement, so a write costs what changed.
 * Every statement stands alone (no transaction spans two), so a pool, PGlite or a serverless
 * driver works the same.
 */
export function postgresStore(options: PostgresStoreOptions): PostgresStore {
  const { pool } = options
  if (typeof pool?.query !== 'function') throw new InvalidOptionError('postgresStore', 'pool', 'must have node-postgres’ `query(text, values)` (a `pg` Pool, PGlite, Neon)')
  if (options.onError !== undefined && typeof options.onError !== 'function') throw new InvalidOptionError('postgresStore', 'onError', 'must be a function')
  const t = checkedTable(options.table ?? 'toolgate')
  const ttlMs = options.threadTtlMs ?? 30 * DAY_MS
  const retentionMs = options.eventRetentionMs ?? 5 * 60 * 1000
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) throw new InvalidOptionError('postgresStore', 'threadTtlMs', 'must be a positive integer of milliseconds')
  if (!Number.isSafeInteger(retentionMs) || retentionMs < 1) throw new InvalidOptionError('postgresStore', 'eventRetentionMs', 'must be a positive integer of milliseconds')
  const { listener } = options
  if (listener !== undefined && typeof listener !== 'function' && (typeof listener.query !== 'function' || typeof listener.on !== 'function')) {
    throw new InvalidOptionError('postgresStore', 'listener', 'must connect a `pg.Client` of its own (not one of the pool’s), or be one')
  }
  // A wake-up no request waits for: a lost one is seen by the waiters' poll (POLL_MS, LISTENING_POLL_MS).
  const outages = options.onError ? undefined : new OutageLog({ NOTIFY: `watchers and readers on other instances see the change by their next look (within ${LISTENING_POLL_MS / 1000} s)` })
  const onError = options.onError ?? outages!.report
  const report = (error: StoreError) => {
    try {
      onError(error)
    } catch (hookError) {
      console.error('[toolgate] postgresStore onError threw:', hookError)
    }
  }
  // A Pool emits `connect` for each new connection: the server answers again, for the default log.
  survivesErrors(pool, (error) => report(new StoreError('postgresStore', 'idle connection', error)), outages && { event: 'connect', listener: () => outages.recovered('postgresStore', 'idle connection') })
  /** A statement; a failure of the driver or the server becomes a `StoreError` naming it. */
  const timeoutMs = options.timeoutMs ?? 10_000
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw new InvalidOptionError('postgresStore', 'timeoutMs', 'must be a positive integer of milliseconds')
  if (options.namedStatements !== undefined && typeof options.namedStatements !== 'boolean') throw new InvalidOptionError('postgresStore', 'namedStatements', 'must be a boolean')
  const named = options.namedStatements ?? isNodePostgres(pool)
  /** node-postgres answers a statement with the rows it inserted (`rowCount`), so a commit need not select a row to say it wrote. */
  const countsRows = isNodePostgres(pool)
  const query = (operation: string, text: string, values?: unknown[]) =>
    storeCall('postgresStore', operation, timeoutMs, () =>
      named && values !== undefined ? (pool as unknown as NamedQueryable).query({ name: statementName(text), text, values }) : pool.query(text, values),
    )
  const chains = pipelinedPool(pool) ? connectionChains(pool, named) : undefined
  const channel = `${t}_run_events`
  const wakeups = new RunWakeups({
    pollMs: POLL_MS,
    listeningPollMs: LISTENING_POLL_MS,
    listen: listener && ((signals) => listen(listener, channel, signals, report)),
    onStartError: (error) => report(new StoreError('postgresStore', 'LISTEN', error)),
  })

  // One statement: a new thread's row is inserted unless the id is taken, a later head replaces
  // the row only if its version is the one before and the thread has not expired (a thread whose
  // time is up is gone, as `head` says, even before its row is purged), its expiry moved only when
  // less than the TTL is left (see RENEWED); the new messages, decision records and run events are
  // inserted only if the head was written. Data-modifying CTEs always run to completion. It does
  // not notify (a NOTIFY inside serialises every commit of the cluster, see postgresNotify.ts): a
  // written head wakes the thread's watchers, and the readers of the run whose events it carries,
  // once answered. A commit sent behind one not yet answered, or made of the head this
  // instance wrote last (`follows`, $5), also compares the stored head's text with that one's.
  // An insert that finds the id taken, and an update that finds another version, write nothing
  // and lock nothing (an upsert locks the row it finds, a WAL record more, before its WHERE).
  //
  // Messages and decision records go as one JSON array each, whose elements the server stores as
  // they were written (a `json` array's elements keep their text): a `text[]` would have the
  // client escape every quote of every message. A statement names only the parts its commit has
  // (`CommitShape`): each part costs the server its setup on every execution, empty or not. What it answers: whether it wrote, and, when a read
  // of the head rides it (see `head`) and it did not write, the thread's head as stored (none when
  // it is gone). The head's subquery runs only then (an uncorrelated subquery in a CASE is
  // evaluated when reached). A run's write with the events its log had not sent, or its release
  // with its last events: written (the last ones end its log) only if the head is, in the same
  // statement, durable as every thread commit is; a batch still on its way keeps its row.
  const commitStatements: string[] = []
  /**
   * How a commit of `shape` says it wrote: the head it found when a read of the head rides it
   * (`stored`); else, on node-postgres, the rows its first part inserted (`counted`: the answer
   * has no columns to describe and read, a tenth of a commit's CPU on both sides); else a row.
   */
  const answerOf = (shape: number): 'stored' | 'counted' | 'row' =>
    shape & CommitShape.stored ? 'stored' : countsRows && shape & (CommitShape.messages | CommitShape.decisions | CommitShape.events) ? 'counted' : 'row'
  /** Whether a commit of `shape` wrote, and when a read rides it and it did not, the head it found (null: none). */
  const answered = (shape: number, result: { rows: any[]; rowCount?: number | null }): CommitAnswer => {
    const kind = answerOf(shape)
    if (kind === 'counted') return { written: Number(result.rowCount) > 0, stored: null }
    if (kind === 'row') return { written: result.rows.length === 1, stored: null }
    return { written: Number(result.rows[0]?.written) === 1, stored: result.rows[0]?.stored ?? null }
  }
  const commitStatement = (shape: number): string => {
    const known = commitStatements[shape]
    if (known !== undefined) return known
    const later = (shape & CommitShape.later) !== 0
    let next = later ? 6 : 5
    const params = (count: number) => ((next += count), next - count)
    let sql = later
      ? `
WITH head AS (
  UPDATE ${t}_threads SET version = $2, head = $3,
    expires_at = CASE WHEN expires_at >= now() + $4 * interval '1 millisecond' THEN expires_at ELSE now() + $4 * interval '1 millisecond' * ${RENEWED} END
  WHERE id = $1 AND version = $2 - 1 AND expires_at > now() AND ($5::text IS NULL OR head = $5::text)
  RETURNING id
)`
      : `
WITH head AS (
  INSERT INTO ${t}_threads (id, version, head, expires_at)
  VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond' * ${RENEWED})
  ON CONFLICT (id) DO NOTHING
  RETURNING id
)`
    // The parts after the head, each an insert of the rows it writes from the head's row (none when the head was not written).
    const parts: string[] = []
    if (shape & CommitShape.messages) {
      const at = params(2)
      parts.push(`INSERT INTO ${t}_messages (thread_id, seq, message)
  SELECT head.id, $${at} + m.ord - 1, m.message::text FROM head, json_array_elements($${at + 1}::json) WITH ORDINALITY AS m(message, ord)`)
    }
    if (shape & CommitShape.decisions) {
      const at = params(2)
      parts.push(`INSERT INTO ${t}_decisions (thread_id, seq, record)
  SELECT head.id, $${at} + d.ord - 1, d.record::text FROM head, json_array_elements($${at + 1}::json) WITH ORDINALITY AS d(record, ord)`)
    }
    if (shape & CommitShape.events) {
      const at = params(8)
      parts.push(`INSERT INTO ${t}_run_log (${LOG_COLUMNS}) SELECT $${at}, ${logColumns(at + 1)} FROM head`)
    }
    // Counted: the first part is the statement itself, and the rows it inserted say whether the
    // head was written (every part inserts at least one row when it was, none when it was not).
    const main = answerOf(shape) === 'counted' ? parts.shift() : undefined
    sql += parts.map((part, i) => `, part${i} AS (\n  ${part}\n)`).join('')
    sql += main
      ? `\n${main}`
      : shape & CommitShape.stored
        ? `
SELECT count(*) AS written, CASE WHEN count(*) = 0 THEN (SELECT head FROM ${t}_threads WHERE id = $1 AND expires_at > now()) END AS stored FROM head`
        : `
SELECT 1 AS written FROM head`
    return (commitStatements[shape] = sql)
  }

  /** Deletes the threads `where` picks, with their messages and decisions (their files go by their foreign key), in one statement. */
  const deleteThreadsSql = (where: string) => `
WITH gone AS (DELETE FROM ${t}_threads WHERE ${where} RETURNING id),
messages AS (DELETE FROM ${t}_messages WHERE thread_id IN (SELECT id FROM gone)),
decisions AS (DELETE FROM ${t}_decisions WHERE thread_id IN (SELECT id FROM gone))
SELECT count(*) AS deleted FROM gone`

  const notifier = notifyAfterCommits(
    // A pool the app is closing (it ends it once its last turn is answered) sends nothing more: the wake-up's readers poll.
    (payloads) => (ending(pool) ? Promise.resolve() : query('NOTIFY', `SELECT pg_notify('${channel}', payload) FROM unnest($1::text[]) AS payload`, [payloads])),
    (error) => report(error instanceof StoreError ? error : new StoreError('postgresStore', 'NOTIFY', error)),
  )
  const events = postgresRunLog({ query, table: t, wake: (runId) => notifier.wake(runId), wakeups, retentionMs, liveMs: DAY_MS })

  /** The text each head was sent as, so a commit that follows it compares that text without making it again. */
  const sentAs = new WeakMap<ThreadHead, string>()
  /** Commits not yet answered, by the head each writes: one sent behind them may reach the server first. */
  const unanswered = new WeakMap<ThreadHead, Promise<boolean>>()
  const chainedCommit = async (chain: ConnectionChain, head: ThreadHead, shape: number, values: unknown[]) =>
    answered(shape, await storeCall('postgresStore', 'commit', timeoutMs, () => chain.send(head, commitStatement(shape), values)))
  const readHead = async (threadId: string) => {
    const { rows } = await query('head', `SELECT head FROM ${t}_threads WHERE id = $1 AND expires_at > now()`, [threadId])
    return rows.length === 0 ? undefined : (JSON.parse(rows[0].head) as ThreadHead)
  }
  const headReads = tickHeadReads(readHead)

  return {
    name: 'postgres',
    pipelines: true,
    events,
    attachments: postgresAttachments({ query, table: t }),
    async ensureSchema() {
      await query('ensureSchema', lockedSchema(t))
    },
    async purgeExpired() {
      await query('purgeExpired', deleteThreadsSql('expires_at <= now()'))
      await query('purgeExpired', purgeRunLogSql(t))
      // Where earlier versions logged runs' events, which instances of them may still write
      // during an upgrade: emptied as their runs expire, until you drop them.
      await query(
        'purgeExpired',
        `DO $toolgate_purge$
BEGIN
  IF to_regclass('${t}_runs') IS NOT NULL AND to_regclass('${t}_run_events') IS NOT NULL THEN
    WITH gone AS (DELETE FROM ${t}_runs WHERE expires_at <= now() RETURNING run_id)
    DELETE FROM ${t}_run_events WHERE run_id IN (SELECT run_id FROM gone);
  END IF;
END
$toolgate_purge$`,
      )
    },
    // A read in the tick of a commit of its thread rides it (tickHeadReads.ts).
    head: (threadId) => headReads.read(threadId),
    async messages(threadId, from, to) {
      if (to <= from) return []
      const { rows } = await query('messages', `SELECT message FROM ${t}_messages WHERE thread_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq`, [
        threadId,
        from,
        to,
      ])
      return rows.map((row) => JSON.parse(row.message) as ThreadMessage)
    },
    async decisions(threadId) {
      const { rows } = await query('decisions', `SELECT record FROM ${t}_decisions WHERE thread_id = $1 ORDER BY seq`, [threadId])
      return rows.map((row) => JSON.parse(row.record) as DecisionRecord)
    },
    watch(threadId, version, timeoutMs, signal) {
      const moved = async () => {
        const { rows } = await query('watch', `SELECT version FROM ${t}_threads WHERE id = $1 AND expires_at > now()`, [threadId])
        return Number(rows[0]?.version ?? 0) !== version
      }
      return wakeups.wait(threadWakeKey(threadId), moved, timeoutMs, signal, THREAD_WATCH_POLL_MS)
    },
    async commit({ head, append, decisions = [], follows, events: last }) {
      const json = JSON.stringify(head)
      sentAs.set(head, json)
      const read = headReads.take(head.id)
      const values: unknown[] = [head.id, head.version, json, ttlMs]
      let shape: number = read ? CommitShape.stored : 0
      if (head.version !== 1) {
        shape |= CommitShape.later
        values.push(follows === undefined ? null : (sentAs.get(follows) ?? JSON.stringify(follows)))
      }
      if (append.length > 0) {
        shape |= CommitShape.messages
        values.push(head.messageCount - append.length, JSON.stringify(append))
      }
      if (decisions.length > 0) {
        shape |= CommitShape.decisions
        values.push((head.decisions?.count ?? 0) - decisions.length, JSON.stringify(decisions))
      }
      if (last) {
        shape |= CommitShape.events
        const final = last.final !== false
        values.push(last.runId, ...logValues(last.events, final, final ? retentionMs : DAY_MS))
      }
      const sql = commitStatement(shape)
      /** A written head wakes its thread's watchers, and the readers of the run whose events it carries. */
      const woke = (wrote: boolean) => {
        if (wrote) last ? notifier.wake(threadWakeKey(head.id), last.runId) : notifier.wake(threadWakeKey(head.id))
        return wrote
      }
      const sent = async () => answered(shape, await query('commit', sql, values))
      const written = async () => woke((await sent()).written)
      const before = follows && unanswered.get(follows)
      // On a node-postgres Pool that pipelines, a commit sent behind one not yet answered is written
      // behind it on its connection (see connectionChains): the server takes them in order, so it
      // is never refused for coming first and sent again.
      const chain = chains && ((before && chains.of(follows)) || chains.open())
      const answer = chain ? chainedCommit(chain, head, shape, values) : sent()
      read?.(answer.then((row) => (row.written ? head : row.stored === null ? undefined : (JSON.parse(row.stored) as ThreadHead))))
      const attempt = answer.then((row) => row.written)
      unanswered.set(head, attempt)
      try {
        if (await attempt) return woke(true)
      } finally {
        unanswered.delete(head)
      }
      // Any other pool may send it on another connection than the one it follows, and the server
      // may take it first: then, once that one has landed, it is tried again (what the caller would
      // do, but without taking the miss for another writer's head). Holding the first one's
      // connection would cost more: a client that does not pipeline sends the second only once the
      // first is answered, a round trip after it.
      if (before && !chains && (await before.catch(() => false))) return written()
      // A new thread whose id an expired one still holds starts afresh: the old rows go, and the
      // commit is tried once more. Only then, so a new thread costs one round trip, not two.
      if (head.version !== 1) return false
      const { rows } = await query('commit', deleteThreadsSql('id = $1 AND expires_at <= now()'), [head.id])
      return Number(rows[0]?.deleted) > 0 && (await written())
    },
  }
}

/** A commit's answer: whether it wrote, else (when a read of the head rode it) the head it found (null: none, or not asked). */
interface CommitAnswer {
  readonly written: boolean
  readonly stored: string | null
}

/** The parts a commit statement has beyond its head, as bits: one statement per combination. */
const CommitShape = {
  /** A head of version 2 or more: it updates the thread's row (version 1 inserts it). */
  later: 16,
  messages: 1,
  decisions: 2,
  events: 4,
  /** A read of the head rides the commit: a refused one answers the stored head. */
  stored: 8,
} as const

function checkedTable(table: string): string {
  if (typeof table !== 'string' || !/^[a-z_][a-z0-9_]{0,40}$/.test(table)) {
    throw new InvalidOptionError('postgresStore', 'table', 'must be a lower-case SQL identifier of at most 41 characters')
  }
  return table
}
