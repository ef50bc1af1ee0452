import type { ThreadMessage } from '../../protocol/messages.ts'
import type { RunFailure } from '../../protocol/thread.ts'
import type { ChatConfig } from '../options.ts'
import { StoreConflictError, ThreadFullError, type ToolFailures, toolFailures } from '../errors.ts'
import type { RunEvents } from '../events/runEvents.ts'
import { messageBytes } from '../../util/jsonBytes.ts'
import { commitChange, commitOf, loadMessages, nextHead, type ThreadChange } from '../thread/thread.ts'
import type { LastEvents, RiddenEvents } from '../events/liveStream.ts'

import { appContext } from './context.ts'
import { RunMiddleware } from './middleware.ts'
import { STOP_CHECK_MS } from './runClock.ts'
import type { ThreadHead } from '../thread/threadStore.ts'
import { release, renewLease, saveStep, type StepFields } from '../thread/transitions.ts'
import { chainDecisions, type DecisionDraft } from '../decisions/records.ts'
import { reportDecisions } from '../decisions/report.ts'
import type { RunTrace } from '../../telemetry/hooks.ts'
import type { RunAbort } from './runAbort.ts'
import { nextTurn } from '../../util/nextTurn.ts'

/** Token counts summed over a run's model calls. */
export interface UsageTotals {
  inputTokens: number
  outputTokens: number
  cachedInputTokens: number
  reasoningTokens: number
  reported: boolean
}

/**
 * One run of a thread: its working copy (the head as last written, the history the model sees),
 * its event stream, and the lease that keeps other requests off the thread while it lives.
 * Writes go out in order, each a compare-and-set on the head the one before writes: on a store
 * that `pipelines`, a write is sent before the last is answered (it follows that one, and fails if
 * that one did not land). Writes asked while one is not yet made go out with it, as one commit
 * (`#ask`). Each renews the lease, and a heartbeat renews it while a slow model or tool writes
 * nothing. A run that finds its thread taken over stops.
 */
export class Run {
  readonly config: ChatConfig
  readonly runId: string
  readonly context: unknown
  readonly events: RunEvents
  /** Reports tools' and policies' unexpected errors, and words them for the model and browser. */
  readonly failures: ToolFailures
  /** Aborted when the run is stopped (here or through another instance) or loses its thread. */
  readonly signal: AbortSignal
  /** The app's middleware, bound to this run. */
  readonly middleware: RunMiddleware
  /** The run's trace, when telemetry is on. */
  readonly trace: RunTrace | undefined
  readonly usage: UsageTotals = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0, reported: false }
  /** The history the model sees: stored messages, then those appended and not yet written. */
  readonly messages: ThreadMessage[]
  /** Every message the run appended: the first `#saved` are stored, the first `#sent` stored or on their way. */
  readonly #appended: ThreadMessage[] = []
  #saved = 0
  #sent = 0
  /** The fields of a save that failed: the release writes them with the messages that save would have written. */
  #unsavedFields: StepFields | undefined
  #loaded: boolean
  /** The head as last written by this run, and answered. */
  #head: ThreadHead
  /** The head of the last write sent, while writes are on their way (none once one failed). */
  #latest: ThreadHead | undefined
  /** The next write may be sent behind the last (it is no heartbeat, and nothing failed since). */
  #followable = false
  #inFlight = 0
  /** Writes asked for and not yet settled: with none, the next is made and sent at once, waiting for nothing. */
  #asked = 0
  /** Resolves once the last write is sent: writes are made and sent in the order they are asked for. */
  #sendTurn: Promise<void> = SETTLED
  /** The last write asked for: the next one, if asked before it settles, waits for its answer. */
  #lastWrite: Promise<void> = SETTLED
  /** How a write the run did not wait for (`send`) failed. */
  #failed: unknown
  /** Writes asked for and not yet made: a write asked meanwhile joins them, and they go out as one commit. */
  #open: Batch | undefined
  /**
   * One controller behind `signal`, whatever aborts it: the caller (a stop asked of this
   * instance), a stop asked of another instance (it says so in the head), or the thread lost to
   * another writer.
   */
  readonly #abort: RunAbort
  /** Set once another writer took the thread: every later write fails with it. */
  #lost: StoreConflictError | undefined
  /** When the run last wrote (each write renews the lease) and last looked for a stop asked elsewhere. */
  #renewedAt = Date.now()
  #checkedAt = Date.now()
  /** The run's log, when its thread store writes it with commits: each write carries the events it has not sent. */
  readonly #log: LastEvents | undefined

  constructor(options: {
    config: ChatConfig
    runId: string
    context: unknown
    events: RunEvents
    /** Aborts the run; the caller keeps it to stop the run. */
    abort: RunAbort
    head: ThreadHead
    /** The stored history, when the caller has it; else `load` reads it. */
    messages?: readonly ThreadMessage[]
    trace?: RunTrace | undefined
    /** The run's log, when its thread store writes it with commits (`RunEventLog.inCommits`). */
    log?: LastEvents | undefined
  }) {
    this.#log = options.log
    this.trace = options.trace
    this.config = options.config
    this.runId = options.runId
    this.context = options.context
    this.events = options.events
    this.#head = options.head
    this.failures = toolFailures(options.config, options.head.id, options.runId)
    this.messages = options.messages ? [...options.messages] : []
    this.#loaded = options.messages !== undefined
    this.#abort = options.abort
    this.signal = options.abort.signal
    const ctx = { threadId: options.head.id, runId: options.runId, context: appContext(options.context), signal: this.signal }
    this.middleware = new RunMiddleware(this.config.middleware, ctx)
    this.config.runClock.add(this)
  }

  /** The clock's tick (run/runClock.ts): a heartbeat when a slow model or tool left the lease unrenewed for a third of it, and a look for a stop asked elsewhere. */
  tick(now: number): void {
    // A write unsettled or not yet made renews the lease when it lands, and a heartbeat could land
    // only after it (it is never sent behind one): none is sent then.
    if (now - this.#renewedAt >= this.config.limits.runLeaseMs / 3 && this.#asked === 0 && !this.#open) {
      this.#renewedAt = now
      void this.#write((head) => renewLease(head, { now: Date.now() }), false).catch(() => {})
    }
    // Ticks come every quarter of it at most: a look is never more than STOP_CHECK_MS after the last.
    if (now - this.#checkedAt >= (STOP_CHECK_MS * 3) / 4) {
      this.#checkedAt = now
      void this.#checkStop()
    }
  }

  /** Calls `end` once the run's signal aborts (never, if it already has); returns what cancels that. */
  whenAborted(end: () => void): () => void {
    return this.#abort.whenAborted(end)
  }

  /** The head as last written by this run: the last write sent, while it is on its way. */
  get head(): ThreadHead {
    return this.#latest ?? this.#head
  }

  /** A stop asked of another instance lands in the head; this run looks for it once a second. */
  async #checkStop(): Promise<void> {
    if (this.signal.aborted) return
    try {
      const head = await this.config.store.head(this.head.id)
      if (head?.stopRequested === this.runId && head.activeRun?.runId === this.runId) this.#abort.abort(new RunStopped())
    } catch {
      // the next look may succeed
    }
  }

  /**
   * Reads the stored history (the cache's, when it keeps the head), unless the run was given it:
   * then there is nothing to wait for (`undefined`, not a promise to await).
   */
  load(): Promise<void> | undefined {
    return this.#loaded ? undefined : this.#read()
  }

  async #read(): Promise<void> {
    const { threadCache } = this.config
    const head = this.head
    const cached = threadCache?.history(head)
    const stored = cached ?? (await loadMessages(this.config.store, head))
    if (!cached) threadCache?.remember(head, stored)
    this.messages.unshift(...stored)
    this.#loaded = true
  }

  /** Adds messages to the history; the next `save` writes them. */
  append(...messages: ThreadMessage[]): void {
    this.messages.push(...messages)
    this.#appended.push(...messages)
  }

  /** Writes the appended messages and the step's progress (`saveStep`); while the run holds the thread, the write renews its lease. */
  save(fields: StepFields = {}, drafts: readonly DecisionDraft[] = []): Promise<void> {
    // Nothing is written (no call marked running, no tool started) once a write sent before failed.
    if (this.#failed !== undefined) return Promise.reject(this.#failed)
    let written: ThreadChange | undefined
    const saved =
      drafts.length > 0
        ? this.#ask(async (head, append) => {
            // Chained on the head as this write finds it: the run is the thread's one writer meanwhile.
            const decided = await chainDecisions(head.decisions, drafts, this.config.recordKey)
            return (written = saveStep(head, { fields, append, now: Date.now(), decided }))
          }, true)
        : this.#ask((head, append) => saveStep(head, { fields, append, now: Date.now() }), false)
    // One reaction, not an async function: a turn saves twice.
    return saved.then(
      () => {
        this.#unsavedFields = undefined
        if (drafts.length > 0) void reportDecisions(this.config, written!)
      },
      (error: unknown) => {
        this.#unsavedFields = { ...this.#unsavedFields, ...fields }
        throw error
      },
    )
  }

  /**
   * Writes like `save`, without waiting for the store's answer: the run goes on (the next model
   * call) while the write lands, and the next write is sent behind it. The write is made once the
   * event loop turns: the next model call is under way by then (its request sent, when it reads the
   * network), and a call that needed no I/O has ended and asked for its own write, which this one
   * joins (one commit for both). If it fails, the run's signal aborts (the model call under way
   * ends), every write sent behind it or merged with it fails too, and `throwIfUnsaved` throws its
   * error: the run fails as if `save` had thrown.
   */
  send(fields: StepFields): void {
    this.#hold(
      (head, append) => saveStep(head, { fields, append, now: Date.now() }),
      (error: unknown) => {
        this.#unsavedFields = { ...this.#unsavedFields, ...fields }
        this.#failed ??= error
        this.#abort.abort(error)
      },
    )
  }

  /** Throws the error of a write the run did not wait for (`send`), if one failed. */
  throwIfUnsaved(): void {
    if (this.#failed !== undefined) throw this.#failed
  }

  /**
   * Writes the appended messages and lets the thread go (`release`), with the fields of a save
   * that failed, so the stored head and history agree (driveRun retries a failed release), and the
   * run's failure, if it failed, for a reloaded page to read.
   */
  async release(failure?: Omit<RunFailure, 'runId'>, last?: LastEvents): Promise<void> {
    await this.#ask((head, append) => release(head, { append, fields: this.#unsavedFields, failure }), false, last)
    this.#unsavedFields = undefined
  }

  /** Throws unless the thread has room for `count` more messages, and bytes to spare. */
  ensureRoom(count: number): void {
    const { maxThreadMessages, maxThreadBytes } = this.config.limits
    if (this.messages.length + count > maxThreadMessages) throw new ThreadFullError(`${maxThreadMessages} messages`)
    let bytes = this.#head.bytes
    for (let index = this.#saved; index < this.#appended.length; index++) bytes += messageBytes(this.#appended[index]!)
    if (bytes >= maxThreadBytes) throw new ThreadFullError(`${maxThreadBytes} bytes`)
  }

  /** Stops the heartbeat. The run is over. */
  close(): void {
    this.config.runClock.delete(this)
  }

  /**
   * Group commit: a write with messages joins the writes asked for and not yet made, if any (they
   * go out as one commit, one compare-and-set: each transition made of the head the one before it
   * leaves, the messages of all, the head of the last), else it opens a batch of its own. A batch
   * is made, and closed to later writes, when it is sent: at once with nothing unsettled, else
   * behind the last write (once that is sent, on a store that pipelines; answered, on one that
   * does not). Every write of a batch settles with its commit. At most one batch waits at a time.
   */
  #ask(part: Transition, async: boolean, last?: LastEvents): Promise<void> {
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

  /**
   * A write nobody waits for (`failed` hears if it fails): it joins the open batch, or opens one
   * held until the event loop turns, so writes asked meanwhile go out with it.
   */
  #hold(part: Transition, failed: (error: unknown) => void): void {
    const open = this.#open
    if (open) {
      open.parts.push(part)
      if (!open.held) return void open.promise!.catch(failed)
      const before = open.failed
      open.failed = before ? (error) => (before(error), failed(error)) : failed
      return
    }
    const batch: Batch = { parts: [part], async: false, last: undefined, held: true, promise: undefined, failed }
    this.#open = batch
    nextTurn(() => {
      if (batch.held) this.#flush(batch)
    })
  }

  /** Sends a batch that was held for the loop's turn. */
  #flush(batch: Batch): void {
    batch.held = false
    batch.promise = this.#sendBatch(batch)
    batch.promise.catch(batch.failed!)
  }

  #sendBatch(batch: Batch): Promise<void> {
    const transition = (head: ThreadHead, append: readonly ThreadMessage[]): ThreadChange | Promise<ThreadChange> => {
      // Made now: a write asked from here on opens the next batch.
      if (this.#open === batch) this.#open = undefined
      return batch.parts.length === 1 ? batch.parts[0]!(head, append) : merged(batch.parts, 0, head, append, undefined)
    }
    // A transition that may be asynchronous goes the general way (it holds the next write until it is made).
    return batch.async ? this.#writeInTurn(transition, true, batch) : this.#write(transition as SyncTransition, true, batch)
  }

  /**
   * The writes, in order: the change a transition makes of the head as the last write leaves it.
   * On a store that `pipelines`, a write with messages is sent at once behind one on its way (it
   * `follows` that one's head); else it waits for the last to be answered. A write that followed
   * one that failed fails with its error; one that found another writer's head first (a stop
   * request) is made again on the head as it is. The heartbeat's (`withMessages` false) only renews
   * the lease while the run still holds the thread, leaving appended messages for the run's next
   * save; a failure other than losing the thread is retried on the next beat.
   */
  #write(
    transition: SyncTransition,
    withMessages: boolean,
    /** The batch this write makes, when it carries the run's last events (its release) into the store's log. */
    batch?: Batch,
  ): Promise<void> {
    // A run's writes seldom overlap. With none unsettled there is no turn to wait for, no answer to
    // wait for and no head to follow: the write is made and sent here, and one reaction to the
    // store's answer settles it (the general way costs an async function and seven promises).
    if (this.#asked > 0) return this.#writeInTurn(transition, withMessages, batch)
    if (this.#lost) {
      if (this.#open === batch) this.#open = undefined
      return Promise.reject(this.#lost)
    }
    const base = this.#head
    if (!withMessages && !base.activeRun) return Promise.resolve()
    const to = withMessages ? this.#appended.length : this.#saved
    let next: ThreadHead
    let committing: Promise<boolean>
    let riding: RiddenEvents | undefined
    let last: LastEvents | undefined
    try {
      const change = transition(base, this.#appended.slice(this.#saved, to))
      last = batch?.last
      next = nextHead(base, change)
      riding = last ? undefined : this.#log?.ride()
      committing = Promise.resolve(this.config.store.commit(commitOf(next, change, undefined, last?.unlogged() ?? riding)))
    } catch (error) {
      if (riding) this.#log!.rode(riding, false)
      return Promise.reject(error)
    }
    this.#inFlight++
    this.#asked++
    this.#latest = next
    this.#sent = to
    this.#followable = withMessages
    const write = committing.then(
      (written) => {
        this.#inFlight--
        if (riding) this.#log!.rode(riding, written)
        if (written) {
          this.#asked--
          return this.#written(next, to, false)
        }
        if (this.#inFlight === 0) this.#latest = undefined
        return this.#writeAgain(transition, to, false, last).finally(() => this.#asked--)
      },
      (error: unknown) => {
        this.#inFlight--
        this.#asked--
        if (riding) this.#log!.rode(riding, false)
        this.#latest = undefined
        this.#followable = false
        throw error ?? new Error('The store failed without an error')
      },
    )
    this.#lastWrite = write
    return write
  }

  /**
   * The general way of `#write`: made once the last write is sent, and sent behind it (a store
   * that pipelines) or once it is answered; the way of a write asked while another is unsettled,
   * and of one whose transition is asynchronous.
   */
  #writeInTurn(transition: Transition, withMessages: boolean, batch?: Batch): Promise<void> {
    const waits = this.#asked > 0
    const turn = this.#sendTurn
    /** Settles (never rejecting) once the last write is answered, with its failure if it failed. */
    const answered = waits ? this.#lastWrite.then(nothing, failureOf) : undefined
    let sent: (() => void) | undefined
    if (waits) this.#sendTurn = new Promise<void>((resolve) => (sent = resolve))
    this.#asked++
    const write = (async () => {
      try {
        let follows: ThreadHead | undefined
        let to!: number
        let next!: ThreadHead
        let committing!: Promise<boolean>
        let riding: RiddenEvents | undefined
        let last: LastEvents | undefined
        try {
          if (waits) await turn
          follows = withMessages && this.#followable && this.config.store.pipelines === true ? this.#latest : undefined
          if (!follows && waits) await answered
          if (this.#lost) {
            if (this.#open === batch) this.#open = undefined
            throw this.#lost
          }
          const base = follows ?? this.#head
          if (!withMessages && !base.activeRun) return
          const from = follows ? this.#sent : this.#saved
          to = withMessages ? this.#appended.length : from
          let change = transition(base, this.#appended.slice(from, to))
          if (change instanceof Promise) {
            // Made asynchronously: a write asked meanwhile waits until this one is sent.
            if (!sent) this.#sendTurn = new Promise<void>((resolve) => (sent = resolve))
            change = await change
          }
          last = batch?.last
          next = nextHead(base, change)
          riding = last ? undefined : this.#log?.ride()
          try {
            committing = this.config.store.commit(commitOf(next, change, follows, last?.unlogged() ?? riding))
          } catch (error) {
            if (riding) this.#log!.rode(riding, false)
            throw error
          }
          this.#inFlight++
          this.#latest = next
          this.#sent = to
          this.#followable = withMessages
        } finally {
          sent?.()
        }
        let written: boolean | undefined
        let failure: unknown
        try {
          written = await committing
        } catch (error) {
          failure = error ?? new Error('The store failed without an error')
        }
        if (riding) this.#log!.rode(riding, failure === undefined && written === true)
        // Only a write that followed another cares how that one went (and only one that waited can have followed).
        const before = follows ? await answered : undefined
        this.#inFlight--
        if (failure === undefined && written) return this.#written(next, to, follows !== undefined)
        if (failure === undefined && follows && before !== undefined) failure = before
        if (failure !== undefined) {
          this.#latest = undefined
          this.#followable = false
          throw failure
        }
        if (this.#inFlight === 0) this.#latest = undefined
        await this.#writeAgain(transition, to, follows !== undefined, last)
      } finally {
        this.#asked--
      }
    })()
    this.#lastWrite = write
    return write
  }

  /**
   * A write that found another head than the one it was made of: made again on the head as this
   * run last wrote it (the write it followed may have been made again itself), then, if another
   * instance wrote a stop request into the head (the thread is still this run's), on that head.
   * Anything else means the thread was lost to another writer.
   */
  async #writeAgain(
    transition: Transition,
    to: number,
    /** It was made of the head of a write on its way: first make it again of the head that write left. */
    followed: boolean,
    last: LastEvents | undefined,
  ): Promise<void> {
    if (this.#lost) throw this.#lost
    const append = this.#appended.slice(this.#saved, to)
    const commit = async (head: ThreadHead) => commitChange(this.config.store, head, await transition(head, append), last?.unlogged())
    let written = followed ? await commit(this.#head) : undefined
    if (!written) {
      const current = await this.config.store.head(this.#head.id)
      if (current?.activeRun?.runId === this.runId && current.stopRequested === this.runId) {
        this.#abort.abort(new RunStopped())
        this.#head = current
        written = await commit(this.#head)
      }
    }
    if (!written) {
      this.#lost = new StoreConflictError(this.#head.id)
      this.#abort.abort(this.#lost)
      throw this.#lost
    }
    this.#written(written, to, false)
  }

  #written(head: ThreadHead, to: number, followed: boolean): void {
    this.#head = head
    this.#saved = to
    this.#renewedAt = Date.now()
    if (this.#inFlight === 0) this.#latest = undefined
    // A write made of the head of one that failed landed: that one landed too (its answer was lost).
    if (followed) this.#unsavedFields = undefined
  }
}


/** A write: the change a transition makes of the head as the write before it leaves it, with the messages appended since. */
type Transition = (head: ThreadHead, append: readonly ThreadMessage[]) => ThreadChange | Promise<ThreadChange>
type SyncTransition = (head: ThreadHead, append: readonly ThreadMessage[]) => ThreadChange

/** Writes asked for and not yet made, to go out as one commit (`Run.#ask`). */
interface Batch {
  readonly parts: Transition[]
  /** One of the parts may be asynchronous (a save with decisions to chain). */
  async: boolean
  /** The run's last events, when its release is one of the parts. */
  last: LastEvents | undefined
  /** Held for the loop's turn (opened by a write nobody waits for), not yet handed to the writer. */
  held: boolean
  /** Settles with the batch's commit, once it is handed to the writer. */
  promise: Promise<void> | undefined
  /** What the held write that opened the batch does if the commit fails. */
  failed: ((error: unknown) => void) | undefined
}

/**
 * The one change of several transitions, each made of the head the one before leaves: the fields
 * of the last that set them, the messages (all the batch's, with the first part) and decision
 * records of all. Asynchronous parts are waited for in order.
 */
function merged(parts: readonly Transition[], from: number, head: ThreadHead, append: readonly ThreadMessage[], sum: ThreadChange | undefined): ThreadChange | Promise<ThreadChange> {
  for (let index = from; index < parts.length; index++) {
    const made = parts[index]!(head, index === 0 ? append : NO_MESSAGES)
    if (made instanceof Promise) return made.then((change) => merged(parts, index + 1, nextHead(head, change), append, joined(sum, change)))
    sum = joined(sum, made)
    if (index + 1 < parts.length) head = nextHead(head, made)
  }
  return sum!
}

function joined(sum: ThreadChange | undefined, change: ThreadChange): ThreadChange {
  if (!sum) return change
  const decisions = [...(sum.decisions ?? []), ...(change.decisions ?? [])]
  return { head: { ...sum.head, ...change.head }, append: [...(sum.append ?? []), ...(change.append ?? [])], ...(decisions.length > 0 ? { decisions } : {}) }
}

const NO_MESSAGES: readonly ThreadMessage[] = []

/** No write yet: one settled promise for every run, not two made per run. */
const SETTLED: Promise<void> = Promise.resolve()
const nothing = (): undefined => undefined
const failureOf = (error: unknown): unknown => error

/** Why a run's signal aborts when a user stops it. */
export class RunStopped extends Error {
  constructor() {
    super('The user stopped the run')
    this.name = 'RunStopped'
  }
}
