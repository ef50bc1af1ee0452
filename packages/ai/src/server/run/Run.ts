import type { ThreadMessage } from '../../protocol/messages.ts'
import type { RunFailure } from '../../protocol/thread.ts'
import type { ChatConfig } from '../options.ts'
import { ThreadFullError, type ToolFailures, toolFailures } from '../errors.ts'
import type { RunEvents } from '../events/runEvents.ts'
import { loadMessages, type ThreadChange } from '../thread/thread.ts'
import { RunWriter } from '../thread/writer/index.ts'
import type { LastEvents } from '../events/liveStream.ts'

import { appContext } from './context.ts'
import { RunMiddleware, noMiddleware } from './middleware.ts'
import { STOP_CHECK_MS } from './runClock.ts'
import type { ThreadHead } from '../thread/threadStore.ts'
import { saveStep, type StepFields } from '../thread/transitions.ts'
import { chainDecisions, type DecisionDraft } from '../decisions/records.ts'
import { reportDecisions } from '../decisions/report.ts'
import type { RunTrace } from '../../telemetry/hooks.ts'
import type { RunAbort } from './runAbort.ts'

/** Token counts summed over a run's model calls. */
export interface UsageTotals {
  inputTokens: number
  outputTokens: number
  cachedInputTokens: number
  reasoningTokens: number
  reported: boolean
}

/**
 * One run of a thread: its working copy (the history the model sees, the step as the run last set
 * it, its usage), its event stream, and the lease that keeps other requests off the thread while it
 * lives. Every write goes through the run's thread writer (thread/writer/: ordering, group
 * commit, pipelining, the log riding its commits, rebasing on another writer's change); a
 * heartbeat renews the lease while a slow model or tool writes nothing. A run that finds its
 * thread taken over stops.
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
  readonly #writer: RunWriter
  /**
   * The step and the interrupts it resolved, as the run last asked to write them (whether that
   * write landed or not): the release writes them, so the stored step and history agree. A save
   * whose running mark failed is undone here: its calls never started.
   */
  #step: StepFields
  /** How a write the run did not wait for (`send`) failed. */
  #failed: unknown
  #loaded: boolean
  /**
   * One controller behind `signal`, whatever aborts it: the caller (a stop asked of this
   * instance), a stop asked of another instance (it says so in the head), or the thread lost to
   * another writer.
   */
  readonly #abort: RunAbort
  /** When the run last looked for a stop asked elsewhere. */
  #checkedAt = Date.now()

  constructor(options: {
    config: ChatConfig
    runId: string
    context: unknown
    events: RunEvents
    /** Aborts the run; the caller keeps it to stop the run. */
    abort: RunAbort
    head: ThreadHead
    /** The stored history, when the caller has it; else `load` reads it. */
    messages?: readonly ThreadMessage[] | undefined
    trace?: RunTrace | undefined
    /** The run's log, when its thread store writes it with commits (`RunEventLog.inCommits`). */
    log?: LastEvents | undefined
  }) {
    const { head, abort } = options
    this.trace = options.trace
    this.config = options.config
    this.runId = options.runId
    this.context = options.context
    this.events = options.events
    this.failures = toolFailures(options.config, head.id, options.runId)
    this.messages = options.messages ? [...options.messages] : []
    this.#loaded = options.messages !== undefined
    this.#abort = abort
    this.signal = abort.signal
    this.#step = { step: head.step, resolvedInterruptIds: head.resolvedInterruptIds }
    this.#writer = new RunWriter({
      store: options.config.store,
      head,
      runId: options.runId,
      log: options.log,
      onLost: (error) => abort.abort(error),
      onStop: () => abort.abort(new RunStopped()),
    })
    // Without middleware, one shared instance: no context object bound to each run.
    this.middleware =
      this.config.middleware.length === 0
        ? noMiddleware()
        : new RunMiddleware(this.config.middleware, { threadId: head.id, runId: options.runId, context: appContext(options.context), signal: this.signal })
    this.config.runClock.add(this)
  }

  /** The clock's tick (run/runClock.ts): a heartbeat when a slow model or tool left the lease unrenewed for a third of it, and a look for a stop asked elsewhere. */
  tick(now: number): void {
    // A write unsettled or not yet made renews the lease when it lands, and a heartbeat could land
    // only after it (it is never sent behind one): none is sent then.
    if (now - this.#writer.renewedAt >= this.config.limits.runLeaseMs / 3 && this.#writer.idle) {
      void this.#writer.renew().catch(() => {})
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
    return this.#writer.head
  }

  /**
   * The thread's grants as stored now, for planning calls: a grant revoked since the run last
   * wrote no longer covers a call (calls planned after a revoke ask again). Read only when the run's
   * head has grants; a call already started under one finishes.
   */
  async grants(): Promise<ThreadHead['grants']> {
    const { grants, id } = this.head
    if (!grants || grants.length === 0) return grants
    const stored = await this.config.store.head(id)
    return stored?.activeRun?.runId === this.runId ? stored.grants : grants
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
    this.#writer.append(messages)
  }

  /**
   * Writes the appended messages and the step's progress (`saveStep`); while the run holds the
   * thread, the write renews its lease. A save that marks calls running must be answered as written
   * before they start (read-only ones excepted): if it fails, they never start, the step goes back
   * to what it was, and the run's signal aborts (a read-only call under way stops).
   */
  save(fields: StepFields = {}, drafts: readonly DecisionDraft[] = []): Promise<void> {
    // Nothing is written (no call marked running, no tool started) once a write sent before failed.
    if (this.#failed !== undefined) return Promise.reject(this.#failed)
    const before = this.#step
    this.#step = withFields(before, fields)
    let written: ThreadChange | undefined
    const saved =
      drafts.length > 0
        ? this.#writer.writeAsync(async (head, append) => {
            // Chained on the head as this write finds it (made again on the tip of a head another writer changed).
            const decided = await chainDecisions(head.decisions, drafts, this.config.recordKey)
            return (written = saveStep(head, { fields, append, now: Date.now(), decided }))
          })
        : this.#writer.save(fields)
    // One reaction, not an async function: a turn saves twice.
    return saved.then(
      () => {
        if (drafts.length > 0) void reportDecisions(this.config, written!)
      },
      (error: unknown) => {
        if (fields.step && fields.step.running.length > 0) {
          // Its calls never started (but read-only ones, which did not wait for it): the release
          // must not store them as running (they can still run), and the read-only ones stop.
          this.#step = before
          this.#abort.abort(error)
        }
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
    this.#step = withFields(this.#step, fields)
    this.#writer.hold(
      fields,
      (error: unknown) => {
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
   * Writes the release (the run lets the thread go) with the appended messages and the step as
   * the run last set it, so the stored head and history agree whatever failed before (driveRun
   * tries again when it fails), and the run's failure, if it failed, for a reloaded page to read.
   * `last`: the run's last events, carried by the same write into its log.
   */
  writeRelease(failure?: Omit<RunFailure, 'runId'>, last?: LastEvents): Promise<void> {
    return this.#writer.release(this.#step, failure, last)
  }

  /** Throws unless the thread has room for `count` more messages, and bytes to spare. */
  ensureRoom(count: number): void {
    const { maxThreadMessages, maxThreadBytes } = this.config.limits
    if (this.messages.length + count > maxThreadMessages) throw new ThreadFullError(`${maxThreadMessages} messages`)
    if (this.#writer.written.bytes + this.#writer.unsavedBytes() >= maxThreadBytes) throw new ThreadFullError(`${maxThreadBytes} bytes`)
  }

  /** Stops the heartbeat. The run is over. */
  close(): void {
    this.config.runClock.delete(this)
  }
}

/**
 * `step` as `fields` change it (a key given, even as `undefined`, replaces the run's): one literal
 * of both keys, not two spreads, the second of which copies key by key (a run sets them each save).
 */
function withFields(step: StepFields, fields: StepFields): StepFields {
  return {
    step: 'step' in fields ? fields.step : step.step,
    resolvedInterruptIds: 'resolvedInterruptIds' in fields ? fields.resolvedInterruptIds : step.resolvedInterruptIds,
  }
}

/** Why a run's signal aborts when a user stops it. */
export class RunStopped extends Error {
  constructor() {
    super('The user stopped the run')
    this.name = 'RunStopped'
  }
}
