import { ANONYMOUS, summaryOf, type DecisionDraft } from '../decisions/records.ts'
import { requestReviews } from '../decisions/approvalRequests.ts'
import { watchExpiry } from './expiry.ts'
import type { DecisionSummary } from '../../protocol/decisions.ts'
import type { Execution } from './callPlan.ts'
import type { RunStart, StepFields } from '../thread/transitions.ts'
import { inCallOrder, errorResult, successResult } from '../thread/results.ts'
import { Run, RunStopped } from './Run.ts'
import type { TokenUsage } from '../../protocol/events.ts'
import type { RunOutcome } from '../../protocol/interrupts.ts'
import type { LastEvents } from '../events/liveStream.ts'
import { runOutcome } from './outcome.ts'
import { sendSnapshot, threadAsAgUi } from '../events/messagesSnapshot.ts'
import type { ThreadAssistantMessage, ThreadToolMessage } from '../../protocol/messages.ts'
import type { RunFailure } from '../../protocol/thread.ts'
import { StoreConflictError, reportError, runErrorOf } from '../errors.ts'
import { asked, byDelegation, decisionsOf, settleInterrupts, withDecision } from './interrupts.ts'
import { inputInterrupt } from './inputInterrupts.ts'
import type { ToolInputRequest } from '../../tools/inputRequest.ts'
import { answeredByMessage, rememberResolved } from '../thread/step.ts'
import { modelStep } from './modelStep.ts'
import { retry, sleep } from '../../util/retry.ts'
import { executeToolCallsNow, planToolCallsNow, rerunPlan, startsUnmarked, type Plan } from './toolCalls.ts'
import { isAgentCall, resumedAgents, runAgentCalls } from './subagent.ts'
import { outputHook } from './outputHook.ts'
import type { OpenStep, StoredInterrupt, ThreadHead } from '../thread/threadStore.ts'

/**
 * A run from start to end: stream the model, handle its tool calls, repeat until it answers, pauses
 * on interrupts, or reaches `maxSteps`. The run already holds its thread; whatever happens, it
 * releases it and leaves the stored thread consistent.
 */
export async function driveRun(run: Run, start: RunStart, snapshot?: readonly string[], last?: LastEvents): Promise<void> {
  const { events } = run
  events.started()
  try {
    const loading = run.load()
    if (loading) await loading
    // An AG-UI client that was behind gets the stored thread first (results announced here are in it).
    if (snapshot) sendSnapshot(events, threadAsAgUi(run.messages, run.head, start.message ? [start.message] : []), snapshot)
    else for (const result of start.announced ?? []) events.result(result)
    const paused = await drive(run, start)
    // A write the run did not wait for fails the run as a save would have: before the release, so
    // the release records the failure.
    run.throwIfUnsaved()
    const outcome = runOutcome(run.config, paused ?? [])
    const usage = usageOf(run)
    await finish(run, outcome, usage, last)
    run.trace?.end({ outcome: paused ? 'interrupt' : run.signal.aborted ? 'stopped' : 'success', usage })
  } catch (error) {
    await fail(run, error)
  } finally {
    run.close()
  }
}

/**
 * Lets the thread go and tells the run finished. With `last` (a log its store writes with commits),
 * RUN_FINISHED is held back and carried by the release, in one write: told once that lands, never
 * if it fails (the run fails instead).
 */
function finish(run: Run, outcome: RunOutcome, usage: TokenUsage | undefined, last: LastEvents | undefined): Promise<void> {
  // Not async: one reaction to the release, not an async function's promise besides.
  const { events } = run
  if (!last) {
    return run.writeRelease().then(() => {
      // One the release was sent behind failed: the release landed on what that one wrote, so it did too; the run fails as it would have.
      run.throwIfUnsaved()
      events.finished(outcome, usage)
    })
  }
  events.stepEnded()
  last.hold()
  events.finished(outcome, usage)
  return run.writeRelease(undefined, last).then(
    () => last.logged(),
    (error: unknown) => {
      last.dropped()
      events.unfinished()
      throw error
    },
  )
}

/** Returns the interrupts the run pauses on, if any. */
async function drive(run: Run, start: RunStart): Promise<readonly StoredInterrupt[] | undefined> {
  let steps = start.steps
  if (start.resume) {
    const { app } = run.head.step!
    const paused = await settleStep(run, run.head.step!)
    // An MCP App's call answers the app, not the model: its run ends with its result.
    if (paused.length > 0 || app) return paused
  }
  if (start.appCall) return appCallStep(run, start.appCall)
  if (start.rerun && start.rerun.length > 0) {
    const step = run.head.step!
    const plan = await rerunPlan(step, start.rerun, run.config.tools, run.failures)
    for (const result of plan.results) run.events.result(result)
    const paused = await runAndStore(run, { ...step, results: [...step.results, ...plan.results], running: [] }, plan.executions, [])
    if (paused.length > 0) return paused
  }
  if (start.message) {
    run.append(start.message)
    await run.save()
  }
  while (steps < run.config.maxSteps && !run.signal.aborted) {
    run.ensureRoom(1) // no model call whose answer could not be stored
    const { message: streamed, error } = await modelStep(run)
    // The last step's write, on its way while the model ran, failed (and aborted this call): what it said is not kept.
    run.throwIfUnsaved()
    steps += 1
    // Without middleware nothing here waits (as in modelStep): no hook to await.
    const message = streamed && !error && !run.signal.aborted && run.middleware.any ? await run.middleware.modelResponse(streamed) : streamed
    if (error || run.signal.aborted) {
      // The model failed or the client left mid-step: what it said is kept, its calls will not run.
      if (message) {
        run.ensureRoom(1 + message.toolCalls.length)
        appendWithResults(run, error ? message : stoppedIfSo(run, message), [], error ? FAILED_BEFORE_FINISH : STOPPED_BEFORE_RUN)
      }
      if (error) throw error
      return undefined
    }
    if (!message) return undefined
    // The step is stored only with room for a result of each call, so every call can be answered.
    run.ensureRoom(1 + message.toolCalls.length)
    if (message.toolCalls.length === 0) {
      run.append(message)
      return undefined
    }
    const paused = await handleToolCalls(run, message, steps)
    if (paused.length > 0) return paused
  }
  return undefined
}

/** An MCP App's call (claim/appCall.ts), told as the model's calls are, then planned and run as a step of its own. */
function appCallStep(run: Run, message: ThreadAssistantMessage): Promise<StoredInterrupt[]> {
  run.ensureRoom(1 + message.toolCalls.length)
  run.events.stepStarted(message.id)
  for (const call of message.toolCalls) {
    run.events.toolCallStart(call.id, call.name)
    run.events.toolCallArgs(call.id, call.arguments)
    run.events.toolCallEnd(call.id)
  }
  return handleToolCalls(run, message, 0, true)
}

/** Plans a step's calls, runs the server tools among them, and stores the step: closed, or open on its interrupts. */
function handleToolCalls(run: Run, message: ThreadAssistantMessage, steps: number, app?: true): Promise<StoredInterrupt[]> {
  // Not async (nor `planCalls`): a step whose plan waits for nothing hands on runAndStore's own promise.
  // Grants as stored now (read only when the run's head has any): a call planned after a revoke asks again.
  if (run.head.grants?.length) return run.grants().then((grants) => planCalls(run, message, steps, app, grants))
  return planCalls(run, message, steps, app, undefined)
}

function planCalls(run: Run, message: ThreadAssistantMessage, steps: number, app: true | undefined, grants: ThreadHead['grants']): Promise<StoredInterrupt[]> {
  const planned = planToolCallsNow(message.toolCalls, run.config.tools, run.context, run.failures, { threadId: run.head.id, requester: run.head.turnBy ?? ANONYMOUS, grants, by: app && 'app' }, run.middleware.any ? (call, tool) => run.middleware.toolInput(call, tool) : undefined)
  if ('later' in planned) return planned.later.then((plan) => runPlan(run, message, steps, app, plan))
  return runPlan(run, message, steps, app, planned)
}

function runPlan(run: Run, message: ThreadAssistantMessage, steps: number, app: true | undefined, plan: Plan): Promise<StoredInterrupt[]> {
  for (const result of plan.results) run.events.result(result)
  const step: OpenStep = app ? { message, results: plan.results, interrupts: plan.interrupts, running: [], steps, app } : { message, results: plan.results, interrupts: plan.interrupts, running: [], steps }
  const granted = plan.granted.length === 0 ? NONE_DECIDED : new Map(plan.granted.map((draft) => [draft.toolCallId, summaryOf({ ...draft, seq: 0, previous: null, digest: '', shownDigest: '' })]))
  return runAndStore(run, step, plan.executions, [], granted, plan.granted)
}

/**
 * Applies the answers of a fully answered step; returns `client_tool` interrupts for approved
 * client tools. Calls of idempotent tools a crash cut off (left in `running` by `recoverLostRun`)
 * run again with the approved ones.
 */
async function settleStep(run: Run, answered: OpenStep): Promise<StoredInterrupt[]> {
  const rerun = await rerunPlan(answered, answered.running, run.config.tools, run.failures)
  // Calls of subagents are answered by continuing them: the calls of their agent tools run again (run/subagent.ts).
  const { own, delegated } = byDelegation(answered.interrupts, 0)
  const resumed = resumedAgents(run.config.tools, answered, delegated)
  const settlement = await settleInterrupts(answered.message, own, run.config.tools, 'resume', run.failures)
  const decided = decisionsOf(answered.interrupts)
  const settled = [...rerun.results, ...settlement.results, ...resumed.results].map((result) => withDecision(result, decided))
  const sent = run.events.snapshotSent ? new Set<string>() : answeredByMessage(answered.interrupts)
  for (const result of settled) if (!sent.has(result.toolCallId)) run.events.result(result)
  const step: OpenStep = {
    ...answered,
    message: settlement.message,
    results: [...answered.results, ...settled],
    interrupts: settlement.interrupts,
    running: [],
    subagents: undefined,
  }
  return runAndStore(run, step, [...rerun.executions, ...settlement.executions, ...resumed.executions], answered.interrupts, decided)
}

const NO_AGENTS: readonly Execution[] = []
const NO_WAITS: readonly StoredInterrupt[] = []

/** No call decided by anyone: one map for every step without a grant or an answered approval (never written to). */
const NONE_DECIDED: ReadonlyMap<string, DecisionSummary> = new Map()


/**
 * Runs `executions` and stores the step. The calls are recorded as running before they start, so
 * a crash mid-call is never taken for a call that did not run. A step that still waits for
 * answers stays open; one whose every call has a result joins the history with its results.
 */
async function runAndStore(
  run: Run,
  step: OpenStep,
  executions: readonly Execution[],
  resolved: readonly StoredInterrupt[],
  decided: ReadonlyMap<string, DecisionSummary> = NONE_DECIDED,
  drafts: readonly DecisionDraft[] = [],
): Promise<StoredInterrupt[]> {
  // Only a step that resolved interrupts writes the list: `run.head` may not yet hold what a write
  // still to be made (a closed step's, merged with this one) sets.
  const remembered = resolved.length > 0 ? rememberResolved(run.head.resolvedInterruptIds, resolved) : undefined
  // Calls run under a grant are recorded with the write that marks them running: before they run.
  // Calls of read-only tools need no mark (a crash repeats a read): they start while it is on its
  // way, and with every call read-only it is made only to carry what else the step writes.
  let unmarked = 0
  for (const execution of executions) if (startsUnmarked(execution)) unmarked++
  let marked: Promise<void> | undefined
  if (executions.length > 0 && (unmarked < executions.length || remembered || drafts.length > 0)) {
    marked = run.save(stepFields(withRunning(step, executions.map((execution) => execution.toolCallId)), remembered), drafts)
    if (unmarked === 0) {
      await marked
      marked = undefined
    }
  }
  // Agent tools' calls run their subagents (run/subagent.ts), once the mark is stored.
  const agents = executions.some(isAgentCall) ? executions.filter(isAgentCall) : NO_AGENTS
  const delegating = agents.length === 0 ? undefined : (marked ?? Promise.resolve()).then(() => runAgentCalls({ run, events: run.events, trace: run.trace, path: [], messageId: step.message.id }, agents, decided))
  // Awaited only after the other calls: a failure of theirs first (the mark both wait for) would
  // leave its rejection unobserved, and Node ends a process on one by default.
  delegating?.catch(() => {})
  // Calls that asked a person for input: no result yet, an interrupt instead (run/inputInterrupts.ts).
  // Made by the first call that asks (most steps have none).
  let askedInput: Map<string, ToolInputRequest> | undefined
  const output = outputHook(run.middleware, decided)
  const executing = executeToolCallsNow(agents.length === 0 ? executions : executions.filter((execution) => !isAgentCall(execution)), {
    marked,
    signal: run.signal,
    whenAborted: (end) => run.whenAborted(end),
    context: run.context,
    timeoutMs: run.config.limits.toolTimeoutMs,
    maxOutputBytes: run.config.limits.maxMessageBytes,
    failures: run.failures,
    attachments: { store: run.config.attachments, threadId: run.head.id, maxBytes: run.config.limits.maxAttachmentBytes },
    onResult: (result) => askedInput?.has(result.toolCallId) || run.events.result(result),
    // Its span ends as the leg it was (it asked, and pauses), not as a failure.
    onInputRequired: (execution, request) => ((askedInput ??= new Map()).set(execution.toolCallId, request), successResult(execution, 'waits for a person\'s input')),
    trace: run.trace,
    // Without middleware or a decision to carry, a result goes out as the tool made it: no hook to await per call.
    onOutput: output && (async (result, execution) => (askedInput?.has(result.toolCallId) ? result : output(result, execution))),
  })
  // Calls that all answered at once come back now: nothing to await.
  const executed = executing.later ? await executing.later : executing.results
  const delegated = delegating ? await delegating : undefined
  const inputAsked = askedInput
  const own = !inputAsked ? executed : executed.filter((result) => !inputAsked.has(result.toolCallId))
  const results = delegated ? [...step.results, ...own, ...delegated.results] : [...step.results, ...own]
  const inputWaits = !inputAsked ? NO_WAITS : [...inputAsked].map(([toolCallId, request]) => inputInterrupt(executions.find((execution) => execution.toolCallId === toolCallId)!, request, run.head.turnBy))
  const waiting = (delegated && delegated.interrupts.length > 0) || inputWaits.length > 0 ? [...step.interrupts, ...(delegated?.interrupts ?? []), ...inputWaits] : step.interrupts
  if (waiting.length > 0) {
    const interrupts = asked(waiting, run.config.limits.interruptTtlMs, run.trace?.traceparent)
    // Subagents that wait are stored with the step, through the run's writer: any instance continues them.
    const subagents = delegated && delegated.subagents.length > 0 ? delegated.subagents : undefined
    await run.save(stepFields({ ...step, results, interrupts, running: [], subagents }, remembered))
    void requestReviews(run.config, run.head.id, interrupts)
    watchExpiry(run.config, run.head.id, interrupts)
    run.middleware.throwIfFailed()
    return interrupts
  }
  run.append(stoppedIfSo(run, step.message), ...inCallOrder(step.message, results))
  // The closed step is on its way while the next model call runs (the run's writes land in order,
  // the next one behind it; a call that needs no I/O ends first and its write carries this one): a
  // crash before it lands leaves its calls reported as interrupted, never run again; if it fails,
  // the model call is aborted and the run fails.
  run.send(stepFields(undefined, remembered))
  run.middleware.throwIfFailed() // the step is sent whole; then a failed toolOutput hook ends the run
  return []
}

/** The step's fields to write, with the interrupts it resolved when it resolved some: one literal, not `{ step, ...remembered }`. */
function stepFields(step: OpenStep | undefined, resolvedInterruptIds: readonly string[] | undefined): StepFields {
  return resolvedInterruptIds ? { step, resolvedInterruptIds } : { step }
}

/**
 * `step` with the calls now `running`: one literal of its keys (those it lacks stay absent), not
 * `{ ...step, running }` (on Node 20 a literal that goes on after a spread is made by the runtime,
 * slowly) nor Object.assign onto `{}` (which grows an empty object key by key past its in-object slots).
 */
function withRunning(step: OpenStep, running: readonly string[]): OpenStep {
  const marked: { -readonly [K in keyof OpenStep]: OpenStep[K] } = { message: step.message, results: step.results, interrupts: step.interrupts, running, steps: step.steps }
  if ('app' in step) marked.app = step.app
  if ('subagents' in step) marked.subagents = step.subagents
  return marked
}

/** A step the user stopped is stored saying so, so a reloaded page can mark it as the live one did. */
function stoppedIfSo(run: Run, message: ThreadAssistantMessage): ThreadAssistantMessage {
  // `aborted` first: the signal's reason is a slower read, and a run that goes on has none.
  return run.signal.aborted && run.signal.reason instanceof RunStopped ? { ...message, stopped: true } : message
}

const STOPPED_BEFORE_RUN = 'The run stopped before this call ran'
const FAILED_BEFORE_FINISH = 'The run failed before this call finished'

/** Adds a step to the history with its results, answering every call without one with `error`. */
function appendWithResults(run: Run, message: ThreadAssistantMessage, results: readonly ThreadToolMessage[], error: string): void {
  const settled = new Set(results.map((result) => result.toolCallId))
  const missing = message.toolCalls
    .filter((call) => !settled.has(call.id))
    .map((call) => errorResult({ toolCallId: call.id, toolName: call.name }, error))
  for (const result of missing) run.events.result(result)
  run.append(message, ...inCallOrder(message, [...results, ...missing]))
}

/**
 * Ends the run with RUN_ERROR, releasing the thread as it stands (it is consistent between
 * steps). The full error goes to `onError` (or the server log) once; the browser gets a message
 * that names no provider text, host or key.
 */
async function fail(run: Run, error: unknown): Promise<void> {
  report(run, error)
  const { code, message } = runErrorOf(error)
  if (!(error instanceof StoreConflictError)) await releaseAfterFailure(run, { code, message })
  run.events.failed(code, message)
  run.trace?.end({ outcome: 'error', usage: usageOf(run), error: { code, message } })
}

/**
 * Lets the thread go after a failed run, with the run's failure for a reloaded page to read,
 * trying again while the store fails; a lost thread (another run took it) is not retried. After
 * the first few attempts the run's reader is told of the failure, and the attempts go on in the
 * background until the lease lapses: a thread stays held no longer than the store stays down.
 */
async function releaseAfterFailure(run: Run, failure: Omit<RunFailure, 'runId'>): Promise<void> {
  const until = Date.now() + run.config.limits.runLeaseMs
  const attempts = (first: number, count: number) =>
    retry(() => run.writeRelease(failure), {
      attempts: count,
      // 100 ms, 500 ms, then every 2 s: a store blip should not hold the thread for the whole lease.
      delay: (attempt) => RELEASE_RETRY_MS[Math.min(first + attempt - 1, RELEASE_RETRY_MS.length - 1)]!,
      retryable: (error) => !(error instanceof StoreConflictError),
      until,
    })
  const gaveUp = (error: unknown) => console.error('[toolgate] could not release the thread after a failed run:', error)
  try {
    return await attempts(0, RELEASE_RETRY_MS.length)
  } catch (error) {
    if (error instanceof StoreConflictError || Date.now() + RELEASE_RETRY_MS.at(-1)! >= until) return gaveUp(error)
  }
  void sleep(RELEASE_RETRY_MS.at(-1)!)
    .then(() => attempts(RELEASE_RETRY_MS.length, Number.POSITIVE_INFINITY))
    .catch(gaveUp)
}

/** Pauses between attempts to release the thread after a failed run. */
const RELEASE_RETRY_MS = [100, 500, 2000]

function report(run: Run, error: unknown): void {
  reportError(run.config, error, { threadId: run.head.id, runId: run.runId, source: 'run' })
}

function usageOf(run: Run): TokenUsage | undefined {
  const { usage } = run
  if (!usage.reported) return undefined
  const model = run.config.model.name
  // Set key by key (in the order RUN_FINISHED shows them), not spread from conditional literals.
  const totals: { -readonly [K in keyof TokenUsage]: TokenUsage[K] } = {}
  if (model) totals.model = model
  totals.inputTokens = usage.inputTokens
  totals.outputTokens = usage.outputTokens
  totals.totalTokens = usage.inputTokens + usage.outputTokens
  if (usage.cachedInputTokens > 0) totals.cachedInputTokens = usage.cachedInputTokens
  if (usage.reasoningTokens > 0) totals.reasoningTokens = usage.reasoningTokens
  return totals
}

