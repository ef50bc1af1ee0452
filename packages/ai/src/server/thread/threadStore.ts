import type { DecisionRecord, DecisionSummary, Grant, Principal, Reviewers } from '../../protocol/decisions.ts'
import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import type { ThreadAssistantMessage, ThreadMessage, ThreadToolMessage } from '../../protocol/messages.ts'
import type { RunFailure } from '../../protocol/thread.ts'
import type { AttachmentStore } from './attachmentStore.ts'
import type { JsonSchema } from '../../schema/types.ts'

/**
 * The storage contract of threads. A thread is an append-only list of messages plus a small head
 * (version, the open model step, the active run) that every write replaces by compare-and-set.
 * A write costs what changed, never the whole thread, and any store that can compare a version
 * and append to a list (a Map, Redis, a SQL table) implements it. Everything is plain JSON.
 */

/**
 * An answer as stored on its interrupt until every interrupt of the step is answered. `messageId`: the answer came as an AG-UI `tool` message (a frontend tool's
 * result), whose id the stored result keeps; the client holds that message already, so no
 * TOOL_CALL_RESULT repeats it.
 */
export type StoredAnswer =
  | {
      readonly kind: 'approval'
      readonly approved: boolean
      readonly editedArgs?: unknown
      readonly reason?: string
      /** Who decided, as the decision record says; streamed on the call once it settles. */
      readonly decision?: DecisionSummary
    }
  | { readonly kind: 'output'; readonly output: unknown; readonly messageId?: string }
  | { readonly kind: 'error'; readonly error: string; readonly messageId?: string }

/** An interrupt as the thread stores it: the wire interrupt, and its answer once given (it stays here, answered, until its step settles). */
export interface StoredInterrupt extends ToolInterrupt {
  readonly answer?: StoredAnswer | undefined
  /** A client_tool interrupt whose approval edited the arguments; its result will say so. */
  readonly edited?: boolean
  /** A client_tool interrupt an approval let run: who decided, so its result carries it as a server tool's does. */
  readonly decision?: DecisionSummary
  /** Who the call was made for: the principal of the request whose run asked. */
  readonly requestedBy?: Principal
  /** Who must decide, when the policy named reviewers; the requester never counts. */
  readonly reviewers?: Reviewers
  /** The arguments under review once a reviewer edited them short of the required approvals; later reviewers are shown these. */
  readonly proposed?: unknown
  /** Approvals given so far, while `reviewers.required` asks for more than one; each names the digest of the arguments it approved. */
  readonly approvals?: readonly DecisionSummary[]
  /** The edit that made `proposed` a new proposal, asked of the policy again (claim/answers.ts). */
  readonly proposedBy?: DecisionSummary
  /** How many times `onExpired` sent it to other reviewers. */
  readonly escalations?: number
  /** Nonces of the review links used on this interrupt: each works once. */
  readonly usedLinks?: readonly string[]
  /** When the run asked (ms since the epoch): the wait for an answer begins here. */
  readonly askedAt?: number
  /** The asking run's span (W3C `traceparent`), when telemetry is on: the wait ends in its trace. */
  readonly traceparent?: string
  /**
   * Set when a running server tool asked for a person's input (an MCP server's `input_required`
   * or `elicitation/create`; run/inputInterrupts.ts): the form's schema and the tool's state. It is
   * shown as an approval whose edit form is `schema`; the call runs again with the answer.
   */
  readonly inputRequest?: StoredInputRequest
}

/** A tool's request for input, as stored: `state` never leaves the server. */
export interface StoredInputRequest {
  /** A flat object schema: the form. */
  readonly schema: JsonSchema
  readonly state: unknown
}

/**
 * The last model step while any of its calls is unsettled. Its message joins `messages`, followed
 * by a result for every call, only once all of them are settled: stored history never holds a
 * call without its result, and a user's edit of a call's arguments lands in the message before
 * any model reads it.
 */
export interface OpenStep {
  readonly message: ThreadAssistantMessage
  /** Results of the step's settled calls so far, in the order they settled. */
  readonly results: readonly ThreadToolMessage[]
  /** Calls that wait for a human or the browser; the run resumes once every one is answered. */
  readonly interrupts: readonly StoredInterrupt[]
  /**
   * Server tool calls that started and have no stored result. Recorded before they run, so after
   * a crash they are reported as interrupted (they may have taken effect) and never run again by
   * surprise; a tool marked `idempotent` runs again under the same `toolCallId`.
   */
  readonly running: readonly string[]
  /** Model calls already made in this turn, so `maxSteps` holds across resumes. */
  readonly steps: number
  /** The step is an MCP App's own call (claim/appCall.ts): once settled, its run ends without calling the model. */
  readonly app?: true
  /**
   * Agent tools (`agentTool`) of this step whose subagent waits: each one's own history and open
   * step, stored with the thread while its inner calls' interrupts (in `interrupts`, with their
   * `path`) wait, so any instance continues it once they are answered.
   */
  readonly subagents?: readonly SuspendedSubagent[] | undefined
}

/**
 * A subagent paused inside a call of this step: which call started it, its history so far (the
 * task, then its closed steps) and its own open step (whose interrupts wait in the step of the run,
 * stamped with their path; its `interrupts` hold none).
 */
export interface SuspendedSubagent {
  /** The call of the agent tool, in the step that holds this. */
  readonly toolCallId: string
  readonly agent: string
  readonly subagentRunId: string
  /** The decision its call runs under (an approval of the delegation, a grant): its result carries it once the subagent answers. */
  readonly decision?: DecisionSummary
  readonly messages: readonly ThreadMessage[]
  readonly step: OpenStep
}

/** The run holding a thread. Renewed by a heartbeat while the run lives; a lapsed lease means its process died. */
export interface ActiveRun {
  readonly runId: string
  readonly startedAt: number
  readonly renewedAt: number
  /**
   * Messages stored when the run began (its user message included): a client that attaches to the
   * run mid-way starts from these and replays the run's events over them.
   */
  readonly fromMessage: number
  /** The run continues the open step it began with, whose message it stores at `fromMessage`. */
  readonly resumed?: true
}

/** Everything about a thread but its messages: small, read and written on every request. */
export interface ThreadHead {
  readonly id: string
  /** `1` when created; every commit adds one. */
  readonly version: number
  readonly createdAt: number
  readonly updatedAt: number
  /** How many messages are stored. */
  readonly messageCount: number
  /** The stored messages' size as JSON text, in UTF-8 bytes. */
  readonly bytes: number
  readonly step?: OpenStep | undefined
  readonly activeRun?: ActiveRun | undefined
  /** Recently settled interrupt ids, so a replayed answer gets "already answered" rather than "not found". */
  readonly resolvedInterruptIds: readonly string[]
  /** The run a user asked to stop, for the instance that runs it to see at its next look. */
  readonly stopRequested?: string | undefined
  /** Tools allowed for this thread by an approver ("allow for this conversation"); revoking one removes it. */
  readonly grants?: readonly Grant[] | undefined
  /** Who sent the turn's message: the requester of every call the turn makes (reviewers are never it). */
  readonly turnBy?: Principal | undefined
  /** How the last run failed, when it did (set by its release, cleared by the next claim): what a reloaded page is told. */
  readonly lastRunError?: RunFailure | undefined
  /** Where the thread's chain of decision records ends: the next record links to it under the same compare-and-set. */
  readonly decisions?: DecisionTip | undefined
}

/** How many decision records a thread holds, and the digest of the last. */
export interface DecisionTip {
  readonly count: number
  readonly last: string | null
}

/** One atomic write. */
export interface ThreadCommit {
  /** The new head; its `version` is one more than the version it replaces (`1`: the thread is new). */
  readonly head: ThreadHead
  /** Messages to add after the stored ones; `head.messageCount` already counts them. */
  readonly append: readonly ThreadMessage[]
  /** Decision records to add after the stored ones, in the same atomic write; `head.decisions` already counts them. */
  readonly decisions?: readonly DecisionRecord[]
  /**
   * The head this commit replaces, when it is the head of a commit sent before and not yet
   * answered (a run sends its next write behind the last, without waiting for it), or the head
   * this instance last wrote and did not read again (a claim made on it: thread/cachedClaim.ts):
   * only a store that `pipelines` is given it, and writes only if the stored head is that very
   * head (and the thread has not expired), not merely one of its version. So a write that failed,
   * or another writer's that landed first (a stop request from another instance), fails every
   * write sent behind it, and a claim on a head another instance replaced changes nothing.
   */
  readonly follows?: ThreadHead
  /**
   * A run's events, for the store's own run event log, when that log says `inCommits`: written in
   * the same atomic write, and only if the head is. The release carries the run's last ones
   * (through its RUN_FINISHED), so no reader sees a run finish whose release did not land: they end
   * the run's log (`final`, unless it is `false`). A run's other writes carry the events its log
   * had not yet sent (`final: false`), saving the log a write of its own.
   */
  readonly events?: { readonly runId: string; readonly events: readonly LoggedEvent[]; readonly final?: boolean }
}

export interface ThreadStore {
  /** What telemetry and the devtools call this store (`memory`, `redis`, `postgres`). */
  readonly name?: string
  /**
   * The store honours `ThreadCommit.follows`: a run may send a write before the one it follows is
   * answered (one round trip for both, on a pipelining client), and the handler keeps the threads
   * it wrote last with their history (thread/threadCache.ts). Without it, each write waits for
   * the last, and every turn reads its head and history.
   */
  readonly pipelines?: boolean
  /**
   * Where runs' events are kept for readers that (re)attach, from any instance sharing the store.
   * A store without one keeps them in this process only.
   */
  readonly events?: RunEventLog
  /**
   * Where the files tools return are kept, beside the threads, for every instance sharing the
   * store; the handler uses it unless given `attachments`. A store without one (memory) leaves
   * them in this process.
   */
  readonly attachments?: AttachmentStore
  /** The thread's head, or `undefined` when it does not exist (or expired). */
  head(threadId: string): Promise<ThreadHead | undefined>
  /** Stored messages from index `from` (inclusive) to `to` (exclusive), oldest first. */
  messages(threadId: string, from: number, to: number): Promise<readonly ThreadMessage[]>
  /**
   * Stores `commit.head` and appends `commit.append`, atomically, if the stored head still has
   * version `commit.head.version - 1` (none stored, for version 1). Returns `false` on a
   * conflict, changing nothing.
   */
  commit(commit: ThreadCommit): Promise<boolean>
  /** The thread's decision records, oldest first (append-only: never changed once stored). */
  decisions(threadId: string): Promise<readonly DecisionRecord[]>
  /**
   * Resolves once the thread's head may no longer be at `version` (a commit on any instance sharing
   * the store woke it, or a look found it changed), after at most `timeoutMs`, or when `signal`
   * aborts. It only says "look now": the caller reads the head. A store without it is polled.
   */
  watch?(threadId: string, version: number, timeoutMs: number, signal: AbortSignal): Promise<void>
}

/** How often a thread's watcher looks at its head when nothing wakes it (no channel, or one that is down). */
export const THREAD_WATCH_POLL_MS = 1000

/** The wakeup key of a thread's commits (run ids start with `run_`, so none is ever this). */
export function threadWakeKey(threadId: string): string {
  return `thread:${threadId}`
}

/** One event of a run as it went out: its number in the run and its JSON text. */
export interface LoggedEvent {
  readonly seq: number
  readonly data: string
}

/**
 * The events of each run, kept while it streams and a while after it ends, so a client whose
 * connection dropped (or that reloaded, or that reaches another instance) reads the rest of the
 * run: the events it missed, then the live ones. The runtime gives every call the run's thread
 * (`threadId`), so a log may keep a run beside its thread (Redis keeps it in the thread's hash
 * slot, where the release's script can end it); a log must still find a run written with its
 * thread when read by its id alone (a TanStack rejoin), and may ignore the argument.
 */
export interface RunEventLog {
  /**
   * The thread store this log belongs to writes `ThreadCommit.events` into it, in the commit's
   * atomic write: a run's writes carry the events not yet logged, its release its last events (one
   * round trip for both). Events may
   * then arrive twice (a batch still on its way), and a log that says so keeps the first of a `seq`.
   * A store that wraps another and hands on its log must hand `ThreadCommit.events` on to its commit.
   */
  readonly inCommits?: boolean
  /**
   * Mints the id of a new run of `threadId` (`run_` then 1 to 64 letters, digits, `_` or `-`, and
   * unguessable), for a log that finds a run by its id alone more cheaply when it chose the id (Redis
   * mints ids that hash to their thread's slot, so a run needs no index from its id to its thread).
   * Without it, run ids are random.
   */
  newRunId?(threadId: string): string
  /**
   * Appends events in `seq` order (one writer per run: the run itself). `final` marks the run's
   * last batch; its log may then be dropped after the store's retention time.
   */
  append(runId: string, events: readonly LoggedEvent[], final: boolean, threadId?: string): Promise<void>
  /**
   * The events after `after`, in order, at most `limit` of them when given (`ended` is then true
   * only when the run's last event is among them); `undefined` when the log holds nothing of the
   * run (none yet, or expired).
   */
  read(runId: string, after: number, limit?: number, threadId?: string): Promise<{ readonly events: readonly LoggedEvent[]; readonly ended: boolean } | undefined>
  /** Resolves once events after `after` may have arrived, after at most `timeoutMs`, or when `signal` aborts. */
  wait(runId: string, after: number, timeoutMs: number, signal: AbortSignal, threadId?: string): Promise<void>
}

/**
 * `store` with its writes sent through `commit` and everything else handed on as it is: how a
 * store is watched or faulted from outside (the thread cache observes commits; the conformance kit
 * injects failures) without either copying the contract's members.
 */
export function withCommit(store: ThreadStore, commit: ThreadStore['commit']): ThreadStore {
  const wrapped: { -readonly [K in keyof ThreadStore]: ThreadStore[K] } = {
    head: (threadId) => store.head(threadId),
    messages: (threadId, from, to) => store.messages(threadId, from, to),
    decisions: (threadId) => store.decisions(threadId),
    commit,
  }
  if (store.name !== undefined) wrapped.name = store.name
  if (store.pipelines !== undefined) wrapped.pipelines = store.pipelines
  if (store.events !== undefined) wrapped.events = store.events
  if (store.attachments !== undefined) wrapped.attachments = store.attachments
  if (store.watch) wrapped.watch = (threadId, version, timeoutMs, signal) => store.watch!(threadId, version, timeoutMs, signal)
  return wrapped
}
