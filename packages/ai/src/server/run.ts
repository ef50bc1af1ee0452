import type { TokenUsage } from '../protocol/events.ts'
import type { RunOutcome } from '../protocol/interrupts.ts'
import type { ThreadAssistantMessage, ThreadMessage, ThreadToolMessage } from '../protocol/messages.ts'
import type { ChatConfig } from './config.ts'
import { StoreConflictError, ThreadFullError, reportError, runErrorOf } from './errors.ts'
import type { RunEvents } from './events.ts'
import { rememberResolved, toWire, withExpiry } from './interrupts.ts'
import { modelStep, type UsageTotals } from './modelStep.ts'
import { jsonBytes } from '../util/jsonBytes.ts'
import { commitChange, isRunning, loadMessages, type ThreadChange } from './thread.ts'
import { errorResult, executeToolCalls, inCallOrder, planToolCalls, rerunPlan, settleInterrupts, successResult, type Execution, type ToolFailures } from './toolCalls.ts'
import type { ToolRegistry } from './toolRegistry.ts'
import { appContext } from './context.ts'
import { describeAttachment } from './attachments.ts'
import { RunMiddleware } from './middleware.ts'
import type { OpenStep, PendingInterrupt, ThreadHead } from './threadStore.ts'

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
}

/**
 * One run of a thread: its working copy (the head as last written, the history the model sees),
 * its event stream, and the lease that keeps other requests off the thread while it lives.
 * Writes go out one at a time; each renews the lease, and a heartbeat renews it while a slow
 * model or tool writes nothing. A run that finds its thread taken over stops.
 */
export class Run {
  readonly config: ChatConfig
  readonly runId: string
  readonly context: unknown
  readonly events: RunEvents
  /** Reports tools' and policies' unexpected errors, and words them for the model and browser. */
  readonly failures: ToolFailures
  /** Aborted when the run is stopped (here or through another instance) or loses its thread. */
  readonly signal: AbortSignal
  /** The app's middleware, bound to this run. */
  readonly middleware: RunMiddleware
  readonly usage: UsageTotals = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0, reported: false }
  /** The head as last written by this run. */
  head: ThreadHead
  /** The history the model sees: stored messages, then those appended and not yet written. */
  readonly messages: ThreadMessage[]
  #unsaved: ThreadMessage[] = []
  #loaded: boolean
  #writes: Promise<unknown> = Promise.resolve()
  /**
   * One controller behind `signal`, whatever aborts it: the caller (a stop asked of this
   * instance), a stop asked of another instance (it says so in the head), or the thread lost to
   * another writer.
   */
  readonly #abort: AbortController
  /** Set once another writer took the thread: every later write fails with it. */
  #lost: StoreConflictError | undefined
  readonly #heartbeat: ReturnType<typeof setInterval>
  readonly #stopCheck: ReturnType<typeof setInterval>

  constructor(options: {
    config: ChatConfig
    runId: string
    context: unknown
    events: RunEvents
    /** Aborts the run; the caller keeps it to stop the run. */
    abort: AbortController
    head: ThreadHead
    /** The stored history, when the caller has it; else `load` reads it. */
    messages?: readonly ThreadMessage[]
  }) {
    this.config = options.config
    this.runId = options.runId
    this.context = options.context
    this.events = options.events
    this.head = options.head
    this.failures = toolFailures(options.config, options.head.id, options.runId)
    this.messages = options.messages ? [...options.messages] : []
    this.#loaded = options.messages !== undefined
    this.#abort = options.abort
    this.signal = options.abort.signal
    const ctx = { threadId: options.head.id, runId: options.runId, context: appContext(options.context), signal: this.signal }
    this.middleware = new RunMiddleware(this.config.middleware, ctx)
    this.#heartbeat = setInterval(() => void this.#write({}, 'renew').catch(() => {}), this.config.limits.runLeaseMs / 3)
    this.#stopCheck = setInterval(() => void this.#checkStop(), STOP_CHECK_MS)
  }

  /** A stop asked of another instance lands in the head; this run looks for it once a second. */
  async #checkStop(): Promise<void> {
    if (this.signal.aborted) return
    try {
      const head = await this.config.store.head(this.head.id)
      if (head?.stopRequested === this.runId && head.activeRun?.runId === this.runId) this.#abort.abort(new RunStopped())
    } catch {
      // the next look may succeed
    }
  }

  /** Reads the stored history, unless the run was given it. */
  async load(): Promise<void> {
    if (this.#loaded) return
    this.messages.unshift(...(await loadMessages(this.config.store, this.head)))
    this.#loaded = true
  }

  /** Adds messages to the history; the next `save` writes them. */
  append(...messages: ThreadMessage[]): void {
    this.messages.push(...messages)
    this.#unsaved.push(...messages)
  }

  /** Writes the appended messages and `head` changes; while the run holds the thread, the write renews its lease. */
  save(head: ThreadChange['head'] = {}): Promise<void> {
    return this.#write(head, 'save')
  }

  /** Throws unless the thread has room for `count` more messages, and bytes to spare. */
  ensureRoom(count: number): void {
    const { maxThreadMessages, maxThreadBytes } = this.config.limits
    if (this.messages.length + count > maxThreadMessages) throw new ThreadFullError(`${maxThreadMessages} messages`)
    let bytes = this.head.bytes
    for (const message of this.#unsaved) bytes += jsonBytes(message)
    if (bytes >= maxThreadBytes) throw new ThreadFullError(`${maxThreadBytes} bytes`)
  }

  /** Stops the heartbeat. The run is over. */
  close(): void {
    clearInterval(this.#heartbeat)
    clearInterval(this.#stopCheck)
  }

  /**
   * One write at a time, in order. `renew` is the heartbeat's: it only renews the lease (while the
   * run still holds the thread), leaving appended messages for the run's next `save`; a failure
   * other than losing the thread is retried on the next beat.
   */
  #write(head: ThreadChange['head'], kind: 'save' | 'renew'): Promise<void> {
    const withMessages = kind === 'save'
    const write = this.#writes.then(async () => {
      if (this.#lost) throw this.#lost
      if (kind === 'renew' && !this.head.activeRun) return
      const holding = 'activeRun' in head ? head.activeRun : this.head.activeRun
      const activeRun = holding && { ...holding, renewedAt: Date.now() }
      const append = withMessages ? this.#unsaved : []
      let written = await commitChange(this.config.store, this.head, { head: { ...head, activeRun }, append })
      if (!written) {
        // Another instance wrote a stop request into the head: the thread is still this run's.
        const current = await this.config.store.head(this.head.id)
        if (current?.activeRun?.runId === this.runId && current.stopRequested === this.runId) {
          this.#abort.abort(new RunStopped())
          this.head = current
          written = await commitChange(this.config.store, this.head, { head: { ...head, activeRun }, append })
        }
      }
      if (!written) {
        this.#lost = new StoreConflictError(this.head.id)
        this.#abort.abort(this.#lost)
        throw this.#lost
      }
      this.head = written
      if (withMessages) this.#unsaved = []
    })
    this.#writes = write.catch(() => {})
    return write
  }
}

/**
 * A run from start to end: stream the model, handle its tool calls, repeat until it answers, pauses
 * on interrupts, or reaches `maxSteps`. The run already holds its thread; whatever happens, it
 * releases it and leaves the stored thread consistent.
 */
export async function runTurn(run: Run, start: RunStart): Promise<void> {
  const { events } = run
  events.started()
  try {
    await run.load()
    for (const result of start.announced ?? []) events.result(result)
    const paused = await drive(run, start)
    await run.save({ activeRun: undefined, stopRequested: undefined })
    const outcome: RunOutcome = paused
      ? { type: 'interrupt', interrupts: paused.map((interrupt) => toWire(interrupt, run.config.tools)) }
      : { type: 'success' }
    events.finished(outcome, usageOf(run))
  } catch (error) {
    await fail(run, error)
  } finally {
    run.close()
  }
}

/** Returns the interrupts the run pauses on, if any. */
async function drive(run: Run, start: RunStart): Promise<readonly PendingInterrupt[] | undefined> {
  let steps = start.steps
  if (start.resume) {
    const paused = await settleStep(run, run.head.step!)
    if (paused.length > 0) return paused
  }
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
    steps += 1
    const message = streamed && !error && !run.signal.aborted ? await run.middleware.modelResponse(streamed) : streamed
    if (error || run.signal.aborted) {
      // The model failed or the client left mid-step: what it said is kept, its calls will not run.
      if (message) {
        run.ensureRoom(1 + message.toolCalls.length)
        appendWithResults(run, message, [], error ? FAILED_BEFORE_FINISH : STOPPED_BEFORE_RUN)
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

/** Plans a step's calls, runs the server tools among them, and stores the step: closed, or open on its interrupts. */
async function handleToolCalls(run: Run, message: ThreadAssistantMessage, steps: number): Promise<PendingInterrupt[]> {
  const plan = await planToolCalls(message.toolCalls, run.config.tools, run.context, run.failures, (call, tool) => run.middleware.toolInput(call, tool))
  for (const result of plan.results) run.events.result(result)
  const step: OpenStep = { message, results: plan.results, interrupts: plan.interrupts, running: [], steps }
  return runAndStore(run, step, plan.executions, [])
}

/**
 * Applies the answers of a fully answered step; returns `client_tool` interrupts for approved
 * client tools. Calls of idempotent tools a crash cut off (left in `running` by `recoverLostRun`)
 * run again with the approved ones.
 */
async function settleStep(run: Run, answered: OpenStep): Promise<PendingInterrupt[]> {
  const rerun = await rerunPlan(answered, answered.running, run.config.tools, run.failures)
  const settlement = await settleInterrupts(answered.message, answered.interrupts, run.config.tools, 'resume', run.failures)
  const settled = [...rerun.results, ...settlement.results]
  for (const result of settled) run.events.result(result)
  const step: OpenStep = {
    ...answered,
    message: settlement.message,
    results: [...answered.results, ...settled],
    interrupts: settlement.interrupts,
    running: [],
  }
  return runAndStore(run, step, [...rerun.executions, ...settlement.executions], answered.interrupts)
}

/**
 * Runs `executions` and stores the step. The calls are recorded as running before they start, so
 * a crash mid-call is never taken for a call that did not run. A step that still waits for
 * answers stays open; one whose every call has a result joins the history with its results.
 */
async function runAndStore(
  run: Run,
  step: OpenStep,
  executions: readonly Execution[],
  resolved: readonly PendingInterrupt[],
): Promise<PendingInterrupt[]> {
  const resolvedInterruptIds = resolved.length > 0 ? rememberResolved(run.head.resolvedInterruptIds, resolved) : run.head.resolvedInterruptIds
  if (executions.length > 0) {
    await run.save({ step: { ...step, running: executions.map((execution) => execution.toolCallId) }, resolvedInterruptIds })
  }
  const executed = await executeToolCalls(executions, {
    signal: run.signal,
    context: run.context,
    timeoutMs: run.config.limits.toolTimeoutMs,
    maxOutputBytes: run.config.limits.maxMessageBytes,
    failures: run.failures,
    attachments: { store: run.config.attachments, threadId: run.head.id, maxBytes: run.config.limits.maxAttachmentBytes },
    onResult: (result) => run.events.result(result),
    onOutput: (result, execution) =>
      run.middleware.toolOutput(result, execution.input, execution.entry.tool, (output) => withAttachmentsOf(result, successResult(execution, output, execution.editedArgs))),
  })
  const results = [...step.results, ...executed]
  if (step.interrupts.length > 0) {
    const interrupts = withExpiry(step.interrupts, run.config.limits.interruptTtlMs)
    await run.save({ step: { ...step, results, interrupts, running: [] }, resolvedInterruptIds })
    run.middleware.throwIfFailed()
    return interrupts
  }
  run.append(step.message, ...inCallOrder(step.message, results))
  await run.save({ step: undefined, resolvedInterruptIds })
  run.middleware.throwIfFailed() // the step is stored whole; then a failed toolOutput hook ends the run
  return []
}

/** A thread's open step and what to append, once whatever a dead run left is settled. */
export interface Recovery {
  readonly step: OpenStep | undefined
  readonly append: readonly ThreadMessage[]
  /** The results written for calls the dead run had started; the next run streams them. */
  readonly results: readonly ThreadToolMessage[]
  /** Calls of idempotent tools the dead run had started: the next run runs them again (they stay in `step.running`). */
  readonly rerun: readonly string[]
}

/**
 * What a request that takes a thread over from a run that died must write with its own change:
 * each call the run had started gets an error result saying it may have taken effect (it is never
 * run again by surprise), and a step left with every call settled joins the history. A thread
 * without a lapsed run comes back as it is.
 */
export function recoverLostRun(head: ThreadHead, leaseMs: number, tools: ToolRegistry): Recovery {
  const { step } = head
  if (!head.activeRun || isRunning(head, leaseMs) || !step || step.running.length === 0) return { step, append: [], results: [], rerun: [] }
  const byId = new Map(step.message.toolCalls.map((call) => [call.id, call]))
  // Calls of idempotent server tools run again: at once when nothing else of the step waits for
  // an answer, else with the answered calls once the step's interrupts are all answered.
  const again = (toolCallId: string) => {
    const entry = tools.get(byId.get(toolCallId)?.name ?? '')
    return entry?.side === 'server' && entry.tool.idempotent === true
  }
  const rerun = step.running.filter(again)
  const results = step.running
    .filter((toolCallId) => !again(toolCallId))
    .map((toolCallId) => errorResult({ toolCallId, toolName: byId.get(toolCallId)?.name ?? '' }, INTERRUPTED_BY_CRASH))
  const recovered: OpenStep = { ...step, results: [...step.results, ...results], running: rerun }
  if (recovered.interrupts.length > 0 || rerun.length > 0) return { step: recovered, append: [], results, rerun }
  return { step: undefined, append: [recovered.message, ...inCallOrder(recovered.message, recovered.results)], results, rerun }
}

const INTERRUPTED_BY_CRASH = 'The server stopped while this call ran; it may or may not have taken effect, and it was not run again'
/** How often a run looks for a stop asked of another instance. */
const STOP_CHECK_MS = 1000

/** Why a run's signal aborts when a user stops it. */
export class RunStopped extends Error {
  constructor() {
    super('The user stopped the run')
    this.name = 'RunStopped'
  }
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
  if (!(error instanceof StoreConflictError)) await release(run)
  const { code, message } = runErrorOf(error)
  run.events.failed(code, message)
}

/** Pauses between attempts to release the thread after a failed run: a store blip should not hold it for the whole lease. */
const RELEASE_RETRY_MS = [100, 500, 2000]

/** Releases the thread, trying again while the store fails; a lost thread (another run took it) is not retried. */
async function release(run: Run): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run.save({ activeRun: undefined, stopRequested: undefined })
    } catch (saveError) {
      const pause = RELEASE_RETRY_MS[attempt]
      if (saveError instanceof StoreConflictError || pause === undefined) {
        return console.error('[toolgate] could not release the thread after a failed run:', saveError)
      }
      await new Promise((resolve) => setTimeout(resolve, pause))
    }
  }
}

function report(run: Run, error: unknown): void {
  reportError(run.config, error, { threadId: run.head.id, runId: run.runId, source: 'run' })
}

/**
 * A tool's unexpected exception may name a password or a path: it goes to `onError` with the ids
 * that find the call, and the model and browser get `toolErrorMessage`'s text or a generic one.
 */
export function toolFailures(config: ChatConfig, threadId: string, runId: string): ToolFailures {
  return {
    tool(error, call) {
      reportError(config, error, { threadId, runId, source: 'tool', toolCallId: call.toolCallId, toolName: call.toolName })
      let text: string | undefined
      try {
        text = config.toolErrorMessage?.(error, { toolName: call.toolName, toolCallId: call.toolCallId })
      } catch (hookError) {
        reportError(config, hookError, { threadId, runId, source: 'tool', toolCallId: call.toolCallId, toolName: call.toolName })
      }
      return typeof text === 'string' && text.trim() !== '' ? text : `Tool "${call.toolName}" failed`
    },
    policy(error, call) {
      reportError(config, error, { threadId, runId, source: 'approval-policy', toolCallId: call.toolCallId, toolName: call.toolName })
    },
  }
}

function usageOf(run: Run): TokenUsage | undefined {
  const { usage } = run
  if (!usage.reported) return undefined
  const model = run.config.model.name
  return {
    ...(model ? { model } : {}),
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    ...(usage.cachedInputTokens > 0 ? { cachedInputTokens: usage.cachedInputTokens } : {}),
    ...(usage.reasoningTokens > 0 ? { reasoningTokens: usage.reasoningTokens } : {}),
  }
}

/** A result rebuilt from a replaced output keeps the files of the one it replaces. */
function withAttachmentsOf(original: ThreadToolMessage, rebuilt: ThreadToolMessage): ThreadToolMessage {
  const { attachments } = original
  if (!attachments || attachments.length === 0) return rebuilt
  return { ...rebuilt, content: [rebuilt.content, ...attachments.map(describeAttachment)].join('\n'), attachments }
}
