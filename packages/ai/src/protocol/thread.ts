import type { ToolInterrupt } from './interrupts.ts'
import type { ThreadMessage } from './messages.ts'

/**
 * `idle`: ready for a message. `running`: a run is streaming. `interrupted`: waiting for answers to
 * `interrupts`. A batch whose answers are all stored but whose run was lost (the server died before
 * it applied them) waits for nothing, so the thread is `idle`: a new message settles the batch, and
 * a resume replaying one of its answers applies the stored answers and continues the run.
 */
export type ThreadStatus = 'idle' | 'running' | 'interrupted'

/** What `GET ?threadId=` returns, so a reloaded page can continue where it was. */
export interface ThreadSnapshot {
  readonly threadId: string
  readonly status: ThreadStatus
  /** The run streaming while `status` is `running`: attach to it with `GET` and `Accept: text/event-stream`. */
  readonly runId?: string
  readonly messages: readonly ThreadMessage[]
  /** Interrupts still waiting for an answer (those already answered in this batch are left out). */
  readonly interrupts: readonly ToolInterrupt[]
  /** Set when the request asked for a page (`limit`, `before`): where `messages` start among the stored ones. */
  readonly window?: ThreadWindow
}

/** A page of a thread: `messages` are the stored ones from index `from`; the thread stores `total`. */
export interface ThreadWindow {
  readonly from: number
  readonly total: number
}
