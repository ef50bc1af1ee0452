import type { RunFailure } from '../../protocol/thread.ts'
import type { ThreadAssistantMessage, ThreadMessage, ThreadToolMessage, ThreadUserMessage } from '../../protocol/messages.ts'
import { inCallOrder } from './results.ts'
import { answeredByMessage, rememberResolved } from './step.ts'
import type { Recovery } from './recovery.ts'
import type { ThreadChange } from './thread.ts'
import type { ActiveRun, DecisionTip, OpenStep, ThreadHead } from './threadStore.ts'
import type { DecisionRecord, Grant, Principal } from '../../protocol/decisions.ts'

// Every way a thread's head changes, as pure functions `(head, input) => change`, in the manner of
// TanStack Query's reducer: the claims and the run decide which event happened and pick one of
// these; none of them assembles a head itself. The thread writer (writer/) writes the result with
// one compare-and-set. Whatever needs I/O (settling interrupts, checking answers, the time) is
// done by the caller and passed in, so each transition is tested as data in, data out.

/** How a claimed run begins. */
export interface RunStart {
  /** Model calls already made in this turn. */
  readonly steps: number
  /** Results stored before the run (denials of superseded interrupts), for the client to see. */
  readonly announced?: readonly ThreadToolMessage[]
  /** The thread's open step is fully answered: settle it before the model continues. */
  readonly resume?: boolean
  /** Calls of idempotent tools a crash cut off: run them again, under the same ids, before the model continues. */
  readonly rerun?: readonly string[]
  /** The user's message, stored once the re-run calls have settled their step. */
  readonly message?: ThreadMessage
  /** An MCP App's own call (claim/appCall.ts), planned as a step of its own; the run ends with its result. */
  readonly appCall?: ThreadAssistantMessage
}

/** A change that claims the thread for a run, and how that run begins. */
export interface Claim extends ThreadChange {
  readonly start: RunStart
}

/** What the user's new message does to the interrupts it supersedes (`settleInterrupts(..., 'supersede')`). */
export interface Superseded {
  /** The step's message, with any approved edits written into its calls. */
  readonly message: OpenStep['message']
  readonly results: readonly ThreadToolMessage[]
  /** What became of the interrupts that still waited (superseded, expired), as records. */
  readonly decided?: Decided
}

/** The thread's lease, taken by run `runId` at `now`; its history until then is `fromMessage` messages long. */
export function lease(runId: string, fromMessage: number, now: number, resumed = false): ActiveRun {
  // Two literals, not one with a conditional spread: a lease is made per turn.
  return resumed ? { runId, startedAt: now, renewedAt: now, fromMessage, resumed: true } : { runId, startedAt: now, renewedAt: now, fromMessage }
}

/** How many messages the thread holds once its open step is stored: the step's message and a result per call. */
export function storedSize(head: Pick<ThreadHead, 'messageCount' | 'step'>): number {
  return head.messageCount + (head.step ? 1 + head.step.message.toolCalls.length : 0)
}

/**
 * A user's message claims the thread. What a lost run left is settled first (`recovery`), and the
 * open step's interrupts are denied as superseded (`superseded`). Calls of idempotent tools a crash
 * cut off run again first: the step stays open for them, and the message is stored after it.
 * Otherwise the step joins the history with its results, then the message.
 */
export function claimForMessage(
  head: ThreadHead,
  input: {
    readonly runId: string
    readonly user: ThreadUserMessage
    readonly by: Principal
    readonly recovery: Recovery
    readonly superseded: Superseded | undefined
    readonly now: number
  },
): Claim {
  const { runId, user, by, recovery, superseded, now } = input
  const { step } = recovery
  const settled = superseded?.results ?? []
  // Results the client sent as `tool` messages it holds already: not streamed back.
  const sent = answeredByMessage(step?.interrupts ?? [])
  const announced = [...recovery.results, ...settled.filter((result) => !sent.has(result.toolCallId))]
  const resolvedInterruptIds = step ? rememberResolved(head.resolvedInterruptIds, step.interrupts) : undefined
  const { rerun } = recovery
  if (step && rerun.length > 0) {
    const open: OpenStep = { ...step, message: superseded?.message ?? step.message, results: [...step.results, ...settled], interrupts: [] }
    return {
      head: { step: open, lastRunError: undefined, activeRun: lease(runId, head.messageCount, now, true), resolvedInterruptIds: resolvedInterruptIds!, turnBy: by, ...chained(superseded) },
      append: [],
      ...records(superseded),
      start: { steps: 0, announced, rerun, message: user },
    }
  }
  const closed = step ? [superseded?.message ?? step.message, ...inCallOrder(superseded?.message ?? step.message, [...step.results, ...settled])] : []
  const append = [...recovery.append, ...closed, user]
  return {
    head: { step: undefined, lastRunError: undefined, activeRun: lease(runId, head.messageCount + append.length, now), ...(resolvedInterruptIds ? { resolvedInterruptIds } : {}), turnBy: by, ...chained(superseded) },
    append,
    ...records(superseded),
    start: { steps: 0, announced },
  }
}

/** An MCP App's call claims an idle thread with nothing waiting: its run plans the call as a step of its own, for `by`. */
export function claimForAppCall(head: ThreadHead, input: { readonly runId: string; readonly call: ThreadAssistantMessage; readonly by: Principal; readonly now: number }): Claim {
  return { head: { lastRunError: undefined, activeRun: lease(input.runId, head.messageCount, input.now), turnBy: input.by }, append: [], start: { steps: 0, appCall: input.call } }
}

/** A new thread, claimed by the run that answers its first message. */
export function claimNewThread(input: { readonly runId: string; readonly user: ThreadUserMessage; readonly by: Principal; readonly now: number }): Claim {
  return { head: { lastRunError: undefined, activeRun: lease(input.runId, 1, input.now), turnBy: input.by }, append: [input.user], start: { steps: 0 } }
}

/** Decision records a change writes, chained after the head's (`chainDecisions`): the head keeps their new tip. */
export interface Decided {
  readonly records: readonly DecisionRecord[]
  readonly tip: DecisionTip
  /** The thread's grants once these decisions made theirs. */
  readonly grants?: readonly Grant[]
}

function chained(decided: { readonly decided?: Decided | undefined } | undefined): { decisions?: DecisionTip; grants?: readonly Grant[] } {
  const given = decided?.decided
  if (!given || given.records.length === 0) return {}
  return { decisions: given.tip, ...(given.grants ? { grants: given.grants } : {}) }
}

function records(decided: { readonly decided?: Decided | undefined } | undefined): { decisions?: readonly DecisionRecord[] } {
  return decided?.decided && decided.decided.records.length > 0 ? { decisions: decided.decided.records } : {}
}

/** Answers stored while others of the step still wait: the thread stays unclaimed. Their decisions are recorded with them. */
export function recordAnswers(_head: ThreadHead, input: { readonly recovery: Recovery; readonly step: OpenStep; readonly decided?: Decided }): ThreadChange {
  return { head: { step: input.step, ...chained(input) }, append: input.recovery.append, ...records(input) }
}

/**
 * The step's last answers (or, for a step whose run was lost, its stored ones) claim the thread:
 * the run settles the step, then the model continues.
 */
export function claimForResume(
  head: ThreadHead,
  input: { readonly runId: string; readonly recovery: Recovery; readonly step: OpenStep; readonly decided?: Decided; readonly now: number },
): Claim {
  const { runId, recovery, step, now } = input
  return {
    head: { step, lastRunError: undefined, activeRun: lease(runId, head.messageCount + recovery.append.length, now, true), ...chained(input) },
    append: recovery.append,
    ...records(input),
    start: { steps: step.steps, resume: true, announced: recovery.results },
  }
}

/** Expired approvals the app's `onExpired` sent to other reviewers: the step stays open on them, with their new expiry. */
export function escalate(_head: ThreadHead, input: { readonly recovery: Recovery; readonly step: OpenStep; readonly decided: Decided }): ThreadChange {
  return { head: { step: input.step, ...chained(input) }, append: input.recovery.append, ...records(input) }
}

/** A stop asked of a run another instance holds: that run finds it in the head and stops. */
export function requestStop(_head: ThreadHead, input: { readonly runId: string }): ThreadChange {
  return { head: { stopRequested: input.runId } }
}

/**
 * A reader found the thread's run dead: a new run takes its turn over from the last stored step.
 * A step still waiting for people is theirs to answer: the thread is released instead (no `start`).
 */
export function takeOver(
  head: ThreadHead,
  input: { readonly runId: string; readonly recovery: Recovery; readonly now: number },
): ThreadChange & { readonly start?: RunStart } {
  const { runId, recovery, now } = input
  const { step } = recovery
  if (step && step.interrupts.length > 0) return { head: { step, activeRun: undefined, stopRequested: undefined }, append: recovery.append }
  const messageCount = head.messageCount + recovery.append.length
  return {
    head: { step, lastRunError: undefined, activeRun: lease(runId, messageCount, now, step !== undefined), stopRequested: undefined },
    append: recovery.append,
    start: { steps: step?.steps ?? 0, announced: recovery.results, rerun: recovery.rerun },
  }
}

/** The run's heartbeat: it still holds the thread. */
export function renewLease(head: ThreadHead, input: { readonly now: number }): ThreadChange {
  return { head: { activeRun: renewedLease(head, input.now) } }
}

function renewedLease(head: ThreadHead, now: number): ActiveRun | undefined {
  const run = head.activeRun
  if (!run) return undefined
  // Key by key (see `fieldsChange`): every write of a run renews its lease.
  const renewed: { -readonly [K in keyof ActiveRun]: ActiveRun[K] } = { runId: run.runId, startedAt: run.startedAt, renewedAt: now, fromMessage: run.fromMessage }
  if (run.resumed) renewed.resumed = true
  return renewed
}

/** A head change's keys, as a run's writes make it. */
type HeadChange = { -readonly [K in keyof ThreadChange['head']]: ThreadChange['head'][K] }

/**
 * The step fields given, as a head change with the run's lease (a key given as `undefined` clears
 * it; one not given is kept). One literal of its keys, not `{ ...fields, key }` (on Node 20 a
 * literal that goes on after a spread is made by the runtime) nor keys added to `{}` one by one: a
 * run writes two or three times a turn.
 */
function fieldsChange(fields: StepFields | undefined, activeRun: ActiveRun | undefined): HeadChange {
  const withIds = fields !== undefined && 'resolvedInterruptIds' in fields
  if (fields !== undefined && 'step' in fields) return withIds ? { step: fields.step, resolvedInterruptIds: fields.resolvedInterruptIds, activeRun } : { step: fields.step, activeRun }
  return withIds ? { resolvedInterruptIds: fields.resolvedInterruptIds, activeRun } : { activeRun }
}

/** `fieldsChange` for the run's release: the lease, a stop request cleared, the run's failure set. */
function releaseChange(fields: StepFields | undefined, lastRunError: ThreadHead['lastRunError']): HeadChange {
  const withIds = fields !== undefined && 'resolvedInterruptIds' in fields
  if (fields !== undefined && 'step' in fields) {
    return withIds
      ? { step: fields.step, resolvedInterruptIds: fields.resolvedInterruptIds, activeRun: undefined, stopRequested: undefined, lastRunError }
      : { step: fields.step, activeRun: undefined, stopRequested: undefined, lastRunError }
  }
  return withIds ? { resolvedInterruptIds: fields.resolvedInterruptIds, activeRun: undefined, stopRequested: undefined, lastRunError } : { activeRun: undefined, stopRequested: undefined, lastRunError }
}

/** What a run writes as it goes: the open step (or none, once it joined the history) and the interrupts it resolved. */
export interface StepFields {
  readonly step?: OpenStep | undefined
  readonly resolvedInterruptIds?: readonly string[]
}

/** The run stores its progress (messages it appended, the open step, calls it ran under grants); the write renews its lease. */
export function saveStep(
  head: ThreadHead,
  input: { readonly fields: StepFields; readonly append: readonly ThreadMessage[]; readonly now: number; readonly decided?: Decided | undefined },
): ThreadChange {
  const { fields, append, now, decided } = input
  // Without decisions (nearly every save) no records or tip to chain: no objects made for them.
  const change = fieldsChange(fields, renewedLease(head, now))
  if (!decided || decided.records.length === 0) return { head: change, append }
  return { head: Object.assign(change, chained(input)), append, ...records(input) }
}

/** A grant is revoked: later calls it covered ask again. */
export function revokeGrant(head: ThreadHead, input: { readonly grantId: string }): ThreadChange {
  return { head: { grants: (head.grants ?? []).filter((grant) => grant.id !== input.grantId) } }
}

/**
 * The run is over: it stores what it appended and lets the thread go. The run passes the step as
 * it last set it (`fields`), whatever of its saves failed, so what it appended (a step and the
 * results of calls that ran) and the open step agree: a call that ran is stored as ran, never left
 * listed as running, and a call whose running mark failed (it never started) is not listed either.
 */
export function release(
  head: ThreadHead,
  input: { readonly append: readonly ThreadMessage[]; readonly fields?: StepFields | undefined; readonly failure?: Omit<RunFailure, 'runId'> | undefined },
): ThreadChange {
  const runId = head.activeRun?.runId
  const lastRunError = input.failure && runId ? { runId, ...input.failure } : undefined
  return { head: releaseChange(input.fields, lastRunError), append: input.append }
}

/**
 * A stop while calls wait for answers, or their expiry: each waiting call gets its result
 * (`settled`: cancelled or expired), the step joins the history with them, and the thread is idle.
 */
export function cancelStep(
  head: ThreadHead,
  input: { readonly recovery: Recovery; readonly step: OpenStep; readonly settled: Superseded; readonly decided: Decided },
): ThreadChange {
  const { recovery, step, settled, decided } = input
  const results = inCallOrder(settled.message, [...step.results, ...settled.results])
  return {
    head: { step: undefined, resolvedInterruptIds: rememberResolved(head.resolvedInterruptIds, step.interrupts), ...chained({ decided }) },
    append: [...recovery.append, settled.message, ...results],
    ...records({ decided }),
  }
}
