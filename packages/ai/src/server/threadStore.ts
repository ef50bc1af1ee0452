import type { ThreadMessage } from '../protocol/messages.ts'
import type { ToolInterrupt } from '../protocol/interrupts.ts'

/** An answer as stored on its interrupt until the batch is complete. */
export type StoredAnswer =
  | { readonly kind: 'approval'; readonly approved: boolean; readonly editedArgs?: unknown; readonly reason?: string }
  | { readonly kind: 'output'; readonly output: unknown }
  | { readonly kind: 'error'; readonly error: string }

export interface PendingInterrupt extends ToolInterrupt {
  readonly answer?: StoredAnswer | undefined
  /** A client_tool interrupt whose approval edited the arguments; its result will say so. */
  readonly edited?: boolean
}

/** The interrupts of one model step; the run resumes once every one is answered. */
export interface PendingBatch {
  readonly interrupts: readonly PendingInterrupt[]
  /** Model calls already made in this turn, so `maxSteps` holds across resumes. */
  readonly steps: number
}

/** A thread as the server owns it. Plain JSON, so any store can keep it. */
export interface Thread {
  readonly id: string
  readonly messages: readonly ThreadMessage[]
  readonly pending?: PendingBatch | undefined
  /** Set while a run streams; other writers are refused until it ends (or its lease runs out). */
  readonly activeRun?: ActiveRun | undefined
  /** Recently applied interrupt ids, so a replayed answer gets "already answered" rather than "not found". */
  readonly resolvedInterruptIds: readonly string[]
  readonly createdAt: number
  readonly updatedAt: number
}

/** The run holding a thread. Its lease counts from its last write, so a long run keeps it while it makes progress. */
export interface ActiveRun {
  readonly runId: string
  readonly startedAt: number
  /** When the run last wrote the thread (absent until its first write after the claim). */
  readonly renewedAt?: number
}

export interface VersionedThread {
  readonly thread: Thread
  /** Increases by one with every successful `put`. */
  readonly version: number
}

/**
 * Where threads live. Small on purpose, so a shared store (Redis, a SQL row with a version column)
 * is a few lines: `put` is a compare-and-set on the version.
 */
export interface ThreadStore {
  get(threadId: string): Promise<VersionedThread | undefined>
  /**
   * Writes `thread` if the stored version is still `expectedVersion` (`0`: the thread must not
   * exist yet); the version becomes `expectedVersion + 1`. Returns `false` on a conflict, changing nothing.
   */
  put(thread: Thread, expectedVersion: number): Promise<boolean>
}
