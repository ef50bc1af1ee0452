/** @module @toolgate/ai/server/postgres */
import { InvalidOptionError } from '../../errors.ts'
import type { DecisionRecord } from '../../protocol/decisions.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import type { AttachmentStore } from '../thread/attachmentStore.ts'
import { THREAD_WATCH_POLL_MS, threadWakeKey, type RunEventLog, type ThreadHead, type ThreadStore } from '../thread/threadStore.ts'
import { postgresAttachments } from './postgresAttachments.ts'
import { notifyAfterCommits } from './postgresNotify.ts'
import { LOG_COLUMNS, logColumns, logValues, postgresRunLog, purgeRunLogSql, runLogSchema } from './postgresRunLog.ts'
import { RunWakeups, type WakeupSignals } from './runWakeups.ts'
import { tickHeadReads } from './tickHeadReads.ts'
import { OutageLog, storeCall, StoreError, survivesErrors, type StoreErrorListener } from './storeError.ts'

/**
 * What the store needs of a Postgres client: node-postgres' `query(text, values)`. A `pg` Pool,
 * PGlite and Neon's serverless driver all fit; the store never imports one.
 */
export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>
  /** A `pg` Pool emits `'error'` when an idle connection drops; the store listens (unless you do), so a restart of the server does not crash the process. */
  on?(event: 'error', listener: (error: unknown) => void): unknown
  listenerCount?(event: 'error'): number
}

/**
 * A connection of its own on which the store LISTENs (a connected `pg.Client`, not one of the
 * pool's: a pooled connection goes back and stops listening).
 */
export interface PostgresListenerLike {
  query(text: string): Promise<unknown>
  on(event: 'notification', listener: (message: { channel: string; payload?: string | undefined }) => void): unknown
  on(event: 'error', listener: (error: Error) => void): unknown
  on(event: 'end', listener: () => void): unknown
  end?(): Promise<unknown>
}

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

/** How long the listener waits before connecting again, doubling from the first to the last. */
const LISTENER_BACKOFF_MS = [100, 200, 400, 800, 1600, 3200, 5000]

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

/**
 * LISTENs on `channel` on the listener's connection and keeps it up: when the connection drops
 * (the server restarted, the connection was killed), readers poll while a fresh one connects, after
 * a backoff that doubles up to 5 s. A listener given as a client cannot connect again: readers poll
 * from then on, and `onError` says why.
 */
async function listen(
  listener: PostgresListenerLike | (() => Promise<PostgresListenerLike>),
  channel: string,
  signals: WakeupSignals,
  report: (error: StoreError) => void,
): Promise<void> {
  const connect = typeof listener === 'function' ? listener : undefined
  let failures = 0
  const attach = async (client: PostgresListenerLike) => {
    let lost = false
    const drop = (error: Error) => {
      if (lost) return
      lost = true
      signals.down()
      report(new StoreError('postgresStore', connect ? 'LISTEN connection (connecting again)' : 'LISTEN connection (pass `listener` as a function to connect again)', error))
      client.end?.().catch(() => {})
      if (connect) retry()
    }
    client.on('error', drop)
    // A connection that ends without an error was ended by the app (at shutdown): readers poll, and
    // nothing connects again behind its back.
    client.on('end', () => {
      if (lost) return
      lost = true
      signals.down()
    })
    client.on('notification', (message) => {
      if (message.channel !== channel || !message.payload) return
      // A commit's wakes its thread's watchers and the readers of the run whose events it carries (see wakePayload).
      for (const key of message.payload.split('\n')) signals.wake(key)
    })
    try {
      await client.query(`LISTEN ${channel}`)
    } catch (error) {
      return drop(error as Error)
    }
    failures = 0
    if (!lost) signals.up()
  }
  const retry = () => {
    const delay = LISTENER_BACKOFF_MS[Math.min(failures++, LISTENER_BACKOFF_MS.length - 1)]!
    const timer = setTimeout(() => {
      connect!().then(attach).catch((error) => {
        report(new StoreError('postgresStore', 'LISTEN connection (connecting again)', error))
        retry()
      })
    }, delay)
    // A process with nothing else to do may exit: the listener does not hold it.
    ;(timer as { unref?: () => void }).unref?.()
  }
  if (!connect) return attach(listener as PostgresListenerLike)
  let first: PostgresListenerLike
  try {
    first = await connect()
  } catch (error) {
    retry()
    throw error
  }
  await attach(first)
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


const nothing = () => {}

/** A node-postgres Pool's `connect()`: a connection of the pool's held until released. */
interface PgPool {
  connect(): Promise<PgPoolClient>
}

interface PgPoolClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: any[] }>
  /** With an error (or `true`), the pool closes the connection instead of keeping it. */
  release(error?: Error | boolean): void
  on(event: 'error', listener: (error: Error) => void): unknown
  removeListener(event: 'error', listener: (error: Error) => void): unknown
}

/** A run's chain of commits on one connection, each written behind the last. */
interface ConnectionChain {
  send(head: ThreadHead, text: string, values: unknown[]): Promise<{ rows: any[] }>
}

/**
 * Commits of a run that follow one another, on one connection of a node-postgres Pool that
 * pipelines: a commit asked while the one it follows is unanswered is written behind it on that
 * one's connection, which the server reads in order, so it lands after it. (On two connections
 * the server may take the second first: its check of the head it follows refuses it, and it must
 * be sent again, a round trip more; 20-40% of releases were.) The connection is taken at a chain's
 * first commit and given back once every commit on it is answered, so a chain holds it no longer
 * than `pool.query` would hold one per commit; one that failed is given back to be closed, and
 * every commit on it fails as a commit whose answer was lost does (each lands whole or not at all).
 */
function connectionChains(pool: PgPool, named: boolean) {
  const byHead = new WeakMap<ThreadHead, ConnectionChain>()
  return {
    /** The chain of a commit not yet answered. */
    of: (head: ThreadHead) => byHead.get(head),
    open(): ConnectionChain {
      let connecting: Promise<PgPoolClient> | undefined
      let pending = 0
      let failure: unknown
      const failed = (error: unknown) => void (failure ??= error ?? new Error('connection failed'))
      const chain: ConnectionChain = {
        send(head, text, values) {
          pending++
          byHead.set(head, chain)
          connecting ??= pool.connect().then((client) => {
            client.on('error', failed)
            return client
          })
          const config = named ? { name: statementName(text), text, values } : { text, values }
          const answer = connecting.then((client) => client.query(config))
          const settled = () => {
            byHead.delete(head)
            if (--pending > 0) return
            connecting!.then(
              (client) => {
                client.removeListener('error', failed)
                client.release(failure === undefined ? undefined : failure instanceof Error ? failure : true)
              },
              nothing,
            )
          }
          answer.then(settled, (error) => {
            failed(error)
            settled()
          })
          return answer
        },
      }
      return chain
    },
  }
}

/**
 * A node-postgres Pool (pg-pool, which Neon's Pool extends too) made with `pipeline: true`
 * (node-postgres 8.2x), whose connections write each query as soon as it is asked.
 */
function pipelinedPool(pool: PostgresQueryable): pool is PostgresQueryable & PgPool {
  const candidate = pool as { connect?: unknown; totalCount?: unknown; options?: { pipeline?: unknown } }
  return typeof candidate.connect === 'function' && 'totalCount' in candidate && candidate.options?.pipeline === true
}

/** A node-postgres Pool (pg-pool) whose `end()` was called: it refuses every query from then on. */
function ending(pool: PostgresQueryable): boolean {
  return (pool as { ending?: unknown }).ending === true
}

/** node-postgres' other form of `query`: a statement with a name is prepared once per connection. */
interface NamedQueryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: any[] }>
}

/** A node-postgres Pool (pg-pool, which Neon's Pool extends too) or Client: both take `{ name, text, values }`. */
function isNodePostgres(pool: PostgresQueryable): boolean {
  const candidate = pool as object
  return typeof (candidate as { connect?: unknown }).connect === 'function' && ('totalCount' in candidate || 'connectionParameters' in candidate)
}

const statementNames = new Map<string, string>()

/**
 * A statement's name, from its text: a connection holds one statement per name, so two stores on
 * one pool (other tables, other text) never share a name, and the same text always gets the same.
 */
function statementName(text: string): string {
  let name = statementNames.get(text)
  if (name === undefined) {
    // FNV-1a, 32 bits twice (two seeds): a collision would need the same pool, two texts and 2^-64.
    let a = 0x811c9dc5
    let b = 0x01000193
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      a = Math.imul(a ^ code, 0x01000193) >>> 0
      b = Math.imul(b ^ code, 0x811c9dc5) >>> 0
    }
    name = `toolgate_${a.toString(36)}_${b.toString(36)}`
    statementNames.set(text, name)
  }
  return name
}

function checkedTable(table: string): string {
  if (typeof table !== 'string' || !/^[a-z_][a-z0-9_]{0,40}$/.test(table)) {
    throw new InvalidOptionError('postgresStore', 'table', 'must be a lower-case SQL identifier of at most 41 characters')
  }
  return table
}
