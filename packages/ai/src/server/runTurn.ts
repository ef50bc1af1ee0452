import type { RunOutcome } from '../protocol/interrupts.ts'
import type { ThreadToolCall, ThreadToolMessage } from '../protocol/messages.ts'
import { executeToolCalls } from './executeToolCalls.ts'
import { rememberResolved, toWire } from './interrupts.ts'
import { ModelError, modelStep } from './modelStep.ts'
import { planToolCalls } from './planToolCalls.ts'
import { settleInterrupts, withEditedArguments } from './settleInterrupts.ts'
import { StoreConflictError, append, emitResult, inCallOrder, save, type RunState } from './runState.ts'
import type { PendingBatch, PendingInterrupt } from './threadStore.ts'
import { ThreadFullError, ensureRoom } from './threadSize.ts'
import { errorResult } from './toolResults.ts'

export interface TurnStart {
  /** Model calls already made in this turn. */
  readonly steps: number
  /** Results already stored before the run (denials of superseded interrupts), for the client to see. */
  readonly announced?: readonly ThreadToolMessage[]
  /** A fully answered batch to apply before the model continues. */
  readonly resume?: PendingBatch
}

/**
 * One run: stream the model, handle its tool calls, repeat until it answers, pauses on
 * interrupts, or reaches `maxSteps`. The run already holds its thread (`activeRun`); whatever
 * happens, it releases it and leaves the stored thread consistent.
 */
export async function runTurn(run: RunState, start: TurnStart): Promise<void> {
  run.emit({ type: 'RUN_STARTED', threadId: run.thread.id, runId: run.runId })
  let pending: PendingBatch | undefined
  try {
    for (const result of start.announced ?? []) emitResult(run, result)
    pending = await drive(run, start)
  } catch (error) {
    return fail(run, error)
  }
  try {
    await save(run, { pending, activeRun: undefined })
  } catch (error) {
    return fail(run, error)
  }
  const outcome: RunOutcome = pending ? { type: 'interrupt', interrupts: pending.interrupts.map((interrupt) => toWire(interrupt, run.config.toolset)) } : { type: 'success' }
  run.emit({ type: 'RUN_FINISHED', threadId: run.thread.id, runId: run.runId, outcome, ...usageOf(run) })
}

/** Returns the batch the run pauses on, if any. */
async function drive(run: RunState, start: TurnStart): Promise<PendingBatch | undefined> {
  let steps = start.steps
  if (start.resume) {
    const interrupts = await resumeBatch(run, start.resume)
    if (interrupts.length > 0) return { interrupts, steps }
  }
  while (steps < run.config.maxSteps && !run.signal.aborted) {
    ensureRoom(run, 1) // no model call whose answer could not be stored
    const calls = await modelStep(run)
    steps += 1
    // The client left while the model streamed: the step's calls will not run, and say so.
    if (run.signal.aborted) {
      answerUnanswered(run, STOPPED_BEFORE_RUN)
      return undefined
    }
    if (calls.length === 0) return undefined
    const interrupts = await handleToolCalls(run, calls)
    if (interrupts.length > 0) return { interrupts, steps }
  }
  return undefined
}

async function handleToolCalls(run: RunState, calls: readonly ThreadToolCall[]): Promise<PendingInterrupt[]> {
  const plan = await planToolCalls(calls, run.config.toolset, run.context)
  for (const result of plan.results) emitResult(run, result)
  const executed = await executeToolCalls(plan.executions, executeOptions(run))
  append(run, ...inCallOrder([...plan.results, ...executed], calls.map((call) => call.id)))
  await save(run)
  return plan.interrupts
}

/** Applies a complete batch of answers; returns client_tool interrupts for approved client tools. */
async function resumeBatch(run: RunState, batch: PendingBatch): Promise<PendingInterrupt[]> {
  const settlement = await settleInterrupts(batch.interrupts, run.config.toolset, 'resume')
  run.thread = { ...run.thread, messages: withEditedArguments(run.thread.messages, settlement.editedArguments) }
  for (const result of settlement.results) emitResult(run, result)
  const executed = await executeToolCalls(settlement.executions, executeOptions(run))
  append(run, ...inCallOrder([...settlement.results, ...executed], batch.interrupts.map((interrupt) => interrupt.toolCallId)))
  await save(run, { pending: undefined, resolvedInterruptIds: rememberResolved(run.thread.resolvedInterruptIds, batch.interrupts) })
  return settlement.interrupts
}

function executeOptions(run: RunState) {
  return {
    signal: run.signal,
    context: run.context,
    timeoutMs: run.config.limits.toolTimeoutMs,
    onResult: (result: ThreadToolMessage) => emitResult(run, result),
  }
}

const STOPPED_BEFORE_RUN = 'The run stopped before this call ran'
const FAILED_BEFORE_FINISH = 'The run failed before this call finished'

/**
 * Ends the run with RUN_ERROR, releasing the thread as it stands (it is consistent between steps).
 * The full error goes to the server log (or `onError`) once; the browser gets a message that
 * names no provider text, host or key.
 */
async function fail(run: RunState, error: unknown): Promise<void> {
  report(run, error)
  try {
    answerUnanswered(run, FAILED_BEFORE_FINISH)
    await save(run, { activeRun: undefined })
  } catch (saveError) {
    console.error('[toolgate] could not release thread after a failed run:', saveError)
  }
  if (error instanceof ModelError) return run.emit({ type: 'RUN_ERROR', code: 'MODEL_ERROR', message: error.publicMessage })
  if (error instanceof StoreConflictError) return run.emit({ type: 'RUN_ERROR', code: 'STORE_ERROR', message: error.message })
  if (error instanceof ThreadFullError) return run.emit({ type: 'RUN_ERROR', code: 'THREAD_FULL', message: error.message })
  run.emit({ type: 'RUN_ERROR', code: 'INTERNAL', message: 'The chat run failed; see the server log' })
}

function report(run: RunState, error: unknown): void {
  const { onError } = run.config
  if (!onError) return console.error('[toolgate] chat run failed:', error)
  try {
    onError(error, { threadId: run.thread.id, runId: run.runId })
  } catch (hookError) {
    console.error('[toolgate] chat run failed:', error, '\nand onError threw:', hookError)
  }
}

/**
 * Every call in history gets a result or stays pending, even when a run breaks mid-step: calls of
 * the last step without either are answered with `error`, stored and streamed, so the client shows
 * what a reload will.
 */
function answerUnanswered(run: RunState, error: string): void {
  const results = unansweredCallResults(run, error)
  append(run, ...results)
  for (const result of results) emitResult(run, result)
}

function unansweredCallResults(run: RunState, error: string): ThreadToolMessage[] {
  const { messages, pending } = run.thread
  const settled = new Set<string>(pending?.interrupts.map((interrupt) => interrupt.toolCallId))
  for (const message of messages) if (message.role === 'tool') settled.add(message.toolCallId)
  const last = messages.findLast((message) => message.role === 'assistant')
  if (!last || last.role !== 'assistant') return []
  return last.toolCalls
    .filter((call) => !settled.has(call.id))
    .map((call) => errorResult({ toolCallId: call.id, toolName: call.name }, error))
}

function usageOf(run: RunState) {
  if (!run.usage.reported) return {}
  const { inputTokens, outputTokens } = run.usage
  const model = run.config.model.name
  return { usage: [{ ...(model ? { model } : {}), inputTokens, outputTokens, totalTokens: inputTokens + outputTokens }] }
}
