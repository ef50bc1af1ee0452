import type { LoggedEvent, RunEventLog } from '../thread/threadStore.ts'
import { backoff, retry } from '../../util/retry.ts'
import { SETTLED } from '../../util/settled.ts'
import { atTurnEnd } from '../../util/turnBatch.ts'

// A run's event log writer: what the run tells goes to its log (which readers that (re)attach read
// from any instance) in batches, one event-loop turn's together (util/turnBatch.ts), or, to a log
// in this process, as it comes.

/**
 * Events are written to the log in batches: those of one event-loop turn together, one write in
 * flight per run, the rest queued behind it; the last write marks the log complete. A log in this
 * process (one that answers with `SETTLED`) is written each event as it comes instead. On a log
 * `inCommits`, a thread commit the run sends while a batch waits here carries it instead (`ride`),
 * as the one write in flight, and the run's release carries what this writer had not yet written.
 */
export class LogWriter {
  readonly #log: RunEventLog
  readonly #threadId: string
  readonly #runId: string
  #queued: LoggedEvent[] = []
  /** The batch on its way. */
  #sending: readonly LoggedEvent[] = NONE
  /** Events another write carries (`carried`). */
  #carried: LoggedEvent[] = []
  #completed = false
  #scheduled = false
  #writing = false
  #ending = false
  #ended = false
  #complete: (() => void) | undefined
  /** The log answered the last write at once (`SETTLED`: it is in this process), so events go to it as they come. */
  #direct = false

  /** Told each batch once its write is answered (landed, or given up on after its retries). */
  readonly #answered: (events: readonly LoggedEvent[]) => void

  constructor(log: RunEventLog, threadId: string, runId: string, answered: (events: readonly LoggedEvent[]) => void = () => {}) {
    this.#log = log
    this.#threadId = threadId
    this.#runId = runId
    this.#answered = answered
  }

  push(event: LoggedEvent): void {
    // A log in this process takes each event at once: batching them until the turn's end saves it
    // nothing, and cost a task and a queue per turn to a run streaming a delta per turn.
    if (this.#direct && !this.#writing && !this.#ended && this.#queued.length === 0) return this.#send([event], false)
    this.#queued.push(event)
    this.#schedule()
  }

  /**
   * Writes what is queued and marks the log complete; calls `done` once that write is done (or
   * failed), in the microtask that hears of it: the live stream then ends before the frames of
   * this event-loop turn would go out alone (`atTurnEnd`).
   */
  end(done: () => void): void {
    // Completed by the release: a batch still on its way adds nothing a reader needs.
    if (this.#completed) return done()
    this.#ending = true
    this.#complete = done
    this.#schedule()
  }

  /**
   * The queued batch, for a thread commit being sent now to carry instead of this writer (`rode`
   * says how that went): only while no write of the log is on its way, so batches land in order,
   * and those queued behind it wait for its answer as they would for a batch's.
   */
  ride(): readonly LoggedEvent[] | undefined {
    if (this.#writing || this.#ended || this.#queued.length === 0) return undefined
    const events = this.#queued
    this.#queued = []
    this.#writing = true
    this.#sending = events
    return events
  }

  /** The commit that carried `events` (`ride`) was answered: written (`landed`), or else they are written here, first. */
  rode(events: readonly LoggedEvent[], landed: boolean): void {
    if (this.#sending !== events) return
    if (!landed && !this.#ended) {
      this.#queued = [...events, ...this.#queued]
      this.#sending = NONE
    }
    this.#written()
  }

  #schedule(): void {
    if (this.#scheduled || this.#writing || this.#ended) return
    this.#scheduled = true
    atTurnEnd(this.#write)
  }

  /**
   * Every event the log has not acknowledged, in order, for another write to carry (the run's
   * release): the batch on its way, then the queued ones, which this writer then holds back
   * (`uncarried` gives them back).
   */
  carried(): LoggedEvent[] {
    // Joined, not spread into `push`: what a long run's log had not written is any length.
    this.#carried = this.#carried.length === 0 ? this.#queued : this.#carried.concat(this.#queued)
    this.#queued = []
    return [...this.#sending, ...this.#carried]
  }

  /** The write that carried them failed: they are written here, first. */
  uncarried(): void {
    this.#queued = [...this.#carried, ...this.#queued]
    this.#carried = []
    if (this.#queued.length > 0) this.#schedule()
  }

  /** The log was completed by the write that carried the last events: nothing more is written. */
  completed(): void {
    this.#completed = true
    this.#ended = true
    this.#queued = []
    this.#carried = []
    this.#complete?.()
  }

  readonly #write = () => {
    this.#scheduled = false
    // A commit carrying a batch was sent since this write was scheduled: its answer schedules the next.
    if (this.#ended || this.#writing) return
    const events = this.#queued
    const final = this.#ending
    if (events.length === 0 && !final) return
    this.#queued = []
    this.#send(events, final)
  }

  #send(events: readonly LoggedEvent[], final: boolean): void {
    this.#writing = true
    this.#sending = events
    this.#ended = final
    // The first try is the store's own promise (most writes need no other); a failure is retried.
    let appended: Promise<void>
    try {
      appended = Promise.resolve(this.#log.append(this.#runId, events, final, this.#threadId))
    } catch (error) {
      appended = Promise.reject(error)
    }
    // An in-process log answers with the shared settled promise (util/settled.ts): written now, no reaction awaited.
    this.#direct = appended === SETTLED
    if (this.#direct) return this.#written()
    appended.then(this.#written, (error: unknown) => appendAgain(this.#log, this.#threadId, this.#runId, events, final, error).then(this.#written))
  }

  readonly #written = () => {
    const sent = this.#sending
    this.#writing = false
    if (sent.length > 0) this.#answered(sent)
    this.#sending = NONE
    if (this.#ended) return this.#complete?.()
    if (this.#queued.length > 0 || this.#ending) this.#schedule()
  }
}

const NONE: readonly LoggedEvent[] = []

/** How many times a batch of events is written to the log, and the pause before the first retry (it doubles). */
const LOG_ATTEMPTS = 6
const LOG_RETRY_MS = 50

/**
 * A blip of the store must not cost readers events: a batch whose first write failed (`error`) is
 * tried again. If the log stays down, the live stream goes on, and a reader that reattaches finds
 * the gap in the events' numbers and is told to reload the thread (replay.ts), never handed a
 * silent gap.
 */
async function appendAgain(log: RunEventLog, threadId: string, runId: string, events: readonly LoggedEvent[], final: boolean, error: unknown): Promise<void> {
  try {
    // Attempt 1 is the write that failed with `error`.
    await retry((attempt) => (attempt === 1 ? Promise.reject(error) : log.append(runId, events, final, threadId)), { attempts: LOG_ATTEMPTS, delay: backoff(LOG_RETRY_MS) })
  } catch (failure) {
    console.error('[toolgate] could not log run events:', failure)
  }
}
