import type { LoggedEvent, RunEventLog } from '../thread/threadStore.ts'
import type { RunWakeups } from './runWakeups.ts'
import { StoreError } from './storeError.ts'

// A run's events on PostgreSQL: one row of `<table>_run_log` per write, a thread commit's events
// or the log's own batch, holding all of that write's events. A row per event cost an index entry,
// a heap tuple and a speculative insertion (ON CONFLICT) each, and the run's row in a table of its
// own an upsert per write: a commit's server time was a third more than with one plain insert.
//
// A write's row says which events it holds (`seq` the lowest number, `last` the highest, `seqs`
// each one's number when they do not follow one another), whether it is the run's last (`ended`) and how long
// it stays (`expires_at`: a day for a live run's write, the store's retention for its last). A
// run's log is readable while one of its rows is unexpired and no last write has expired, so a
// batch landing after the release that ended it does not keep it longer, and a live run stays
// while it writes. Rows may overlap (a batch on its way that the release carries too, a batch sent
// again after a lost answer): readers take each number once, from the row written first (the
// oldest transaction, `age(xmin)`), as a log with a row per number keeps the first; a row filling
// a gap is read where it belongs.

/** The table of the log, for `postgresSchema`. */
export function runLogSchema(t: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${t}_run_log (
  run_id      text NOT NULL,
  seq         integer NOT NULL,
  last        integer NOT NULL,
  seqs        integer[],
  ended       boolean NOT NULL,
  expires_at  timestamptz NOT NULL,
  lens        integer[] NOT NULL,
  data        text NOT NULL
);
CREATE INDEX IF NOT EXISTS ${t}_run_log_run ON ${t}_run_log (run_id, seq);`
}

/**
 * The columns of a write's row after `run_id`, as `$n` placeholders from `first` on (seq, last,
 * seqs, ended, the expiry in milliseconds from now, lens, data): what `logValues` gives.
 */
export function logColumns(first: number): string {
  const $ = (offset: number) => `$${first + offset}`
  return `${$(0)}::integer, ${$(1)}::integer, ${$(2)}::integer[], ${$(3)}::boolean, now() + ${$(4)} * interval '1 millisecond', ${$(5)}::integer[], ${$(6)}::text`
}

export const LOG_COLUMNS = 'run_id, seq, last, seqs, ended, expires_at, lens, data'

/**
 * A write's values for `logColumns`: its events' texts one after another with their lengths, so
 * nothing is escaped for an array's text form (the events' JSON is full of quotes). A last write
 * without events (the log's end alone) holds none, numbered 0 so no reader's `after` reaches it.
 */
export function logValues(events: readonly LoggedEvent[], ended: boolean, expiresInMs: number): unknown[] {
  const count = events.length
  if (count === 0) return [0, 0, null, ended, expiresInMs, [], '']
  const start = events[0]!.seq
  let [lowest, highest] = [start, start]
  const lens = new Array<number>(count)
  const texts = new Array<string>(count)
  let consecutive = true
  for (let i = 0; i < count; i++) {
    const { seq, data } = events[i]!
    lens[i] = data.length
    texts[i] = data
    if (seq !== start + i) consecutive = false
    if (seq < lowest) lowest = seq
    if (seq > highest) highest = seq
  }
  return [lowest, highest, consecutive ? null : events.map((event) => event.seq), ended, expiresInMs, lens, texts.join('')]
}

export interface PostgresRunLogDeps {
  readonly query: (operation: string, text: string, values: unknown[]) => Promise<{ rows: any[] }>
  readonly table: string
  /** Wakes the run's readers once a write of it is answered (postgresNotify.ts). */
  readonly wake: (runId: string) => void
  readonly wakeups: RunWakeups
  readonly retentionMs: number
  /** A live run's writes stay this long. */
  readonly liveMs: number
}

/** The log's reads and its own writes; a thread commit writes its events with `logColumns` and `logValues`. */
export function postgresRunLog({ query, table: t, wake, wakeups, retentionMs, liveMs }: PostgresRunLogDeps): RunEventLog {
  // A live run's batch commits without waiting for the WAL to reach the disk (`synchronous_commit`
  // off for this transaction alone): it is seen at once as any commit is, the thread's next commit
  // (a durable one) flushes it, and only a crash of the server in between can lose it, which a
  // reader finds as a gap in the run's numbers and is told to reload the thread, as after a batch
  // the log refused. The last batch, and every thread commit with the events it carries, wait for
  // the disk. Waiting readers are woken once it is answered, not from inside it (postgresNotify.ts).
  const appendSql = `
INSERT INTO ${t}_run_log (${LOG_COLUMNS}) VALUES ($1, ${logColumns(2)})
RETURNING set_config('synchronous_commit', CASE WHEN $5 THEN current_setting('synchronous_commit') ELSE 'off' END, true) AS relaxed`
  // The run's state over all its rows and, in the same snapshot, the rows after `after` in order, at most $3.
  const readSql = `
SELECT r.ended, r.visible, l.seq, l.last, l.seqs, l.lens, l.data, l.age
FROM (SELECT coalesce(bool_or(ended), false) AS ended,
    coalesce(bool_or(expires_at > now()), false) AND NOT coalesce(bool_or(ended AND expires_at <= now()), false) AS visible
  FROM ${t}_run_log WHERE run_id = $1) r
LEFT JOIN LATERAL (SELECT seq, last, seqs, lens, data, age(xmin) AS age FROM ${t}_run_log WHERE run_id = $1 AND last > $2 ORDER BY seq, last LIMIT $3) l ON r.visible
ORDER BY l.seq, l.last`

  const read = async (runId: string, after: number, limit: number | undefined, everyRow = false): Promise<{ events: LoggedEvent[]; ended: boolean } | undefined> => {
    const rowLimit = limit === undefined || everyRow ? null : limit + 1
    const { rows } = await query('read events', readSql, [runId, after, rowLimit])
    const state = rows[0]
    if (!state?.visible) return undefined
    const written = state.seq == null ? [] : (rows as LogRow[])
    // Rows beyond the limit start at or after the last row read: numbers before its start are
    // complete, and the page ends there. When that leaves none (rows read hold only numbers from
    // there on: one batch written over and over), every row after `after` is read for the page.
    const cut = rowLimit !== null && written.length === rowLimit ? Number(written.at(-1)!.seq) : undefined
    const events = eventsOf(written, after, cut)
    if (cut !== undefined && events.length === 0) return read(runId, after, limit, true)
    const more = cut !== undefined || (limit !== undefined && events.length > limit)
    return { events: limit !== undefined && events.length > limit ? events.slice(0, limit) : events, ended: Boolean(state.ended) && !more }
  }

  return {
    inCommits: true,
    async append(runId, logged, final) {
      await query('append events', appendSql, [runId, ...logValues(logged, final, final ? retentionMs : liveMs)])
      wake(runId)
    },
    read: (runId, after, limit) => read(runId, after, limit),
    wait(runId, after, timeoutMs, signal) {
      const hasMore = async () => {
        const { rows } = await query('wait for events', `SELECT EXISTS (SELECT 1 FROM ${t}_run_log WHERE run_id = $1 AND (last > $2 OR ended)) AS more`, [runId, after])
        return Boolean(rows[0]?.more)
      }
      return wakeups.wait(runId, hasMore, timeoutMs, signal)
    },
  }
}

/** Deletes the logs of runs whose last write expired, or whose every write did (a run that never ended). */
export function purgeRunLogSql(t: string): string {
  return `
DELETE FROM ${t}_run_log WHERE run_id IN (
  SELECT run_id FROM ${t}_run_log GROUP BY run_id
  HAVING bool_or(ended AND expires_at <= now()) OR max(expires_at) <= now())`
}

/** A row as the store writes it: its lengths add up to its data, and its numbers (when listed) are one per event. */
function wellFormed(row: LogRow): boolean {
  if (!Array.isArray(row.lens) || typeof row.data !== 'string' || (row.seqs !== null && (!Array.isArray(row.seqs) || row.seqs.length !== row.lens.length))) return false
  let total = 0
  for (const length of row.lens) {
    if (!Number.isSafeInteger(Number(length)) || Number(length) < 0) return false
    total += Number(length)
  }
  return total === row.data.length
}

interface LogRow {
  readonly seq: number
  readonly last: number
  readonly seqs: readonly number[] | null
  readonly lens: readonly number[]
  readonly data: string
  /** How many transactions ago the row was written. */
  readonly age: number
}

/**
 * The events of `rows` (in order of their first number) after `after` and before `cut`, in order,
 * each number once: from the row written first (the oldest) of those holding it.
 */
function eventsOf(rows: readonly LogRow[], after: number, cut: number | undefined): LoggedEvent[] {
  const events: (LoggedEvent & { readonly age: number })[] = []
  let ordered = true
  for (const row of rows) {
    const first = Number(row.seq)
    const age = Number(row.age)
    let offset = 0
    if (!wellFormed(row)) throw new StoreError('postgresStore', 'read events', new Error('a run log row whose lengths or numbers do not match its events'))
    for (let i = 0; i < row.lens.length; i++) {
      const length = Number(row.lens[i])
      const seq = row.seqs ? Number(row.seqs[i]) : first + i
      if (seq > after && (cut === undefined || seq < cut)) {
        if (events.length > 0 && seq <= events.at(-1)!.seq) ordered = false
        events.push({ seq, data: row.data.slice(offset, offset + length), age })
      }
      offset += length
    }
  }
  if (!ordered) {
    events.sort((a, b) => a.seq - b.seq || b.age - a.age)
    return events.filter((event, i) => i === 0 || event.seq !== events[i - 1]!.seq).map(({ seq, data }) => ({ seq, data }))
  }
  return events.map(({ seq, data }) => ({ seq, data }))
}
