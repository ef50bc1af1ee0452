import type { ErrorCode } from './errors.ts'
import type { DecisionSummary } from './decisions.ts'
import type { ToolInterrupt } from './interrupts.ts'
import type { ThreadMessage } from './messages.ts'
import type { ApprovalAnswer, ClientErrorAnswer, ClientOutputAnswer } from './requests.ts'

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
  /** Interrupts still waiting for an answer (those already answered in this batch are in `answers`). */
  readonly interrupts: readonly ToolInterrupt[]
  /**
   * How the thread's last run failed, when it did and nothing ran since: its error (`STORE_ERROR`
   * after an outage, ...), or `RUN_LOST` for a run that stopped without finishing (its process
   * died). A reloaded page shows it instead of replaying the run; the next message clears it.
   */
  readonly lastRunError?: RunFailure
  /**
   * Answers the server holds for calls of the open step while others of its batch still wait: their
   * results join `messages` only once the whole batch is answered. Absent when there are none.
   */
  readonly answers?: readonly RecordedAnswer[]
  /** Set when the request asked for a page (`limit`, `before`): where `messages` start among the stored ones. */
  readonly window?: ThreadWindow
}

/** A run that ended with an error: which, and what the browser may be told of it. */
export interface RunFailure {
  readonly runId: string
  readonly code: ErrorCode
  readonly message: string
}

/** A page of a thread: `messages` are the stored ones from index `from`; the thread stores `total`. */
export interface ThreadWindow {
  readonly from: number
  readonly total: number
}

/**
 * An answer as a resume gave it (an approval with its `editedArgs` or deny `reason`, or a browser
 * tool's `output` or `error`), with the call it answers and, for an approval, who decided.
 */
export type RecordedAnswer = (Omit<ApprovalAnswer, 'grant'> | ClientOutputAnswer | ClientErrorAnswer) & {
  readonly toolCallId: string
  readonly decision?: DecisionSummary
}
