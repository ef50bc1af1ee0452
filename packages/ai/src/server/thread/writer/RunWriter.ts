import type { ThreadMessage } from '../../../protocol/messages.ts'
import { messageBytes } from '../../../util/jsonBytes.ts'
import { nextTurn } from '../../../util/nextTurn.ts'
import { backoff, retry } from '../../../util/retry.ts'
import { StoreConflictError } from '../../errors.ts'
import type { ThreadChange } from '../thread.ts'
import type { ThreadCommit, ThreadHead, ThreadStore } from '../threadStore.ts'
import { merged, type AnyTransition, type Batch } from './batch.ts'
import { commitChange, commitOf, isRefused, nextHead, REFUSED, type CarriedEvents } from './commit.ts'

/** The run no longer holds its thread (another run took it, or it went). */
const LOST = new Error('The thread was taken over')

/** A write of a run: the change a transition makes of the head as the write before it leaves it, with the messages appended since. */
export type RunTransition = (head: ThreadHead, append: readonly ThreadMessage[]) => ThreadChange
/** A write whose change needs I/O to be made (decision records chained on the head's tip). */
export type AsyncRunTransition = (head: ThreadHead, append: readonly ThreadMessage[]) => Promise<ThreadChange>

/** How many times a run makes a refused write again on the stored head before it counts the thread as lost. */
const REBASE_ATTEMPTS = 5

/**
 * A run's writes, in order, each a compare-and-set on the head the one before writes; the messages
 * the run appended and has not yet written are its queue. On a store that `pipelines`, a write is
 * sent before the last is answered (it follows that one, and fails if that one did not land).
 * Writes asked while one is not yet made go out with it, as one commit. A write the store refused
 * because another writer changed the thread is made again (the same transitions, of the stored
 * head, keeping what that writer set) while the run still holds it; only another run's lease, or
 * a thread gone, loses it. A write whose answer was lost (the store failed) may have landed: the
 * next write that finds the stored head takes it as written when it did.
 */
export class RunWriter {
  readonly #store: ThreadStore
  readonly #runId: string
  readonly #log: CarriedEvents | undefined
  /** The thread was lost to another writer: the run aborts with it. */
  readonly #onLost: (error: StoreConflictError) => void
  /** Another instance asked the run to stop (it says so in the head a rebase reads). */
  readonly #onStop: () => void
  /** Every message appended: the first `#saved` are stored, the first `#sent` stored or on their way. */
  readonly #appended: ThreadMessage[] = []
  #saved = 0
  #sent = 0
  /** The head as last written, and answered. */
  #head: ThreadHead
  /** The head of the last write sent, while writes are on their way (none once one failed). */
  #latest: ThreadHead | undefined
  /** The next write may be sent behind the last (it is no heartbeat, and nothing failed since). */
  #followable = false
  #inFlight = 0
  /** Writes asked for and not yet settled: with none, the next is made and sent at once, waiting for nothing. */
  #asked = 0
  /** Resolves once the last write is sent: writes are made and sent in the order they are asked for. */
  #lastSent: Promise<void> = SETTLED
  /** The last write asked for: the next one, if asked before it settles, waits for its answer. */
  #lastWrite: Promise<void> = SETTLED
  /** Writes asked for and not yet made: a write asked meanwhile joins them, and they go out as one commit. */
  #open: Batch | undefined
  /** Set once another writer took the thread: every later write fails with it. */
  #lost: StoreConflictError | undefined
  /** Writes whose answer was lost (the store failed): they may have landed. */
  #uncertain: { readonly next: ThreadHead; readonly to: number }[] = []
  /** When the run last wrote (each write renews its lease). */
  #renewedAt = Date.now()

  constructor(options: {
    readonly store: ThreadStore
    readonly head: ThreadHead
    readonly runId: string
    readonly log?: CarriedEvents | undefined
    readonly onLost: (error: StoreConflictError) => void
    readonly onStop: () => void
  }) {
    this.#store = options.store
    this.#head = options.head
    this.#runId = options.runId
    this.#log = options.log
    this.#onLost = options.onLost
    this.#onStop = options.onStop
  }

  /** The head as last written by the run: the last write sent, while it is on its way. */
  get head(): ThreadHead {
    return this.#latest ?? this.#head
  }

  /** The head as last written and answered. */
  get written(): ThreadHead {
    return this.#head
  }

  /** When a write of the run last landed, or a heartbeat was last asked. */
  get renewedAt(): number {
    return this.#renewedAt
  }

  /** No write is unsettled or waiting to be made. */
  get idle(): boolean {
    return this.#asked === 0 && !this.#open
  }

  /** Queues messages for the next write. */
  append(messages: readonly ThreadMessage[]): void {
    this.#appended.push(...messages)
  }

  /** The size of the queued messages not yet stored. */
  unsavedBytes(): number {
    let bytes = 0
    for (let index = this.#saved; index < this.#appended.length; index++) bytes += messageBytes(this.#appended[index]!)
    return bytes
  }

  /** Writes the change `transition` makes, with the queued messages; resolves once it landed. */
  write(transition: RunTransition): Promise<void> {
    return this.#ask(transition, false)
  }

  /** `write` for a transition that needs I/O (chaining decision records on the head's tip). */
  writeAsync(transition: AsyncRunTransition): Promise<void> {
    return this.#ask(transition, true)
  }

  /** The run's last write: it carries every event its log has not acknowledged (`last`), the run's end among them. */
  writeLast(transition: RunTransition, last: CarriedEvents | undefined): Promise<void> {
    return this.#ask(transition, false, last)
  }

  /**
   * A write nobody waits for (`failed` hears if it fails): it joins the writes asked and not yet
   * made, or is made once the event loop turns, so writes asked meanwhile go out with it.
   */
  hold(transition: RunTransition, failed: (error: unknown) => void): void {
    const open = this.#open
    if (open) {
      open.parts.push(transition)
      if (!open.held) return void open.promise!.catch(failed)
      const before = open.failed
      open.failed = before ? (error) => (before(error), failed(error)) : failed
      return
    }
    const batch: Batch = { parts: [transition], async: false, last: undefined, held: true, promise: undefined, failed }
    this.#open = batch
    nextTurn(() => {
      if (batch.held) this.#flush(batch)
    })
  }

  /**
   * The heartbeat: renews the lease while the run still holds the thread, leaving queued messages
   * for the next write. Only while the writer is idle (it is never sent behind a write).
   */
  renew(transition: RunTransition): Promise<void> {
    this.#renewedAt = Date.now()
    return this.#writeNow(transition, false)
  }

  /**
   * Group commit: a write joins the writes asked for and not yet made, if any (they go out as one
   * commit: each transition made of the head the one before leaves, the messages of all, the head
   * of the last), else it opens a batch of its own. A batch is made, and closed to later writes,
   * when it is sent: at once with nothing unsettled, else behind the last write (once that is sent,
   * on a store that pipelines; answered, on one that does not). At most one batch waits at a time.
   */
  #ask(part: AnyTransition, async: boolean, last?: CarriedEvents): Promise<void> {
    const open = this.#open
    if (open) {
      open.parts.push(part)
      open.async ||= async
      if (last) open.last = last
      // Someone waits for this write: a batch held for the loop's turn goes now.
      if (open.held) this.#flush(open)
      return open.promise!
    }
    const batch: Batch = { parts: [part], async, last, held: false, promise: undefined, failed: undefined }
    this.#open = batch
    return (batch.promise = this.#sendBatch(batch))
  }

  /** Sends a batch that was held for the loop's turn. */
  #flush(batch: Batch): void {
    batch.held = false
    batch.promise = this.#sendBatch(batch)
    batch.promise.catch(batch.failed!)
  }

  #sendBatch(batch: Batch): Promise<void> {
    const transition: AnyTransition = (head, append) => {
      // Made now: a write asked from here on opens the next batch.
      if (this.#open === batch) this.#open = undefined
      return batch.parts.length === 1 ? batch.parts[0]!(head, append) : merged(batch.parts, 0, head, append, undefined)
    }
    // A write that may be asynchronous, or that must wait for one unsettled, goes the queued way.
    return batch.async || this.#asked > 0 ? this.#writeQueued(transition, true, batch) : this.#writeNow(transition as RunTransition, true, batch)
  }

  /**
   * A write with none unsettled and a synchronous transition: no turn to wait for, no answer to
   * wait for and no head to follow; it is made and sent here, and one reaction to the store's
   * answer settles it (the queued way costs an async function and seven promises).
   */
  #writeNow(transition: RunTransition, withMessages: boolean, batch?: Batch): Promise<void> {
    if (this.#lost) {
      if (this.#open === batch) this.#open = undefined
      return Promise.reject(this.#lost)
    }
    const base = this.#head
    if (!withMessages && !base.activeRun) return Promise.resolve()
    const to = withMessages ? this.#appended.length : this.#saved
    const last = batch?.last
    let sending: Sending
    try {
      sending = this.#send(base, undefined, to, transition(base, this.#appended.slice(this.#saved, to)), withMessages, last)
    } catch (error) {
      return Promise.reject(error)
    }
    this.#asked++
    const write = sending.committing.then(
      (written) => this.#settled(() => this.#answered(sending, written, undefined, undefined, transition, last)),
      (error: unknown) => this.#settled(() => this.#answered(sending, undefined, error ?? STORE_FAILED, undefined, transition, last)),
    )
    this.#lastWrite = write
    return write
  }

  /**
   * A write asked while another is unsettled, or whose transition is asynchronous: made once the
   * last write is sent, and sent behind it (a store that pipelines) or once it is answered.
   */
  #writeQueued(transition: AnyTransition, withMessages: boolean, batch?: Batch): Promise<void> {
    const waits = this.#asked > 0
    const previous = this.#lastSent
    /** Settles (never rejecting) once the last write is answered, with its failure if it failed. */
    const answered = waits ? this.#lastWrite.then(nothing, failureOf) : undefined
    let sent: (() => void) | undefined
    if (waits) this.#lastSent = new Promise<void>((resolve) => (sent = resolve))
    this.#asked++
    const write = (async () => {
      try {
        let sending: Sending
        const last = batch?.last
        try {
          if (waits) await previous
          const follows = withMessages && this.#followable && this.#store.pipelines === true ? this.#latest : undefined
          if (!follows && waits) await answered
          if (this.#lost) {
            if (this.#open === batch) this.#open = undefined
            throw this.#lost
          }
          const base = follows ?? this.#head
          if (!withMessages && !base.activeRun) return
          const from = follows ? this.#sent : this.#saved
          const to = withMessages ? this.#appended.length : from
          let change = transition(base, this.#appended.slice(from, to))
          if (change instanceof Promise) {
            // Made asynchronously: a write asked meanwhile waits until this one is sent.
            if (!sent) this.#lastSent = new Promise<void>((resolve) => (sent = resolve))
            change = await change
          }
          sending = this.#send(base, follows, to, change, withMessages, last)
        } finally {
          sent?.()
        }
        let written: boolean | undefined
        let failure: unknown
        try {
          written = await sending.committing
        } catch (error) {
          failure = error ?? STORE_FAILED
        }
        // Only a write that followed another cares how that one went (and only one that waited can have followed).
        const before = sending.follows ? await answered : undefined
        await this.#answered(sending, written, failure, before, transition, last)
      } finally {
        this.#asked--
      }
    })()
    this.#lastWrite = write
    return write
  }

  /** Makes the commit of `change` on `base` and sends it. */
  #send(base: ThreadHead, follows: ThreadHead | undefined, to: number, change: ThreadChange, withMessages: boolean, last: CarriedEvents | undefined): Sending {
    const next = nextHead(base, change)
    const riding = last ? undefined : this.#log?.ride()
    let committing: Promise<boolean>
    try {
      committing = Promise.resolve(this.#store.commit(commitOf(next, change, follows, last?.unlogged() ?? riding)))
    } catch (error) {
      if (riding) this.#log!.rode(riding, false)
      throw error
    }
    this.#inFlight++
    this.#latest = next
    this.#sent = to
    this.#followable = withMessages
    return { next, to, follows, riding, committing }
  }

  /** Counts a write of the fast way settled, once its answer is taken (made again, if refused). */
  #settled(answer: () => void | Promise<void>): void | Promise<void> {
    let again: void | Promise<void>
    try {
      again = answer()
    } catch (error) {
      this.#asked--
      throw error
    }
    if (!again) return void this.#asked--
    return again.finally(() => this.#asked--)
  }

  /**
   * The store answered a write: it landed; it failed (its error, or that of the write it followed,
   * which it cannot have landed without); or it was refused, and is made again on the stored head.
   */
  #answered(sending: Sending, written: boolean | undefined, failure: unknown, before: unknown, transition: AnyTransition, last: CarriedEvents | undefined): void | Promise<void> {
    this.#inFlight--
    if (sending.riding) this.#log!.rode(sending.riding, failure === undefined && written === true)
    if (failure === undefined && written) return this.#written(sending.next, sending.to)
    // Its answer was lost: it may have landed.
    if (failure !== undefined) this.#uncertain.push({ next: sending.next, to: sending.to })
    if (failure === undefined && sending.follows && before !== undefined) failure = before
    if (failure !== undefined) {
      this.#latest = undefined
      this.#followable = false
      throw failure
    }
    if (this.#inFlight === 0) this.#latest = undefined
    return this.#rebase(transition, sending.to, sending.follows !== undefined, last)
  }

  /**
   * A write the store refused: made again, first of the head the write it followed left (that one
   * may have been made again itself), then of the stored head while the run still holds the
   * thread. The transitions are pure functions of the head, so whatever another writer set there
   * (a grant revoked, a stop requested) is kept; a stop request also stops the run. Another run's
   * lease, or a thread gone, means the thread is lost.
   */
  async #rebase(transition: AnyTransition, to: number, followed: boolean, last: CarriedEvents | undefined): Promise<void> {
    if (this.#lost) throw this.#lost
    const commitOn = async (head: ThreadHead) =>
      commitChange(this.#store, head, await transition(head, this.#appended.slice(this.#saved, to)), { events: last?.unlogged() })
    if (followed) {
      const written = await commitOn(this.#head)
      if (written) return this.#written(written, to)
    }
    let written: ThreadHead
    try {
      written = await retry(
        async () => {
          const stored = await this.#store.head(this.#head.id)
          if (!stored || !this.#adopt(stored)) throw LOST
          // The run's own last write (its release) landed though its answer was lost: nothing is left to write.
          if (!stored.activeRun) return stored
          if (stored.stopRequested === this.#runId) this.#onStop()
          const head = await commitOn(stored)
          if (!head) throw REFUSED
          return head
        },
        { attempts: REBASE_ATTEMPTS, delay: backoff(2, 50), retryable: isRefused },
      )
    } catch (error) {
      if (error !== LOST && error !== REFUSED) throw error
      this.#lost = new StoreConflictError(this.#head.id)
      this.#onLost(this.#lost)
      throw this.#lost
    }
    this.#written(written, to)
  }

  /**
   * Whether the run may write on `stored`: the run still holds it, and its own fields (the
   * messages, the decision records' tip, the lease) are as the run last wrote them, or as a write
   * of the run whose answer was lost left them (that write landed: its messages are stored).
   * Another writer may have changed the rest (grants, a stop request).
   */
  #adopt(stored: ThreadHead): boolean {
    for (let index = this.#uncertain.length - 1; index >= 0; index--) {
      const { next, to } = this.#uncertain[index]!
      if (!sameRunFields(next, stored)) continue
      this.#uncertain.length = 0
      if (to > this.#saved) this.#saved = to
      this.#head = next
      return next.activeRun === undefined || stored.activeRun?.runId === this.#runId
    }
    return stored.activeRun?.runId === this.#runId && sameRunFields(this.#head, stored)
  }

  #written(head: ThreadHead, to: number): void {
    this.#head = head
    this.#saved = to
    this.#renewedAt = Date.now()
    this.#uncertain.length = 0
    if (this.#inFlight === 0) this.#latest = undefined
  }
}

/** The fields only the run writes while it holds the thread: the same in both heads. */
function sameRunFields(a: ThreadHead, b: ThreadHead): boolean {
  return (
    a.messageCount === b.messageCount &&
    a.bytes === b.bytes &&
    (a.decisions?.count ?? 0) === (b.decisions?.count ?? 0) &&
    a.activeRun?.runId === b.activeRun?.runId &&
    a.activeRun?.renewedAt === b.activeRun?.renewedAt
  )
}

/** A write on its way. */
interface Sending {
  readonly next: ThreadHead
  readonly to: number
  readonly follows: ThreadHead | undefined
  readonly riding: NonNullable<ThreadCommit['events']> | undefined
  readonly committing: Promise<boolean>
}

/** No write yet: one settled promise for every run, not two made per run. */
const SETTLED: Promise<void> = Promise.resolve()
const STORE_FAILED = new Error('The store failed without an error')
const nothing = (): undefined => undefined
const failureOf = (error: unknown): unknown => error
