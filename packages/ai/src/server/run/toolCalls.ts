import { validateInput, validateInputNow, type CallPlan, type Execution } from './callPlan.ts'
import type { ToolFailures } from '../errors.ts'
import { successResult, errorResult, editedNote, type CallRef } from '../thread/results.ts'
import { isToolError, ToolValidationError } from '../../errors.ts'
import type { ThreadToolCall, ThreadToolMessage } from '../../protocol/messages.ts'
import { evaluateApproval, fixedApproval } from '../../tools/approval.ts'
import type { AnyTool } from '../../tools/types.ts'
import { toolOutputNow } from '../../tools/validateToolValue.ts'
import { parseToolArguments } from '../../util/parseToolArguments.ts'
import { utf8Bytes } from '../../util/jsonBytes.ts'
import { isPromiseLike } from '../../util/isPromiseLike.ts'
import { contextFor } from './context.ts'
import { contentResultMessage, type AttachmentOptions } from './attachments.ts'
import { isToolContentResult } from '../../tools/toolResult.ts'
import type { InputDecision } from './middleware.ts'
import { approvalInterrupt, clientToolInterrupt } from './interrupts.ts'
import type { OpenStep } from '../thread/threadStore.ts'
import { visibleTo, type ToolEntry, type ToolRegistry } from '../../tools/toolRegistry.ts'
import type { Grant, Principal, SubagentHop } from '../../protocol/decisions.ts'
import { checkedReviewers, NOBODY } from '../decisions/reviewers.ts'
import { coveringGrant } from '../decisions/grants.ts'
import type { DecisionDraft } from '../decisions/records.ts'
import type { RunTrace } from '../../telemetry/hooks.ts'
import { ToolInputRequired, withInputAnswer, type ToolInputRequest } from '../../tools/inputRequest.ts'

// What becomes of the model's tool calls: each is planned (settled at once with an error, run on
// the server, or handed to a human or the browser; answered ones are settled in interrupts.ts),
// server tools run, and every call ends with exactly one result.

/** The `toolInput` middleware: a new input, or a refusal the model reads. */
export type OnToolInput = (call: { toolCallId: string; toolName: string; input: unknown }, tool: AnyTool) => Promise<InputDecision>

type PlanThread = {
  readonly threadId: string
  readonly requester: Principal
  readonly grants?: readonly Grant[] | undefined
  readonly by?: 'app' | undefined
  /** The delegations that reached these calls, for a subagent's (grants and records are scoped by it). */
  readonly path?: readonly SubagentHop[]
}

/** A step's plan, with the records of calls that run under grants. */
export type Plan = CallPlan & { readonly granted: DecisionDraft[] }

/** What planning a step's calls reads, and the plan it fills, call by call in the model's order. */
interface Planning {
  readonly plan: CallPlan & { granted: DecisionDraft[] }
  readonly tools: ToolRegistry
  readonly context: unknown
  readonly failures: ToolFailures
  readonly thread: PlanThread
  readonly onInput: OnToolInput | undefined
}

export async function planToolCalls(calls: readonly ThreadToolCall[], tools: ToolRegistry, context: unknown, failures: ToolFailures, thread: PlanThread, onInput?: OnToolInput): Promise<Plan> {
  const planned = planToolCallsNow(calls, tools, context, failures, thread, onInput)
  return 'later' in planned ? planned.later : planned
}

/**
 * `planToolCalls`, with the plan now when nothing in it waits (synchronous schemas, no `toolInput`
 * hook, fixed policies that ask no one): the usual step's plan costs no promise and no microtask.
 * Once a call waits, it and the calls after it are planned `later`, in order.
 */
export function planToolCallsNow(calls: readonly ThreadToolCall[], tools: ToolRegistry, context: unknown, failures: ToolFailures, thread: PlanThread, onInput?: OnToolInput): Plan | { readonly later: Promise<Plan> } {
  const planning: Planning = { plan: { results: [], executions: [], interrupts: [], granted: [] }, tools, context, failures, thread, onInput }
  for (let index = 0; index < calls.length; index++) {
    const waiting = planCall(calls[index]!, planning)
    if (waiting) return { later: planRest(waiting, calls, index + 1, planning) }
  }
  return planning.plan
}

async function planRest(waiting: Promise<void>, calls: readonly ThreadToolCall[], from: number, planning: Planning): Promise<Plan> {
  await waiting
  for (let index = from; index < calls.length; index++) await planCall(calls[index]!, planning)
  return planning.plan
}

/** Plans one call now, or returns the promise of its plan when its schema, the `toolInput` hook, its policy or a grant is to be awaited. */
function planCall(call: ThreadToolCall, planning: Planning): Promise<void> | undefined {
  const { plan, tools } = planning
  const ref: CallRef = { toolCallId: call.id, toolName: call.name }
  const found = tools.get(call.name)
  // A tool only an MCP App may call is unknown to the model (it is not declared to it either).
  const entry = found && (planning.thread.by === 'app' || visibleTo(found.tool, 'model')) ? found : undefined
  if (!entry) {
    plan.results.push(errorResult(ref, `Unknown tool "${call.name}". Available tools: ${tools.modelTools.map((tool) => tool.name).join(', ') || '(none)'}.`))
    return undefined
  }
  const args = parseToolArguments(call.arguments)
  if (!args.ok) {
    const problem = args.tooDeep ? `are ${args.error}` : `are not valid JSON (${args.error})`
    plan.results.push(errorResult(ref, `The arguments of tool "${call.name}" ${problem}; send one JSON object.`))
    return undefined
  }
  // The hot path: a synchronous schema's answer is not awaited, and a call no hook sees and no one
  // need approve is planned at once (a fixed policy is read, not awaited).
  const validated = validateInputNow(entry.tool, args.value, ref, planning.failures)
  const approval = fixedApproval(entry.tool)
  if ('later' in validated || planning.onInput || !approval || approval.required) return planChecked(call, ref, entry, args.value, validated, planning)
  if (!validated.ok) plan.results.push(errorResult(ref, validated.error))
  else planUnreviewed(plan, ref, entry, validated.value, args.value)
  return undefined
}

/** The rest of a call's plan, where something is awaited: its schema, the `toolInput` hook, its policy, the grants. */
async function planChecked(call: ThreadToolCall, ref: CallRef, entry: ToolEntry, args: unknown, validated: ReturnType<typeof validateInputNow>, planning: Planning): Promise<void> {
  const { plan, thread, onInput } = planning
  const { requester } = thread
  const checked = 'later' in validated ? await validated.later : validated
  if (!checked.ok) {
    plan.results.push(errorResult(ref, checked.error))
    return
  }
  const decided = onInput ? await onInput({ ...ref, input: checked.value }, entry.tool) : { input: checked.value, replaced: false }
  if ('refused' in decided) {
    plan.results.push(errorResult(ref, decided.refused))
    return
  }
  const sent = decided.replaced ? decided.input : args
  const approval = fixedApproval(entry.tool) ?? (await evaluateApproval(entry.tool, decided.input, { toolCallId: call.id, context: contextFor(planning.context, call.name), requestedBy: requester }))
  if (approval.error !== undefined) planning.failures.policy(approval.error, ref)
  const reviewers = approval.reviewers === undefined ? undefined : checkedReviewers(approval.reviewers)
  // A policy that names reviewers badly fails closed: the call waits for a reviewer no one is.
  if (typeof reviewers === 'string') planning.failures.policy(new Error(`needsApproval of tool "${call.name}": ${reviewers}`), ref)
  // Interrupts carry the arguments as sent (plain JSON, storable); execution later validates them again.
  const grant = approval.required
    ? await coveringGrant(thread.grants, { toolName: call.name, input: sent, agents: thread.path?.map((hop) => hop.agent) }, requester, typeof reviewers === 'string' ? NOBODY : reviewers)
    : undefined
  if (grant && entry.side === 'server') {
    // Allowed for this thread by someone who could have approved it: it runs, and the record says under which grant.
    const draft = grantedDraft(thread.threadId, call, grant, sent, thread.path)
    plan.granted.push(draft)
    plan.executions.push({ ...ref, entry, input: decided.input, decision: { decision: 'granted', by: grant.by, at: draft.at, channel: draft.channel, grantId: grant.id } })
  } else if (approval.required) {
    const who = { requestedBy: requester, ...(reviewers === undefined ? {} : { reviewers: typeof reviewers === 'string' ? NOBODY : reviewers }) }
    plan.interrupts.push(approvalInterrupt(ref, sent, approval.reason, who))
  } else planUnreviewed(plan, ref, entry, decided.input, sent)
}

/** A call no one need approve: the browser's to run, or the server's (with its input as checked). */
function planUnreviewed(plan: CallPlan, ref: CallRef, entry: ToolEntry, input: unknown, sent: unknown): void {
  if (entry.side === 'client') plan.interrupts.push(clientToolInterrupt(ref, sent))
  // Key by key, not `{ ...ref, entry, input }`: on Node 20 a literal that goes on after a spread is made by the runtime, slowly.
  else plan.executions.push({ toolCallId: ref.toolCallId, toolName: ref.toolName, entry, input })
}

/** The calls a crash cut off, of idempotent or read-only tools, ready to run again under the same ids (their arguments checked again). */
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
  /** Calls `end` once `signal` aborts (never, if it already has); returns what cancels that (Run.whenAborted). */
  readonly whenAborted: (end: () => void) => () => void
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
  /** The run's trace: each call runs inside its `execute_tool` span. */
  readonly trace?: RunTrace | undefined
  /**
   * The write that marks the calls running, when not yet answered: calls of read-only server tools
   * start at once, the others once it lands. If it fails they never start, and the calls come back
   * as its error (the read-only ones still running are left to the run's stop).
   */
  readonly marked?: Promise<void> | undefined
  /**
   * A call asked a person for input (its tool threw `ToolInputRequired`): what stands for its result
   * meanwhile. The caller keeps the request, and tells and stores no result for the call.
   */
  readonly onInputRequired?: (execution: Execution, request: ToolInputRequest) => ThreadToolMessage
}

/** Whether a call may start before the write that marks it running is stored: its tool only reads. */
export function startsUnmarked(execution: Execution): boolean {
  return execution.entry.side === 'server' && execution.entry.tool.readOnly === true
}

/** Calls' results: every one now (`results`), or, when one of them takes a wait, all of them `later`. */
export type Executed = { readonly results: ThreadToolMessage[]; readonly later?: undefined } | { readonly later: Promise<ThreadToolMessage[]> }

/** `executeToolCallsNow`, waited for (a caller off the turn's hot path). */
export async function executeToolCalls(executions: readonly Execution[], options: ExecuteOptions): Promise<ThreadToolMessage[]> {
  const executed = executeToolCallsNow(executions, options)
  return executed.later ?? executed.results
}

/**
 * Runs calls in parallel; never throws. Results come back in the order of `executions`. A call
 * whose tool and output schema answer at once (and that nothing awaits: no trace, no `toolOutput`
 * hook) is told and settled here, without a promise of its own; with every call so, the results
 * come back now, not as a promise.
 */
export function executeToolCallsNow(executions: readonly Execution[], options: ExecuteOptions): Executed {
  const { marked } = options
  // Object.assign, not `{ ...options, marked }`: on Node 20 a literal that goes on after a spread is made by the runtime, slowly.
  if (marked) return { later: executeBehind(marked, executions, Object.assign({}, options, { marked: undefined })) }
  const { trace } = options
  let waits = false
  const settled: (ThreadToolMessage | Promise<ThreadToolMessage>)[] = []
  for (const execution of executions) {
    const executed = trace ? { later: trace.toolCall(execution, async () => executedResult(executeOne(execution, options))) } : executeOne(execution, options)
    if (executed.later || options.onOutput) {
      waits = true
      settled.push(told(execution, executed, options))
    } else {
      options.onResult?.(executed.result)
      settled.push(executed.result)
    }
  }
  return waits ? { later: Promise.all(settled) } : { results: settled as ThreadToolMessage[] }
}

/**
 * Read-only calls start now; the others once `marked` lands (never, if it fails). A failed mark is
 * the answer at once: the run fails as if it had waited for the mark, and nothing is recorded as
 * running that did not start.
 */
function executeBehind(marked: Promise<void>, executions: readonly Execution[], options: ExecuteOptions): Promise<ThreadToolMessage[]> {
  const now = executions.filter(startsUnmarked)
  const after = executions.filter((execution) => !startsUnmarked(execution))
  const first = executeToolCalls(now, options)
  const second = after.length === 0 ? [] : marked.then(() => executeToolCalls(after, options))
  return Promise.all([first, second, marked]).then(([early, late]) => {
    const byId = new Map([...early, ...late].map((result) => [result.toolCallId, result]))
    return executions.map((execution) => byId.get(execution.toolCallId)!)
  })
}

/** A call's result: now (`result`), or `later` when the tool or its output schema is asynchronous, or files are to be stored. */
type CallResult = { readonly result: ThreadToolMessage; readonly later?: undefined } | { readonly later: Promise<ThreadToolMessage> }

function executedResult(executed: CallResult): ThreadToolMessage | Promise<ThreadToolMessage> {
  return executed.later ?? executed.result
}

/** A call's result once it is in (and through the `toolOutput` hook), told as it comes. */
async function told(execution: Execution, executed: CallResult, options: ExecuteOptions): Promise<ThreadToolMessage> {
  const done = executed.later ? await executed.later : executed.result
  const result = options.onOutput ? await options.onOutput(done, execution) : done
  options.onResult?.(result)
  return result
}

class Timeout extends Error {}

/**
 * Runs one call: its result now when the tool and its output schema answer at once (most tools of
 * a turn do), else `later`. What the tool's handler returns is the one value asked whether it is a
 * promise: the tool's author chose.
 */
function executeOne(execution: Execution, options: ExecuteOptions): CallResult {
  const { entry, input, toolCallId, toolName } = execution
  // The run already stopped (the client left right after approving, say): the tool must not start.
  if (options.signal.aborted) return { result: notRun(execution) }
  // The run's stop and the timer both end the wait for a tool that returns a promise (a tool that
  // returns at once holds the event loop anyway: nothing could end its wait sooner). The tool's own
  // signal is made only if the tool reads it (most never do): an AbortController and its listeners
  // cost a tenth of a short call on Node 20, and AbortSignal.any() far more.
  const wait: CallWait = { cut: undefined, controller: undefined, timedOut: false }
  try {
    // Key by key, not `{ toolCallId, …, ...decision }`: on Node 20 a literal with a spread after its keys is made by the runtime, slowly.
    const ctx: { toolCallId: string; readonly signal: AbortSignal; context: unknown; decision?: Execution['decision'] } = {
      toolCallId,
      get signal() {
        return signalOf(wait)
      },
      context: contextFor(options.context, toolName),
    }
    if (execution.decision) ctx.decision = execution.decision
    const returned = entry.handler!(input, execution.inputAnswer ? withInputAnswer(ctx, execution.inputAnswer) : ctx)
    if (isPromiseLike(returned)) {
      const output = untilStopped(returned, wait, options).then((value) => {
        const checked = toolOutputNow(entry.tool, value)
        return checked.later ?? checked.value
      })
      return { later: completed(execution, output, wait, options) }
    }
    // Validated as the schema answers: a synchronous one's value is not awaited.
    const output = toolOutputNow(entry.tool, returned)
    if (output.later) return { later: completed(execution, output.later, wait, options) }
    if (isToolContentResult(output.value) && options.attachments) return { later: completed(execution, Promise.resolve(output.value), wait, options) }
    return { result: sized(execution, output.value, options) }
  } catch (error) {
    return { result: failed(error, execution, wait, options) }
  }
}

/** The result of a call whose output takes a wait: an asynchronous tool or schema, or files to store. */
async function completed(execution: Execution, validated: Promise<unknown>, wait: CallWait, options: ExecuteOptions): Promise<ThreadToolMessage> {
  try {
    const output = await validated
    if (isToolContentResult(output) && options.attachments) {
      return await contentResultMessage(execution, output, options.attachments, editedNote(execution.editedArgs))
    }
    return sized(execution, output, options)
  } catch (error) {
    return failed(error, execution, wait, options)
  }
}

/** The output as the model reads it, unless it is larger than a result may be. */
function sized(execution: Execution, output: unknown, options: ExecuteOptions): ThreadToolMessage {
  const result = successResult(execution, output, execution.editedArgs)
  const bytes = utf8Bytes(result.content)
  if (bytes <= options.maxOutputBytes) return result
  return errorResult(execution, `Tool "${execution.toolName}" ran, but its output is ${bytes} bytes, more than the limit of ${options.maxOutputBytes}; it was not kept`)
}

/** What the model reads of a call that threw, was cut off, or returned an invalid output. */
function failed(error: unknown, execution: Execution, wait: CallWait, options: ExecuteOptions): ThreadToolMessage {
  const { toolName } = execution
  // The call asks a person for input: it pauses (the run stores the request as an interrupt).
  if (error instanceof ToolInputRequired && options.onInputRequired && !wait.timedOut && !options.signal.aborted) return options.onInputRequired(execution, error.request)
  // The tool started and was cut off: it may have done its work (sent the mail, moved the money) anyway.
  if (wait.timedOut) {
    return errorResult(execution, `Tool "${toolName}" timed out after ${options.timeoutMs} ms; it may still have taken effect`)
  }
  if (options.signal.aborted) {
    return errorResult(execution, `Tool "${toolName}" was aborted: the run stopped before it finished; it may still have taken effect`)
  }
  if (error instanceof ToolValidationError) return errorResult(execution, error.message)
  if (isToolError(error)) return errorResult(execution, `Tool "${toolName}" failed: ${error.message}`)
  return errorResult(execution, options.failures.tool(error, execution))
}

/** A running call's wait: what cut it short (the run's stop or the timer), and the tool's signal if it asked for one. */
/** The signal a tool reads, made when first read (see `executeOne`): aborted already if the wait was cut. */
function signalOf(wait: CallWait): AbortSignal {
  if (!wait.controller) {
    wait.controller = new AbortController()
    if (wait.cut) wait.controller.abort(wait.cut.reason)
  }
  return wait.controller.signal
}

interface CallWait {
  cut: { readonly reason: unknown } | undefined
  controller: AbortController | undefined
  timedOut: boolean
}


/**
 * What the tool's promise settles to, unless the run stops or the time is up first: a tool that
 * ignores its signal must not hold the run.
 */
async function untilStopped(returned: PromiseLike<unknown>, wait: CallWait, options: ExecuteOptions): Promise<unknown> {
  let stop!: (reason: unknown) => void
  const stopped = new Promise<never>((_, reject) => {
    stop = (reason) => {
      if (wait.cut) return
      wait.cut = { reason }
      wait.controller?.abort(reason)
      reject(reason)
    }
  })
  const cancel = options.whenAborted(() => stop(options.signal.reason))
  const timer = setTimeout(() => {
    wait.timedOut = true
    stop(new Timeout())
  }, options.timeoutMs)
  try {
    return await Promise.race([returned, stopped])
  } finally {
    clearTimeout(timer)
    cancel()
  }
}

function notRun(call: CallRef): ThreadToolMessage {
  return errorResult(call, `Tool "${call.toolName}" did not run: the run stopped before it started`)
}

/** The record of a call that ran under a grant: decided by whoever gave it, through it. */
function grantedDraft(threadId: string, call: ThreadToolCall, grant: Grant, args: unknown, path: readonly SubagentHop[] | undefined): DecisionDraft {
  return {
    threadId,
    interruptId: '',
    toolCallId: call.id,
    toolName: call.name,
    ...(path && path.length > 0 ? { path } : {}),
    decision: 'granted',
    by: grant.by,
    at: new Date().toISOString(),
    channel: 'api',
    shownArgs: args,
    ranArgs: args,
    grantId: grant.id,
  }
}
