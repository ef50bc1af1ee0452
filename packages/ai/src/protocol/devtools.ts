import type { DecisionRecord, Grant } from './decisions.ts'
import type { RunEvent } from './events.ts'
import type { ToolInterrupt } from './interrupts.ts'
import type { ThreadAssistantMessage, ThreadMessage, ThreadToolMessage } from './messages.ts'
import type { ThreadStatus } from './thread.ts'

/**
 * `GET ?threadId=&devtools`: the thread as the server holds it, for the devtools panel
 * (`@toolgate/ai-react/devtools`). Served only by a handler created with `devtools: true`, to
 * readers `authorize` lets read the thread. A development aid: its shape may change in any release.
 */
export interface DevtoolsSnapshot {
  readonly threadId: string
  readonly status: ThreadStatus
  /** The store's name (`memory`, `redis`, `postgres`), when it gives one. */
  readonly store: string | undefined
  readonly head: {
    readonly version: number
    readonly createdAt: number
    readonly updatedAt: number
    readonly messageCount: number
    readonly bytes: number
    readonly stopRequested: string | undefined
    readonly resolvedInterruptIds: readonly string[]
  }
  /** The run holding the thread, and until when its lease keeps others off (`renewedAt + runLeaseMs`). */
  readonly lease: { readonly runId: string; readonly startedAt: number; readonly renewedAt: number; readonly expiresAt: number; readonly live: boolean } | undefined
  readonly messages: readonly ThreadMessage[]
  /** The open model step, with every interrupt as stored: its answer (the decision so far), when it was asked, when it expires. */
  readonly step:
    | {
        readonly message: ThreadAssistantMessage
        readonly results: readonly ThreadToolMessage[]
        readonly running: readonly string[]
        readonly steps: number
        readonly interrupts: readonly DevtoolsInterrupt[]
      }
    | undefined
  /** The thread's whole decision record, oldest first: every approval, edit, denial, grant, expiry and cancellation, checked against its digests. */
  readonly decisions: readonly DecisionRecord[]
  /** The grants in force ("Allow for this conversation"; expired ones included until revoked). */
  readonly grants: readonly Grant[]
  /** Recent runs of the thread that this instance started (and the active one), oldest first, with their events while the log keeps them. */
  readonly runs: readonly DevtoolsRun[]
}

export interface DevtoolsInterrupt extends ToolInterrupt {
  readonly answer?: { readonly kind: 'approval'; readonly approved: boolean; readonly editedArgs?: unknown; readonly reason?: string } | { readonly kind: 'output'; readonly output: unknown } | { readonly kind: 'error'; readonly error: string }
  readonly askedAt?: number
  readonly traceparent?: string
}

export interface DevtoolsRun {
  readonly runId: string
  /** `message`, `resume` or `takeover`; absent for a run another instance started. */
  readonly kind?: string
  readonly startedAt?: number
  /** The run's AG-UI events as sent (each with its `timestamp`), with their sequence numbers. */
  readonly events: readonly { readonly seq: number; readonly event: RunEvent & { readonly timestamp?: number } }[]
  /** Whether the log holds the run's last event. */
  readonly ended: boolean
  /** The log no longer holds (or never held) the run's events. */
  readonly expired: boolean
}
