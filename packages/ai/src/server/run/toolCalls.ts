import type { ToolFailures } from '../errors.ts'
import { deniedResult, successResult, errorResult, editedNote, type CallRef, callRef } from './results.ts'
import { isToolError, ToolValidationError } from '../../errors.ts'
import type { ThreadAssistantMessage, ThreadToolCall, ThreadToolMessage } from '../../protocol/messages.ts'
import { evaluateApproval, rejectMessageOf } from '../../tools/approval.ts'
import type { AnyTool } from '../../tools/types.ts'
import { validateToolInput, validateToolOutput } from '../../tools/validateToolValue.ts'
import { deepEqual } from '../../util/deepEqual.ts'
import { parseToolArguments } from '../../util/parseToolArguments.ts'
import { utf8Bytes } from '../../util/jsonBytes.ts'
import { contextFor } from './context.ts'
import { contentResultMessage, type AttachmentOptions } from './attachments.ts'
import { isToolContentResult } from '../../tools/toolResult.ts'
import type { InputDecision } from './middleware.ts'
import { approvalInterrupt, clientToolInterrupt } from './interrupts.ts'
import type { OpenStep, StoredInterrupt } from '../thread/threadStore.ts'
import type { ToolEntry, ToolRegistry } from '../../tools/toolRegistry.ts'

// What becomes of the model's tool calls: each is planned (settled at once with an error, run on
// the server, or handed to a human or the browser), answered interrupts are settled, server tools
// run, and every call ends with exactly one result.

/** A server tool call ready to run: its input is already validated. */
export interface Execution extends CallRef {
  readonly entry: ToolEntry
  readonly input: unknown
  /** The arguments the user approved instead of the model's, if any. */
  readonly editedArgs?: unknown
}

/** What becomes of each call of one model step, or of each answered interrupt of a step. */
export interface CallPlan {
  /** Calls settled now: an error the model sees (bad JSON, unknown tool, invalid input), a denial, a browser's result. */
  readonly results: ThreadToolMessage[]
  /** Server tools to run now. */
  readonly executions: Execution[]
  /** Calls that wait for a human or the browser. */
  readonly interrupts: StoredInterrupt[]
}

/** The `toolInput` middleware: a new input, or a refusal the model reads. */
export type OnToolInput = (call: { toolCallId: string; toolName: string; input: unknown }, tool: AnyTool) => Promise<InputDecision>

export async function planToolCalls(
  calls: readonly ThreadToolCall[],
  tools: ToolRegistry,
  context: unknown,
  failures: ToolFailures,
  onInput?: OnToolInput,
): Promise<CallPlan> {
  const plan: CallPlan = { results: [], executions: [], interrupts: [] }
  for (const call of calls) {
    const ref: CallRef = { toolCallId: call.id, toolName: call.name }
    const entry = tools.get(call.name)
    if (!entry) {
      plan.results.push(errorResult(ref, `Unknown tool "${call.name}". Available tools: ${tools.names.join(', ') || '(none)'}.`))
      continue
    }
    const args = parseToolArguments(call.arguments)
    if (!args.ok) {
      const problem = args.tooDeep ? `are ${args.error}` : `are not valid JSON (${args.error})`
      plan.results.push(errorResult(ref, `The arguments of tool "${call.name}" ${problem}; send one JSON object.`))
      continue
    }
    const checked = await validateInput(entry.tool, args.value, ref, failures)
    if (!checked.ok) {
      plan.results.push(errorResult(ref, checked.error))
      continue
    }
    const decided = onInput ? await onInput({ ...ref, input: checked.value }, entry.tool) : { input: checked.value, replaced: false }
    if ('refused' in decided) {
      plan.results.push(errorResult(ref, decided.refused))
      continue
    }
    const sent = decided.replaced ? decided.input : args.value
    const approval = await evaluateApproval(entry.tool, decided.input, { toolCallId: call.id, context: contextFor(context, call.name) })
    if (approval.error !== undefined) failures.policy(approval.error, ref)
    // Interrupts carry the arguments as sent (plain JSON, storable); execution later validates them again.
    if (approval.required) plan.interrupts.push(approvalInterrupt(ref, sent, approval.reason))
    else if (entry.side === 'client') plan.interrupts.push(clientToolInterrupt(ref, sent))
    else plan.executions.push({ ...ref, entry, input: decided.input })
  }
  return plan
}

export const SUPERSEDED_REASON = 'the user sent a new message instead'

/**
 * `resume`: every interrupt is answered; apply the answers. `supersede`: the user sent a new
 * message instead; results the browser already produced and explicit denials stand, everything
 * else (unanswered, or approved but not yet run) is denied with `SUPERSEDED_REASON`. Edited
 * arguments are written into `message`, so the model sees the call that actually ran.
 */
export async function settleInterrupts(
  message: ThreadAssistantMessage,
  interrupts: readonly StoredInterrupt[],
  tools: ToolRegistry,
  mode: 'resume' | 'supersede',
  failures: ToolFailures,
): Promise<CallPlan & { readonly message: ThreadAssistantMessage }> {
  const plan: CallPlan = { results: [], executions: [], interrupts: [] }
  const edits = new Map<string, string>()
  for (const interrupt of interrupts) {
    const ref = callRef(interrupt)
    const { answer } = interrupt
    const entry = tools.get(interrupt.toolName)
    if (answer?.kind === 'approval' && !answer.approved) plan.results.push(deniedResult(ref, answer.reason, rejectMessageOf(entry?.tool, interrupt)))
    else if (mode === 'supersede' && (answer === undefined || answer.kind === 'approval')) {
      plan.results.push(deniedResult(ref, SUPERSEDED_REASON, rejectMessageOf(entry?.tool, interrupt)))
    }
    else if (!entry) plan.results.push(errorResult(ref, `Tool "${interrupt.toolName}" is no longer available`))
    else if (answer?.kind === 'error') plan.results.push(errorResult(ref, `Tool "${interrupt.toolName}" failed in the browser: ${answer.error}`))
    else if (answer?.kind === 'output') plan.results.push(await clientResult(interrupt, entry.tool, answer.output, failures))
    else if (answer?.kind === 'approval') {
      const edited = 'editedArgs' in answer && !deepEqual(answer.editedArgs, interrupt.input)
      const args = edited ? answer.editedArgs : interrupt.input
      if (edited) edits.set(interrupt.toolCallId, JSON.stringify(args))
      const checked = await validateInput(entry.tool, args, ref, failures)
      if (!checked.ok) plan.results.push(errorResult(ref, checked.error))
      else if (entry.side === 'client') plan.interrupts.push(clientToolInterrupt(ref, args, edited))
      else plan.executions.push({ ...ref, entry, input: checked.value, ...(edited ? { editedArgs: args } : {}) })
    } else {
      throw new Error(`Interrupt "${interrupt.id}" has no answer`)
    }
  }
  const edited =
    edits.size === 0
      ? message
      : { ...message, toolCalls: message.toolCalls.map((call) => (edits.has(call.id) ? { ...call, arguments: edits.get(call.id)! } : call)) }
  return { ...plan, message: edited }
}

/** The calls a crash cut off, of idempotent tools, ready to run again under the same ids (their arguments checked again). */
export async function rerunPlan(step: OpenStep, toolCallIds: readonly string[], tools: ToolRegistry, failures: ToolFailures): Promise<CallPlan> {
  const plan: CallPlan = { results: [], executions: [], interrupts: [] }
  for (const toolCallId of toolCallIds) {
    const call = step.message.toolCalls.find((candidate) => candidate.id === toolCallId)
    const entry = call && tools.get(call.name)
    const ref: CallRef = { toolCallId, toolName: call?.name ?? '' }
    const args = call ? parseToolArguments(call.arguments) : undefined
    if (!entry || !args?.ok) {
      plan.results.push(errorResult(ref, `Tool "${ref.toolName}" could not run again after the server restarted`))
      continue
    }
    const checked = await validateInput(entry.tool, args.value, ref, failures)
    if (checked.ok) plan.executions.push({ ...ref, entry, input: checked.value })
    else plan.results.push(errorResult(ref, checked.error))
  }
  return plan
}

export interface ExecuteOptions {
  /** Aborted when the run stops: the client went away, or the run lost its thread. */
  readonly signal: AbortSignal
  readonly context: unknown
  readonly timeoutMs: number
  /** A larger output is replaced by an error the model reads (the tool ran; its result is not stored). */
  readonly maxOutputBytes: number
  /** Called as each call finishes, so results stream in completion order. */
  readonly onResult?: (result: ThreadToolMessage) => void
  readonly failures: ToolFailures
  /** Where files from `toolResult()` go; without it they are dropped and the output alone is kept. */
  readonly attachments?: AttachmentOptions
  /** The `toolOutput` middleware: may replace a result before it streams; never throws. */
  readonly onOutput?: (result: ThreadToolMessage, execution: Execution) => Promise<ThreadToolMessage>
}

/** Runs calls in parallel; never throws. Results come back in the order of `executions`. */
export function executeToolCalls(executions: readonly Execution[], options: ExecuteOptions): Promise<ThreadToolMessage[]> {
  return Promise.all(
    executions.map(async (execution) => {
      const executed = await executeOne(execution, options)
      const result = options.onOutput ? await options.onOutput(executed, execution) : executed
      options.onResult?.(result)
      return result
    }),
  )
}

class Timeout extends Error {}

async function executeOne(execution: Execution, options: ExecuteOptions): Promise<ThreadToolMessage> {
  const { entry, input, toolCallId, toolName } = execution
  // The run already stopped (the client left right after approving, say): the tool must not start.
  if (options.signal.aborted) return notRun(execution)
  // One controller that the run's signal and the timer both abort: AbortSignal.any() costs far more
  // per call on Node 20 (a tenth of a turn's CPU in a profile).
  const timeout = new AbortController()
  const signal = timeout.signal
  const onRunAbort = () => timeout.abort(options.signal.reason)
  options.signal.addEventListener('abort', onRunAbort, { once: true })
  let timedOut = false
  const timer = setTimeout(() => ((timedOut = true), timeout.abort(new Timeout())), options.timeoutMs)
  let onAbort: (() => void) | undefined
  // A tool that ignores its signal must not hold the run: stop waiting for it when the signal fires.
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason)
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
  })
  let started = false
  try {
    const run = Promise.resolve().then(() => {
      if (signal.aborted) throw signal.reason
      started = true
      return entry.handler!(input, { toolCallId, signal, context: contextFor(options.context, toolName) })
    })
    const output = await validateToolOutput(entry.tool, await Promise.race([run, stopped]))
    if (isToolContentResult(output) && options.attachments) {
      return await contentResultMessage(execution, output, options.attachments, editedNote(execution.editedArgs))
    }
    const result = successResult(execution, output, execution.editedArgs)
    const bytes = utf8Bytes(result.content)
    if (bytes <= options.maxOutputBytes) return result
    return errorResult(execution, `Tool "${toolName}" ran, but its output is ${bytes} bytes, more than the limit of ${options.maxOutputBytes}; it was not kept`)
  } catch (error) {
    if (!started) return notRun(execution)
    // The tool started and was cut off: it may have done its work (sent the mail, moved the money) anyway.
    if (timedOut) {
      return errorResult(execution, `Tool "${toolName}" timed out after ${options.timeoutMs} ms; it may still have taken effect`)
    }
    if (options.signal.aborted) {
      return errorResult(execution, `Tool "${toolName}" was aborted: the run stopped before it finished; it may still have taken effect`)
    }
    if (error instanceof ToolValidationError) return errorResult(execution, error.message)
    if (isToolError(error)) return errorResult(execution, `Tool "${toolName}" failed: ${error.message}`)
    return errorResult(execution, options.failures.tool(error, execution))
  } finally {
    clearTimeout(timer)
    options.signal.removeEventListener('abort', onRunAbort)
    if (onAbort) signal.removeEventListener('abort', onAbort)
  }
}

function notRun(call: CallRef): ThreadToolMessage {
  return errorResult(call, `Tool "${call.toolName}" did not run: the run stopped before it started`)
}

type Checked = { ok: true; value: unknown } | { ok: false; error: string }

/** Input issues go back to the model with their paths, so it can correct the call. */
async function validateInput(tool: AnyTool, value: unknown, call: CallRef, failures: ToolFailures): Promise<Checked> {
  try {
    return { ok: true, value: await validateToolInput(tool, value) }
  } catch (error) {
    if (error instanceof ToolValidationError) return { ok: false, error: error.message }
    // The schema itself threw: its message is the library's, not written for the model.
    return { ok: false, error: failures.tool(error, call) }
  }
}

/** A browser's result is checked against the output schema like a server tool's. */
async function clientResult(interrupt: StoredInterrupt, tool: AnyTool, output: unknown, failures: ToolFailures): Promise<ThreadToolMessage> {
  const ref = callRef(interrupt)
  try {
    return successResult(ref, await validateToolOutput(tool, output), interrupt.edited ? interrupt.input : undefined)
  } catch (error) {
    if (error instanceof ToolValidationError) return errorResult(ref, error.message)
    return errorResult(ref, failures.tool(error, ref))
  }
}

