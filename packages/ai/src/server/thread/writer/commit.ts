import type { ThreadMessage } from '../../../protocol/messages.ts'
import { jsonBytes } from '../../../util/jsonBytes.ts'
import type { ThreadChange } from '../thread.ts'
import type { ThreadCommit, ThreadHead, ThreadStore } from '../threadStore.ts'

// The one place a change becomes a commit: the next head (count, size, version) and the commit
// that writes it. Only the writer's own modules import this one (.dependency-cruiser.cjs).

/**
 * Messages a write appends, with their size as stored (JSON in UTF-8 bytes) as the run's writer
 * measured it: each message once, though a turn asks for it twice or three times (the room check
 * before a model call, a batch's heads, the commit). Kept by the writer, not in a WeakMap keyed by
 * message: a stored message lives as long as its thread, and so did its entry, thousands of them
 * for the collector to visit as weak references.
 */
export interface MeasuredAppend {
  readonly append: readonly ThreadMessage[]
  readonly bytes: number
}

/** The head `change` makes of `head`: its count, size and version follow. `measured`: the size of `change.append`, when it is that very list. */
export function nextHead(head: ThreadHead, change: ThreadChange, measured?: MeasuredAppend): ThreadHead {
  let bytes = head.bytes
  const { append } = change
  if (measured !== undefined && append === measured.append) bytes += measured.bytes
  else if (append) for (const message of append) bytes += jsonBytes(message)
  // One literal of every key, then the change's keys set in place: not Object.assign onto `{}`,
  // which grows an empty object key by key past its in-object slots (a head is made per write).
  // A key the head lacks is made `undefined`, which reads and serializes as the head did.
  const next: { -readonly [K in keyof ThreadHead]: ThreadHead[K] } = {
    id: head.id,
    version: head.version + 1,
    createdAt: head.createdAt,
    updatedAt: Date.now(),
    messageCount: head.messageCount + (append ? append.length : 0),
    bytes,
    step: head.step,
    activeRun: head.activeRun,
    resolvedInterruptIds: head.resolvedInterruptIds,
    stopRequested: head.stopRequested,
    grants: head.grants,
    turnBy: head.turnBy,
    lastRunError: head.lastRunError,
    decisions: head.decisions,
  }
  const changed = change.head as Record<string, unknown>
  for (const key in changed) (next as Record<string, unknown>)[key] = changed[key]
  return next
}

/**
 * The commit that writes `next`, the head `change` made (`nextHead`); `follows`: the head it
 * replaces, when the store must find that very head (one sent and not yet answered, or one this
 * instance wrote and did not read again); `events`: a run's events, for the store's log.
 */
export function commitOf(next: ThreadHead, change: ThreadChange, follows?: ThreadHead, events?: ThreadCommit['events']): ThreadCommit {
  // Set key by key, not spread from conditional literals: a run commits three times a turn.
  const commit: { -readonly [K in keyof ThreadCommit]: ThreadCommit[K] } = { head: next, append: change.append ?? NO_MESSAGES }
  const { decisions } = change
  if (decisions && decisions.length > 0) commit.decisions = decisions
  if (follows) commit.follows = follows
  if (events) commit.events = events
  return commit
}

export const NO_MESSAGES: readonly ThreadMessage[] = Object.freeze([])

/**
 * Writes `change` on top of `head` with one compare-and-set; returns the new head, or `undefined`
 * when the thread changed since `head` was read. `follows`: written only if the stored head is
 * that very head (a claim on the head this instance wrote last: thread/cachedClaim.ts).
 */
export function commitChange(
  store: ThreadStore,
  head: ThreadHead,
  change: ThreadChange,
  options?: { readonly follows?: boolean; readonly events?: ThreadCommit['events'] },
): Promise<ThreadHead | undefined> {
  // Not async: one reaction to the store's answer, not an async function's promise besides (a turn's claim commits here).
  try {
    const next = nextHead(head, change)
    return Promise.resolve(store.commit(commitOf(next, change, options?.follows ? head : undefined, options?.events))).then((written) => (written ? next : undefined))
  } catch (error) {
    return Promise.reject(error)
  }
}

/** A compare-and-set the store refused: another writer came first. */
export const REFUSED = new Error('The thread changed since it was read')
export const isRefused = (error: unknown): boolean => error === REFUSED

/** The run's event log, when its store writes it with commits (events/liveStream.ts `LastEvents`). */
export interface CarriedEvents {
  /** The events not yet sent to the log, for a commit being sent now; `undefined` when there are none it may take. */
  ride(): NonNullable<ThreadCommit['events']> | undefined
  /** The commit that carried them was answered: `landed`, or failed or refused. */
  rode(events: NonNullable<ThreadCommit['events']>, landed: boolean): void
  /** Every event the log has not acknowledged: what a run's last write carries. */
  unlogged(): NonNullable<ThreadCommit['events']>
}
