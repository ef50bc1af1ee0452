import type { ToolInterrupt } from './interrupts.ts'
import type { ChatMessage } from './messages.ts'

/**
 * `idle`: ready for a message. `running`: a run is streaming. `interrupted`: waiting for answers to
 * `interrupts`.
 */
export type ThreadStatus = 'idle' | 'running' | 'interrupted'

/** What `GET ?threadId=` returns, so a reloaded page can continue where it was. */
export interface ThreadSnapshot {
  readonly threadId: string
  readonly status: ThreadStatus
  readonly messages: readonly ChatMessage[]
  /** Interrupts still waiting for an answer (those already answered in this batch are left out). */
  readonly interrupts: readonly ToolInterrupt[]
}
