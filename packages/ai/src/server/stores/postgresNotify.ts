import { utf8Bytes } from '../../util/jsonBytes.ts'
import { afterTurnEnd } from '../../util/turnBatch.ts'

// Wake-ups sent after the commits they announce, not inside them. PostgreSQL takes one lock for the
// whole cluster at pre-commit in any transaction that notified, and holds it through that
// transaction's WAL flush: a NOTIFY inside every commit made commits queue one behind another,
// cluster-wide (8 connections, fsync on: 1,416 commits/s without, 364 with a NOTIFY inside, 1,521
// with it after the commit in a statement of its own). So a commit only says which keys it woke;
// once it is answered (durable, and seen by any reader woken), its keys wait for the end of the
// event-loop turn, and one statement carries every key of that turn; while the one before is on
// its way, or was sent less than `WINDOW_MS` ago, keys gather for the next: one in flight at a
// time, at most one per window (a statement per commit cost a one-tool turn at c=1 as much client
// CPU as its three commits' own). No turn waits for it.
// A wake-up lost (the process dies between the commit and its notify, or the notify fails) is
// caught by the waiters' poll, which runs while notifications flow too (see RunWakeups).

/** PostgreSQL refuses a payload of 8000 bytes or more; keys go on lines, a payload at most this long. */
const PAYLOAD_BYTES = 7900

/** The least time between two wake-up statements of a store: how long a wake-up waits at most beyond the one before. */
const WINDOW_MS = 10

/**
 * Queues keys to notify after their commits; `send` gets each batch as payloads (keys one per
 * line) and `failed` hears a batch that did not go out.
 */
export function notifyAfterCommits(send: (payloads: string[]) => Promise<unknown>, failed: (error: unknown) => void) {
  let queued = new Set<string>()
  let scheduled = false
  let sending = false
  let sentAt = Number.NEGATIVE_INFINITY
  const flush = () => {
    scheduled = false
    if (sending || queued.size === 0) return
    const keys = queued
    queued = new Set()
    sending = true
    sentAt = Date.now()
    send(payloadsOf(keys))
      .catch(failed)
      .finally(() => {
        sending = false
        if (queued.size > 0) schedule()
      })
  }
  const schedule = () => {
    if (scheduled) return
    scheduled = true
    const wait = sentAt + WINDOW_MS - Date.now()
    if (wait > 0) setTimeout(flush, wait)
    else afterTurnEnd(flush)
  }
  return {
    /** Wakes the waiters on `keys` (run ids, `thread:<id>`), soon after this turn: call once their commit is answered. */
    wake(...keys: string[]) {
      for (const key of keys) queued.add(key)
      if (!sending) schedule()
    },
  }
}

/** The keys as lines, cut into payloads under PostgreSQL's limit. */
function payloadsOf(keys: Set<string>): string[] {
  const payloads: string[] = []
  let payload = ''
  let bytes = 0
  for (const key of keys) {
    const size = utf8Bytes(key)
    if (payload !== '' && bytes + 1 + size > PAYLOAD_BYTES) {
      payloads.push(payload)
      payload = ''
    }
    bytes = payload === '' ? size : bytes + 1 + size
    payload = payload === '' ? key : `${payload}\n${key}`
  }
  if (payload !== '') payloads.push(payload)
  return payloads
}
