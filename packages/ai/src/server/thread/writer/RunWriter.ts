import type { ThreadMessage } from '../../../protocol/messages.ts'
import type { RunFailure } from '../../../protocol/thread.ts'
import { jsonBytes } from '../../../util/jsonBytes.ts'
import { backoff, retry } from '../../../util/retry.ts'
import { StoreConflictError } from '../../errors.ts'
import type { ThreadChange } from '../thread.ts'
import type { ThreadCommit, ThreadHead, ThreadStore } from '../threadStore.ts'
import { release, renewLease, saveStep, type StepFields } from '../transitions.ts'
import { alone, GroupCommit, made, madeAsync, type AsyncRunTransition, type Batch, type RunTransition } from './batch.ts'
import { commitChange, commitOf, isRefused, nextHead, REFUSED, type CarriedEvents, type MeasuredAppend } from './commit.ts'
import { landedOf, sameRunFields, type UncertainWrite } from './uncertainWrites.ts'

/** The run no longer holds its thread (another run took it, or it went). */
const LOST = new Error('The thread was taken over')

export type { AsyncRunTransition, RunTransition }

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
  /** The size of each appended message as stored, measured when first asked (`#bytes`). */
  readonly #sizes: number[] = []
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
  readonly #batches = new GroupCommit((batch) => this.#write(batch, true))
  /** Set once another writer took the thread: every later write fails with it. */
  #lost: StoreConflictError | undefined
  /** Writes whose answer was lost (the store failed): they may have landed. */
  #uncertain: UncertainWrite[] = []
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
    return this.#asked === 0 && this.#batches.idle
  }

  /** Queues messages for the next write. */
  append(messages: readonly ThreadMessage[]): void {
    this.#appended.push(...messages)
  }

  /** The size of the queued messages not yet stored. */
  unsavedBytes(): number {
    return this.#bytes(this.#saved, this.#appended.length)
  }

  /** The size of the appended messages from `from` up to `to` (not included), each measured once. */
  #bytes(from: number, to: number): number {
    let bytes = 0
    for (let index = from; index < to; index++) bytes += this.#sizes[index] ??= jsonBytes(this.#appended[index]!)
    return bytes
  }

  // The run's writes are named, and given as data: the writer makes each transition (transitions.ts)
  // of the head it writes on, again on another head if refused, with no call back into the run.

  /** Writes the run's progress (`saveStep`: the step's `fields`) with the queued messages; resolves once it landed. */
  save(fields: StepFields): Promise<void> {
    return this.#batches.ask((head, append) => saveStep(head, { fields, append, now: Date.now() }), false, undefined)
  }

  /** A write whose change needs I/O to be made (decision records chained on the head's tip): `transition` makes it. */
  writeAsync(transition: AsyncRunTransition): Promise<void> {
    return this.#batches.ask(transition, true, undefined)
  }

  /**
   * The run's last write (`release`: the thread let go, with the step's `fields` and the run's
   * `failure`, if it failed): it carries every event its log has not acknowledged (`last`), the
   * run's end among them.
   */
  release(fields: StepFields, failure: Omit<RunFailure, 'runId'> | undefined, last: CarriedEvents | undefined): Promise<void> {
    return this.#batches.ask((head, append) => release(head, { append, fields, failure }), false, last)
  }

  /**
   * `save`, nobody waiting (`failed` hears if it fails): it joins the writes asked and not yet
   * made, or is made at the end of the event loop's turn, so writes asked meanwhile go out with it.
   */
  hold(fields: StepFields, failed: (error: unknown) => void): void {
    this.#batches.hold((head, append) => saveStep(head, { fields, append, now: Date.now() }), failed)
  }

  /**
   * The heartbeat: renews the lease while the run still holds the thread, leaving queued messages
   * for the next write. Only while the writer is idle (it is never sent behind a write).
   */
  renew(): Promise<void> {
    this.#renewedAt = Date.now()
    return this.#write(alone(renewing), false)
  }

  /**
   * The one write. It waits its turn: with a write unsettled, until that one is sent, then behind
   * it (a write with messages on a store that pipelines) or once it is answered. Then its change is
   * made of the head it goes on, its commit sent (carrying the log's unsent events) and the store's
   * answer taken: landed, failed, or refused and made again on the stored head (`#rebase`). With
   * nothing unsettled and no asynchronous part, all of it up to the store's answer runs now: one
   * reaction to that answer settles the write.
   */
  #write(batch: Batch, withMessages: boolean): Promise<void> {
    const before: Before | undefined = this.#asked > 0 ? { sent: this.#lastSent, answered: this.#lastWrite.then(nothing, failureOf) } : undefined
    this.#asked++
    /** Later writes wait until this one is sent: it is not sent now. */
    let sent: (() => void) | undefined
    if (before || batch.async) this.#lastSent = new Promise<void>((resolve) => (sent = resolve))
    const write = before ? before.sent.then(() => this.#inTurn(batch, withMessages, before, sent)) : this.#make(batch, withMessages, undefined, undefined, sent)
    this.#lastWrite = write
    return write
  }

  /** The write's turn (the one before it is sent): behind that one, or once it is answered. */
  #inTurn(batch: Batch, withMessages: boolean, before: Before, sent: (() => void) | undefined): Promise<void> {
    const follows = withMessages && this.#followable && this.#store.pipelines === true ? this.#latest : undefined
    if (follows) return this.#make(batch, withMessages, follows, before, sent)
    return before.answered.then(() => this.#make(batch, withMessages, undefined, before, sent))
  }

  /** Makes the batch's change of the head it goes on (`follows`, else the last written) and sends it. */
  #make(batch: Batch, withMessages: boolean, follows: ThreadHead | undefined, before: Before | undefined, sent: (() => void) | undefined): Promise<void> {
    this.#batches.close(batch)
    const base = follows ?? this.#head
    const from = follows ? this.#sent : this.#saved
    const to = withMessages ? this.#appended.length : from
    try {
      if (this.#lost) throw this.#lost
      if (!withMessages && !base.activeRun) return this.#skipped(sent)
      const append = this.#appended.slice(from, to)
      const measured: MeasuredAppend = { append, bytes: this.#bytes(from, to) }
      if (!batch.async) return this.#send(batch, base, follows, to, made(batch, base, append, measured), measured, withMessages, before, sent)
      return madeAsync(batch, base, append, measured).then(
        (change) => this.#send(batch, base, follows, to, change, measured, withMessages, before, sent),
        (error: unknown) => this.#unsent(error, sent),
      )
    } catch (error) {
      return this.#unsent(error, sent)
    }
  }

  /** Sends the commit of `change` on `base` (with the log's unsent events, or the run's last); settles with the store's answer. */
  #send(batch: Batch, base: ThreadHead, follows: ThreadHead | undefined, to: number, change: ThreadChange, measured: MeasuredAppend, withMessages: boolean, before: Before | undefined, sent: (() => void) | undefined): Promise<void> {
    const { last } = batch
    const next = nextHead(base, change, measured)
    const riding = last ? undefined : this.#log?.ride()
    let committing: Promise<boolean>
    try {
      committing = Promise.resolve(this.#store.commit(commitOf(next, change, follows, last?.unlogged() ?? riding)))
    } catch (error) {
      if (riding) this.#log!.rode(riding, false)
      return this.#unsent(error, sent)
    }
    this.#inFlight++
    this.#latest = next
    this.#sent = to
    this.#followable = withMessages
    sent?.()
    const sending: Sending = { next, to, follows, riding }
    // A write that followed another takes its answer after that one's: the heads are written in order.
    if (follows) {
      return committing.then(
        (written) => before!.answered.then((failed) => this.#settled(sending, written, undefined, failed, batch)),
        (error: unknown) => before!.answered.then(() => this.#settled(sending, undefined, error ?? STORE_FAILED, undefined, batch)),
      )
    }
    return committing.then(
      (written) => this.#settled(sending, written, undefined, undefined, batch),
      (error: unknown) => this.#settled(sending, undefined, error ?? STORE_FAILED, undefined, batch),
    )
  }

  /** A write that was never sent (it failed to be made, or the thread was lost): settled with `error`. */
  #unsent(error: unknown, sent: (() => void) | undefined): Promise<void> {
    this.#asked--
    sent?.()
    return Promise.reject(error)
  }

  /** A heartbeat with nothing to renew (the run no longer holds the thread). */
  #skipped(sent: (() => void) | undefined): Promise<void> {
    this.#asked--
    sent?.()
    return SETTLED
  }

  /** Takes the store's answer (`#answered`), and counts the write settled once it is taken (made again, if refused). */
  #settled(sending: Sending, written: boolean | undefined, failure: unknown, before: unknown, batch: Batch): void | Promise<void> {
    let again: void | Promise<void>
    try {
      again = this.#answered(sending, written, failure, before, batch)
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
  #answered(sending: Sending, written: boolean | undefined, failure: unknown, before: unknown, batch: Batch): void | Promise<void> {
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
    return this.#rebase(batch, sending.to, sending.follows !== undefined)
  }

  /**
   * A write the store refused: made again, first of the head the write it followed left (that one
   * may have been made again itself), then of the stored head while the run still holds the
   * thread. The transitions are pure functions of the head, so whatever another writer set there
   * (a grant revoked, a stop requested) is kept; a stop request also stops the run. Another run's
   * lease, or a thread gone, means the thread is lost.
   */
  async #rebase(batch: Batch, to: number, followed: boolean): Promise<void> {
    if (this.#lost) throw this.#lost
    const commitOn = async (head: ThreadHead) => {
      const append = this.#appended.slice(this.#saved, to)
      return commitChange(this.#store, head, batch.async ? await madeAsync(batch, head, append) : made(batch, head, append), { events: batch.last?.unlogged() })
    }
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
    const landed = landedOf(this.#uncertain, stored)
    if (!landed) return stored.activeRun?.runId === this.#runId && sameRunFields(this.#head, stored)
    this.#uncertain.length = 0
    if (landed.to > this.#saved) this.#saved = landed.to
    this.#head = landed.next
    return landed.next.activeRun === undefined || stored.activeRun?.runId === this.#runId
  }

  #written(head: ThreadHead, to: number): void {
    this.#head = head
    this.#saved = to
    this.#renewedAt = Date.now()
    this.#uncertain.length = 0
    if (this.#inFlight === 0) this.#latest = undefined
  }
}

/** A write on its way. */
interface Sending {
  readonly next: ThreadHead
  readonly to: number
  readonly follows: ThreadHead | undefined
  readonly riding: NonNullable<ThreadCommit['events']> | undefined
}

/** The write before one asked while it was unsettled: once it is sent, and its answer (its failure, if it failed; never rejecting). */
interface Before {
  readonly sent: Promise<void>
  readonly answered: Promise<unknown>
}

const renewing: RunTransition = (head) => renewLease(head, { now: Date.now() })

/** No write yet: one settled promise for every run, not two made per run. */
const SETTLED: Promise<void> = Promise.resolve()
const STORE_FAILED = new Error('The store failed without an error')
const nothing = (): undefined => undefined
const failureOf = (error: unknown): unknown => error
