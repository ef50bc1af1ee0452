import type { ThreadMessage } from '../../protocol/messages.ts'
import type { RunOutcome } from '../../protocol/interrupts.ts'
import type { AgUiMessage } from '../../protocol/events.ts'
import { liveResponse, runEventStream, type LiveStream, type RunEventStream } from '../events/liveStream.ts'
import { appUris } from '../events/mcpAppActivity.ts'
import { RunEvents } from '../events/runEvents.ts'
import type { ChatConfig } from '../options.ts'
import type { RunStart } from '../thread/transitions.ts'
import type { StoredInterrupt, ThreadHead } from '../thread/threadStore.ts'
import { driveRun } from './driveRun.ts'
import { Run } from './Run.ts'
import { RunAbort } from './runAbort.ts'
import type { RunKind, RunTrace } from '../../telemetry/hooks.ts'

// Where every claim ends: the thread is held by `runId`; the run starts and outlives its request.
// Its events go to the run's log (for readers that (re)attach, on any instance) and, while the
// client that claimed it stays, to that request's response.

/** A run whose thread is claimed: its id, the head as the claim wrote it, and how it begins. */
export interface ClaimedRun {
  /** The request that claimed the thread (a reader's, for a takeover): the run's trace continues it. */
  readonly request: Request
  readonly kind: RunKind
  readonly runId: string
  readonly head: ThreadHead
  /** The stored history, when the claim has it (a new thread, or one read alongside the claim); else the run reads it. */
  readonly messages?: readonly ThreadMessage[]
  readonly context: unknown
  readonly start: RunStart
  /** The run begins with `MESSAGES_SNAPSHOT`: its AG-UI client's `messages` were behind the thread. These are the ids it holds. */
  readonly snapshot?: readonly string[]
}

/** Starts a claimed run and streams its events to the request that claimed it. A client that disconnects only detaches; `stop` ends the run. */
export function startRun(config: ChatConfig, claimed: ClaimedRun): Response {
  const { live, response } = liveResponse(claimed.request)
  launch(config, claimed, live)
  return response()
}

/** Starts a claimed run no request waits on (a takeover of a lost run): readers follow it through its log. */
export function startDetachedRun(config: ChatConfig, claimed: ClaimedRun): void {
  launch(config, claimed, undefined)
}

/**
 * A resume that leaves calls open, for an AG-UI client (it reads events, not a 202 body): a run
 * that starts and ends again on what is left (`outcome`: interrupts, or frontend calls). Its trace
 * is a run of its own (`partial_resume`), linked to the runs that asked what it `answered`.
 */
export function pausedRun(
  config: ChatConfig,
  request: Request,
  paused: { readonly threadId: string; readonly runId: string; readonly outcome: RunOutcome; readonly answered: readonly StoredInterrupt[] },
): Response {
  const { threadId, runId, outcome, answered } = paused
  config.devtools?.add(threadId, { runId, startedAt: Date.now(), kind: 'partial_resume' })
  const open = outcome.type === 'interrupt' ? outcome.interrupts.length : (outcome.pendingToolCallIds?.length ?? 0)
  const trace = config.telemetry?.run(request, {
    threadId,
    runId,
    kind: 'partial_resume',
    resumes: answered,
    open,
    model: config.model.name,
    store: config.store.name,
  })
  const { live, response } = liveResponse(request)
  const stream = runEventStream(config.eventLog, threadId, runId, live)
  const events = new RunEvents(threadId, runId, stream.sink, { timestamps: config.devtools !== undefined })
  events.started()
  events.finished(outcome)
  trace?.end({ outcome: outcome.type === 'interrupt' ? 'interrupt' : 'success', usage: undefined })
  stream.end()
  return response()
}

/** A run that only tells an AG-UI client where the thread stands: the stored thread, then what waits. */
export function snapshotRun(config: ChatConfig, threadId: string, runId: string, messages: readonly AgUiMessage[], outcome: RunOutcome, request: Request): Response {
  const { live, response } = liveResponse(request)
  const stream = runEventStream(config.eventLog, threadId, runId, live)
  const events = new RunEvents(threadId, runId, stream.sink, { timestamps: config.devtools !== undefined })
  events.started()
  events.messagesSnapshot(messages)
  events.finished(outcome)
  stream.end()
  return response()
}

function launch(config: ChatConfig, claimed: ClaimedRun, live: LiveStream | undefined): void {
  const { runId, head, start, kind } = claimed
  const abort = new RunAbort()
  config.liveRuns.set(runId, abort)
  config.devtools?.add(head.id, { runId, startedAt: Date.now(), kind })
  const trace = config.telemetry?.run(claimed.request, {
    threadId: head.id,
    runId,
    kind,
    resumes: start.resume ? (head.step?.interrupts ?? []) : [],
    model: config.model.name,
    store: config.store.name,
  })
  // A log the thread store writes with its commits: the run's writes carry the events it has not
  // sent, and the release the run's last events.
  const withCommits = config.eventLog.inCommits === true && config.store.events === config.eventLog
  const stream = runEventStream(config.eventLog, head.id, runId, live, withCommits)
  // Not awaited: the run outlives the request.
  runToEnd(config, claimed, stream, abort, trace)
}

/**
 * Drives the run to its end, then ends its event stream (the log completed, the live stream ended).
 * Not async: one reaction to the run's end, not an async function's promise and suspended frame
 * besides, held the whole run (at 32 turns at once, every young collection copied them).
 */
function runToEnd(config: ChatConfig, claimed: ClaimedRun, stream: RunEventStream, abort: RunAbort, trace: RunTrace | undefined): void {
  const { runId, head, messages, context, start } = claimed
  let driven: Promise<void>
  try {
    const events = new RunEvents(head.id, runId, stream.sink, { timestamps: config.devtools !== undefined, apps: appUris(config.tools) })
    // `messages` given as it is (none: the run reads it), not spread from a conditional literal after the keys: on Node 20 the runtime makes that literal, slowly.
    driven = driveRun(new Run({ config, runId, context, events, abort, head, trace, log: stream.last, messages }), start, claimed.snapshot, stream.last)
  } catch (error) {
    driven = Promise.reject(error)
  }
  const ended = () => {
    config.liveRuns.delete(runId)
    stream.end()
  }
  // A failure to end the stream is left unobserved, as the async function's rejection was.
  void driven.then(ended, (error: unknown) => {
    console.error('[toolgate] chat run failed:', error)
    ended()
  })
}
