import type { ChatEvent } from '../protocol/events.ts'

/**
 * The storage contract of runs' events, beside `ThreadStore`: every event a run streams is also
 * appended here, so a client that lost its connection (or reconnects to another instance) reads
 * what it missed and then follows the run live. `RunEvents` (events.ts) is its only writer.
 *
 * A log is a list of events per run, numbered 1, 2, ... (`seq`). Appends are idempotent per
 * `seq`: an event whose `seq` is already stored is dropped, so of two writers that both think
 * they end a run (a process taken for dead that was only slow, and the request that took its
 * thread over) the first one wins and readers never see a number twice. A log expires a while
 * after its run ended, and a while after its last event if the run never ends (its process died).
 */
export interface RunEventLog {
  /** Appends events in `seq` order; events whose `seq` is already stored are dropped. */
  append(runId: string, events: readonly LoggedEvent[]): Promise<void>
  /**
   * The events after `afterSeq`, oldest first (at most a store-chosen batch; read again for more),
   * or `undefined` when the log does not know the run (never started here, or expired).
   */
  read(runId: string, afterSeq: number): Promise<readonly LoggedEvent[] | undefined>
  /**
   * Resolves once an event after `afterSeq` may be there, or after about `timeoutMs`, or when
   * `signal` aborts, whichever comes first; never rejects. Readers `read` again afterwards, so a
   * spurious wake-up costs a read and nothing else.
   */
  wait(runId: string, afterSeq: number, options: { readonly timeoutMs: number; readonly signal: AbortSignal }): Promise<void>
  /** The run wrote its last event: its log now expires after the log's retention time. */
  end(runId: string): Promise<void>
}

/** One event of a run and its number in the run. */
export interface LoggedEvent {
  readonly seq: number
  readonly event: ChatEvent
}

/** How long logs are kept, for the stores that implement `RunEventLog`. */
export interface RunEventLogOptions {
  /** How long a finished run's events stay readable. Default 5 minutes. */
  readonly retainMs?: number
  /**
   * How long the log of a run that never ended (its process died) is kept after its last event.
   * Default 1 hour.
   */
  readonly staleMs?: number
}

export const DEFAULT_RETAIN_MS = 5 * 60 * 1000
export const DEFAULT_STALE_MS = 60 * 60 * 1000

/** Whether an event ends a run: nothing follows it. */
export function isRunEnd(event: ChatEvent): boolean {
  return event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR'
}

/** A run id as the runtime makes them (`run_` and base64url), so nothing else reaches a log's keys. */
export function isRunId(value: string): boolean {
  return /^run_[\w-]{1,64}$/.test(value)
}
