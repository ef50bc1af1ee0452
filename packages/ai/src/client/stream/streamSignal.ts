import type { ThreadSnapshot } from '../../protocol/thread.ts'
import type { ReadEvent } from './parseEvent.ts'

/** What following a run asks the client to apply, in order. */
export type StreamSignal =
  /** An event of the run, to apply to the messages. */
  | { readonly type: 'event'; readonly event: ReadEvent }
  /** The thread's id, as the server says it (the first message of a thread learns it here). */
  | { readonly type: 'thread'; readonly threadId: string }
  /** A run streams: it resumed, or a new one began, so the pause the client knew is over. */
  | { readonly type: 'streaming' }
  /** The stream dropped and the client is attaching again (`true`), or stopped trying (`false`). */
  | { readonly type: 'reconnecting'; readonly reconnecting: boolean }
  /** The run's events are gone (it ended while the client was away): the stored thread is the truth. */
  | { readonly type: 'resynced'; readonly snapshot: ThreadSnapshot }

/** The run being read and its last event that arrived: where a dropped stream picks up (`GET` with `after`, as Last-Event-ID does). */
export interface RunCursor {
  readonly runId: string
  readonly after: number
}
