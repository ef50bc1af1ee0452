import type { TokenUsage } from '../protocol/events.ts'
import type { RunOutcome } from '../protocol/interrupts.ts'
import type { ThreadAssistantMessage, ThreadMessage, ThreadToolMessage } from '../protocol/messages.ts'
import type { ChatConfig } from './config.ts'
import { StoreConflictError, ThreadFullError, runErrorOf } from './errors.ts'
import type { RunEvents } from './events.ts'
import { rememberResolved, toWire } from './interrupts.ts'
import { modelStep, type UsageTotals } from './modelStep.ts'
import { commitChange, isRunning, loadMessages, type ThreadChange } from './thread.ts'
import { errorResult, executeToolCalls, inCallOrder, planToolCalls, settleInterrupts, successResult, type Execution } from './toolCalls.ts'
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
  /** Aborted when the client goes away or the run loses its thread. */
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
  readonly #lost = new AbortController()
  readonly #heartbeat: ReturnType<typeof setInterval>

  constructor(options: {
    config: ChatConfig
    runId: string
    context: unknown
    events: RunEvents
    signal: AbortSignal
    head: ThreadHead
    /** The stored history, when the caller has it; else `load` reads it. */
    messages?: readonly ThreadMessage[]
  }) {
    this.config = options.config
    this.runId = options.runId
    this.context = options.context
    this.events = options.events
    this.head = options.head
    this.messages = options.messages ? [...options.messages] : []
    this.#loaded = options.messages !== undefined
    this.signal = AbortSignal.any([options.signal, this.#lost.signal])
    const ctx = { threadId: options.head.id, runId: options.runId, context: appContext(options.context), signal: this.signal }
    this.middleware = new RunMiddleware(this.config.middleware, ctx)
    this.#heartbeat = setInterval(() => void this.#write({}, 'renew').catch(() => {}), this.config.limits.runLeaseMs / 3)
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

  /** Throws unless the thread has room for `count` more messages. */
  ensureRoom(count: number): void {
    const max = this.config.limits.maxThreadMessages
    if (this.messages.length + count > max) throw new ThreadFullError(max)
  }

  /** Stops the heartbeat. The run is over. */
  close(): void {
    clearInterval(this.#heartbeat)
  }

  /**
   * One write at a time, in order. `renew` is the heartbeat's: it only renews the lease (while the
   * run still holds the thread), leaving appended messages for the run's next `save`; a failure
   * other than losing the thread is retried on the next beat.
   */
  #write(head: ThreadChange['head'], kind: 'save' | 'renew'): Promise<void> {
    const withMessages = kind === 'save'
    const write = this.#writes.then(async () => {
      if (this.#lost.signal.aborted) throw this.#lost.signal.reason
      if (kind === 'renew' && !this.head.activeRun) return
      const holding = 'activeRun' in head ? head.activeRun : this.head.activeRun
      const activeRun = holding && { ...holding, renewedAt: Date.now() }
      const append = withMessages ? this.#unsaved : []
      const written = await commitChange(this.config.store, this.head, { head: { ...head, activeRun }, append })
      if (!written) {
        const lost = new StoreConflictError(this.head.id)
        this.#lost.abort(lost)
        throw lost
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
    await run.save({ activeRun: undefined })
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
  const plan = await planToolCalls(message.toolCalls, run.config.tools, run.context, (call, tool) => run.middleware.toolInput(call, tool))
  for (const result of plan.results) run.events.result(result)
  const step: OpenStep = { message, results: plan.results, interrupts: plan.interrupts, running: [], steps }
  return runAndStore(run, step, plan.executions, [])
}

/** Applies the answers of a fully answered step; returns `client_tool` interrupts for approved client tools. */
async function settleStep(run: Run, answered: OpenStep): Promise<PendingInterrupt[]> {
  const settlement = await settleInterrupts(answered.message, answered.interrupts, run.config.tools, 'resume')
  for (const result of settlement.results) run.events.result(result)
  const step: OpenStep = {
    ...answered,
    message: settlement.message,
    results: [...answered.results, ...settlement.results],
    interrupts: settlement.interrupts,
  }
  return runAndStore(run, step, settlement.executions, answered.interrupts)
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
    attachments: { store: run.config.attachments, threadId: run.head.id, maxBytes: run.config.limits.maxAttachmentBytes },
    onResult: (result) => run.events.result(result),
    onOutput: (result, execution) =>
      run.middleware.toolOutput(result, execution.input, execution.entry.tool, (output) => withAttachmentsOf(result, successResult(execution, output, execution.editedArgs))),
  })
  const results = [...step.results, ...executed]
  if (step.interrupts.length > 0) {
    await run.save({ step: { ...step, results, running: [] }, resolvedInterruptIds })
    run.middleware.throwIfFailed()
    return [...step.interrupts]
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
}

/**
 * What a request that takes a thread over from a run that died must write with its own change:
 * each call the run had started gets an error result saying it may have taken effect (it is never
 * run again by surprise), and a step left with every call settled joins the history. A thread
 * without a lapsed run comes back as it is.
 */
export function recoverLostRun(head: ThreadHead, leaseMs: number): Recovery {
  const { step } = head
  if (!head.activeRun || isRunning(head, leaseMs) || !step || step.running.length === 0) return { step, append: [], results: [] }
  const byId = new Map(step.message.toolCalls.map((call) => [call.id, call]))
  const results = step.running.map((toolCallId) =>
    errorResult({ toolCallId, toolName: byId.get(toolCallId)?.name ?? '' }, INTERRUPTED_BY_CRASH),
  )
  const recovered: OpenStep = { ...step, results: [...step.results, ...results], running: [] }
  if (recovered.interrupts.length > 0) return { step: recovered, append: [], results }
  return { step: undefined, append: [recovered.message, ...inCallOrder(recovered.message, recovered.results)], results }
}

const INTERRUPTED_BY_CRASH = 'The server stopped while this call ran; it may or may not have taken effect, and it was not run again'
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
  if (!(error instanceof StoreConflictError)) {
    try {
      await run.save({ activeRun: undefined })
    } catch (saveError) {
      console.error('[toolgate] could not release the thread after a failed run:', saveError)
    }
  }
  const { code, message } = runErrorOf(error)
  run.events.failed(code, message)
}

function report(run: Run, error: unknown): void {
  const { onError } = run.config
  if (!onError) return console.error('[toolgate] chat run failed:', error)
  try {
    onError(error, { threadId: run.head.id, runId: run.runId })
  } catch (hookError) {
    console.error('[toolgate] chat run failed:', error, '\nand onError threw:', hookError)
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
