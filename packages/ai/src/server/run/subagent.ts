import type { DecisionSummary, SubagentHop } from '../../protocol/decisions.ts'
import type { SubagentErrorCode } from '../../protocol/events.ts'
import type { ThreadMessage, ThreadToolMessage, ThreadUserMessage } from '../../protocol/messages.ts'
import type { RunTrace, ToolSpan } from '../../telemetry/hooks.ts'
import type { ToolEntry, ToolRegistry } from '../../tools/toolRegistry.ts'
import type { AnyTool } from '../../tools/types.ts'
import { outputHook } from './outputHook.ts'
import { jsonBytes } from '../../util/jsonBytes.ts'
import { parseToolArguments } from '../../util/parseToolArguments.ts'
import { randomId } from '../../util/randomId.ts'
import { agentOf, type AgentSpec } from '../agents/agentSpec.ts'
import { ANONYMOUS } from '../decisions/records.ts'
import { StoreConflictError } from '../errors.ts'
import { StoreError } from '../stores/storeError.ts'
import type { RunEvents } from '../events/runEvents.ts'
import { errorResult, inCallOrder, successResult } from '../thread/results.ts'
import type { OpenStep, StoredInterrupt, SuspendedSubagent } from '../thread/threadStore.ts'
import type { Execution } from './callPlan.ts'
import { asked, byDelegation, decisionsOf, settleInterrupts, withDecision } from './interrupts.ts'
import { modelStep } from './modelStep.ts'
import type { Run } from './Run.ts'
import type { StepRun } from './stepRun.ts'
import { executeToolCalls, planToolCalls } from './toolCalls.ts'

// Agents inside agents: a call of an agent tool (`agentTool`) runs the agent's own model loop
// inside the run, with the run's machinery: `modelStep` streams its model (its events carry its
// `subagentRunId`), `planToolCalls` asks its tools' policies and the thread's grants, `executeToolCalls`
// runs its server tools, and its calls that wait for a person or the browser become interrupts of
// the run, stamped with the path that reached them. The subagent then stops (SUBAGENT_FINISHED
// `suspended`) and its state (history and open step) is stored in the run's open step, through the
// run's writer; answered, the call of its agent tool runs again and continues it there.

/** Where a step's calls run: the run's own model, or a subagent `path.length` delegations down. */
export interface Level {
  readonly run: Run
  readonly events: RunEvents
  readonly trace: RunTrace | undefined
  readonly path: readonly SubagentHop[]
  /** The assistant message whose calls run here. */
  readonly messageId: string | undefined
}

/** What the agent calls of a step came to: results, or interrupts (with their paths) and the subagents that wait on them. */
export interface Delegated {
  readonly results: ThreadToolMessage[]
  readonly interrupts: StoredInterrupt[]
  readonly subagents: SuspendedSubagent[]
}

type AgentOutcome = { readonly result: ThreadToolMessage } | { readonly suspended: SuspendedSubagent; readonly interrupts: readonly StoredInterrupt[] }

export function isAgentCall(execution: Execution): boolean {
  return agentOf(execution.entry.tool) !== undefined
}

/** Runs a step's agent calls side by side, each in its `execute_tool` span; never throws (a failure is the call's error result). */
export async function runAgentCalls(level: Level, executions: readonly Execution[], decided: ReadonlyMap<string, DecisionSummary>): Promise<Delegated> {
  const outcomes = await Promise.all(executions.map((execution) => traced(level, execution)))
  const delegated: Delegated = { results: [], interrupts: [], subagents: [] }
  for (const [index, outcome] of outcomes.entries()) {
    if ('result' in outcome) {
      // The decision the delegation ran under (kept while its subagent waited), else the step's.
      const { decision } = executions[index]!
      const result = decision && !decided.has(outcome.result.toolCallId) ? { ...outcome.result, decision } : withDecision(outcome.result, decided)
      level.events.result(result)
      delegated.results.push(result)
    } else {
      delegated.interrupts.push(...outcome.interrupts)
      delegated.subagents.push(outcome.suspended)
    }
  }
  return delegated
}

/** The call's `execute_tool` span holds the subagent's `invoke_agent` span; a subagent that waits ends it as a call still open. */
async function traced(level: Level, execution: Execution): Promise<AgentOutcome> {
  if (!level.trace) return runAgent(level, execution, undefined)
  let outcome!: AgentOutcome
  await level.trace.toolCall(execution, async (span) => {
    outcome = await runAgent(level, execution, span)
    if ('result' in outcome) return outcome.result
    span.waits()
    return errorResult(execution, WAITING)
  })
  return outcome
}

const WAITING = 'The agent waits for answers to its calls'

/** The subagent of one call: started, or continued with the answers to the calls it waited on. */
async function runAgent(level: Level, execution: Execution, span: ToolSpan | undefined): Promise<AgentOutcome> {
  const { run } = level
  const spec = agentOf(execution.entry.tool)!
  const { resume } = execution
  const subagentRunId = resume?.subagent.subagentRunId ?? randomId('sub_')
  const path = [...level.path, { agent: spec.name, toolCallId: execution.toolCallId, subagentRunId }]
  const parent = level.path.at(-1)
  const events = level.events.subagent({
    subagentRunId,
    name: spec.name,
    description: spec.description,
    parentToolCallId: execution.toolCallId,
    ...(level.messageId === undefined ? {} : { parentMessageId: level.messageId }),
    ...(parent ? { parentSubagentRunId: parent.subagentRunId } : {}),
  })
  const trace = span?.agent({ name: spec.name, subagentRunId, depth: path.length })
  const failed = (code: SubagentErrorCode, message: string): AgentOutcome => {
    events.stepEnded()
    level.events.subagentFailed(subagentRunId, code, message)
    trace?.end({ outcome: code === 'STOPPED' ? 'stopped' : 'error', usage: undefined, error: { code, message } })
    return { result: errorResult(execution, message) }
  }
  const { maxAgentDepth } = run.config.limits
  if (path.length > maxAgentDepth) return failed('AGENT_DEPTH_LIMIT', `Agent "${spec.name}" did not start: agents may nest ${maxAgentDepth} deep, and this call is ${path.length} deep`)
  const messages: ThreadMessage[] = resume ? [...resume.subagent.messages] : [taskMessage(spec, execution.input)]
  const host: StepRun = {
    config: { ...run.config, model: spec.model, tools: spec.tools, toolSearch: undefined, frontendTools: NO_NAMES },
    events,
    signal: run.signal,
    messages,
    // The app's middleware sees the run's own model and tools; a subagent's are the agent's.
    middleware: NO_MIDDLEWARE,
    trace,
    head: run.head,
    usage: run.usage,
    whenAborted: (end) => run.whenAborted(end),
  }
  const here = (messageId: string): Level => ({ run, events, trace, path, messageId })
  // Its history is kept with the thread (in memory while it runs, in the head while it waits): it counts toward the thread's size.
  const { maxThreadBytes } = run.config.limits
  const tooLarge = (...kept: readonly unknown[]) => run.head.bytes + jsonBytes(kept) > maxThreadBytes
  const full = () => failed('THREAD_FULL', `Agent "${spec.name}" stopped: its work so far does not fit the thread's limit of ${maxThreadBytes} bytes`)
  const suspend = (step: OpenStep, waiting: readonly StoredInterrupt[], interrupts: readonly StoredInterrupt[], subagents: readonly SuspendedSubagent[]): AgentOutcome => {
    if (tooLarge(messages, step, subagents)) return full()
    events.stepEnded()
    // Its own calls' waits begin now, in its trace: the human wait nests in its `invoke_agent` span.
    const own = asked(waiting, run.config.limits.interruptTtlMs, trace?.traceparent)
    level.events.subagentFinished(subagentRunId, { type: 'suspended', interruptIds: own.map((interrupt) => interrupt.id) })
    trace?.end({ outcome: 'interrupt', usage: undefined })
    const suspended: SuspendedSubagent = {
      toolCallId: execution.toolCallId,
      agent: spec.name,
      subagentRunId,
      ...(execution.decision ? { decision: execution.decision } : {}),
      messages,
      step: { ...step, interrupts: [], running: [], subagents: subagents.length > 0 ? subagents : undefined },
    }
    return { suspended, interrupts: [...own, ...interrupts] }
  }
  try {
    let steps = resume?.subagent.step.steps ?? 0
    if (resume) {
      const { step, waiting, delegated } = await settleAgentStep(here(resume.subagent.step.message.id), spec, resume.subagent.step, resume.answered)
      if (waiting.length > 0 || delegated.interrupts.length > 0) return suspend(step, waiting, delegated.interrupts, delegated.subagents)
      messages.push(step.message, ...inCallOrder(step.message, step.results))
    }
    while (steps < spec.maxSteps) {
      if (run.signal.aborted) return failed('STOPPED', STOPPED)
      if (tooLarge(messages)) return full()
      const { message, error } = await modelStep(host)
      steps += 1
      if (run.signal.aborted) return failed('STOPPED', STOPPED)
      if (error) return failed('MODEL_ERROR', `Agent "${spec.name}" failed: ${error.publicMessage}`)
      if (!message || message.toolCalls.length === 0) {
        const answer = message?.content ?? ''
        events.stepEnded()
        level.events.subagentFinished(subagentRunId, { type: 'success' }, answer)
        trace?.end({ outcome: 'success', usage: undefined })
        return { result: successResult(execution, answer) }
      }
      // The app's `toolInput` middleware sees a subagent's calls as the run's own: a refusal holds at any depth.
      const onInput = run.middleware.any ? (call: Parameters<typeof run.middleware.toolInput>[0], tool: AnyTool) => run.middleware.toolInput(call, tool) : undefined
      const plan = await planToolCalls(message.toolCalls, spec.tools, run.context, run.failures, { threadId: run.head.id, requester: run.head.turnBy ?? ANONYMOUS, grants: await run.grants(), path }, onInput)
      for (const result of plan.results) events.result(result)
      // A call run under a grant is recorded before it runs, as the run's own are (with their running mark).
      if (plan.granted.length > 0) await run.save({}, plan.granted)
      // Calls run under a grant carry it on their results.
      const decided = new Map(plan.executions.flatMap((execution) => (execution.decision ? [[execution.toolCallId, execution.decision] as const] : [])))
      const step: OpenStep = { message, results: plan.results, interrupts: [], running: [], steps }
      const ran = await executeAt(here(message.id), step, plan.executions, decided)
      const waiting = stamped(plan.interrupts, path)
      if (waiting.length > 0 || ran.interrupts.length > 0) return suspend(ran.step, waiting, ran.interrupts, ran.subagents)
      messages.push(message, ...inCallOrder(message, ran.step.results))
    }
    return failed('AGENT_STEP_LIMIT', `Agent "${spec.name}" made ${spec.maxSteps} model calls without answering; it was stopped`)
  } catch (error) {
    // A store write that failed (a grant's record) fails the run, as the run's own would.
    if (run.signal.aborted) return failed('STOPPED', STOPPED)
    if (isStoreFailure(error)) throw error
    return failed('INTERNAL', run.failures.tool(error, execution))
  }
}

const STOPPED = 'The run stopped before the agent finished'
const NO_NAMES: ReadonlySet<string> = new Set()
const NO_MIDDLEWARE: StepRun['middleware'] = { any: false, modelRequest: (request) => Promise.resolve(request) }

function isStoreFailure(error: unknown): boolean {
  return error instanceof StoreError || error instanceof StoreConflictError
}

/** The agent's first message: its instructions, then the task (the input's `task`, else the input as JSON). */
function taskMessage(spec: AgentSpec, input: unknown): ThreadUserMessage {
  const task = isTask(input) ? input.task : JSON.stringify(input)
  return { role: 'user', id: randomId('msg_'), content: spec.instructions ? `${spec.instructions}\n\n${task}` : task }
}

function isTask(input: unknown): input is { task: string } {
  return typeof input === 'object' && input !== null && Object.keys(input).length === 1 && typeof (input as { task?: unknown }).task === 'string'
}

/** A subagent's own interrupts, as the run stores and the wire shows them: with the path that reached them. */
function stamped(interrupts: readonly StoredInterrupt[], path: readonly SubagentHop[]): StoredInterrupt[] {
  return interrupts.map((interrupt) => ({ ...interrupt, path, subagentRunId: path.at(-1)!.subagentRunId }))
}

/**
 * Runs a step's calls where they were made: server tools with `executeToolCalls` (inside the run's
 * own running mark of the outermost agent call, so a crash reports that call interrupted and runs
 * nothing again), agent tools with their subagents. Returns the step with its results, and what
 * deeper subagents wait on.
 */
async function executeAt(
  level: Level,
  step: OpenStep,
  executions: readonly Execution[],
  decided: ReadonlyMap<string, DecisionSummary>,
): Promise<{ readonly step: OpenStep; readonly interrupts: readonly StoredInterrupt[]; readonly subagents: readonly SuspendedSubagent[] }> {
  const { run } = level
  const agents = executions.filter(isAgentCall)
  const plain = agents.length === 0 ? executions : executions.filter((execution) => !isAgentCall(execution))
  const executing = executeToolCalls(plain, {
    signal: run.signal,
    whenAborted: (end) => run.whenAborted(end),
    context: run.context,
    timeoutMs: run.config.limits.toolTimeoutMs,
    maxOutputBytes: run.config.limits.maxMessageBytes,
    failures: run.failures,
    attachments: { store: run.config.attachments, threadId: run.head.id, maxBytes: run.config.limits.maxAttachmentBytes },
    onResult: (result) => level.events.result(result),
    trace: level.trace,
    onOutput: outputHook(run.middleware, decided),
  })
  const [executed, delegated] = await Promise.all([executing, agents.length > 0 ? runAgentCalls(level, agents, decided) : NOTHING_DELEGATED])
  return { step: { ...step, results: [...step.results, ...executed, ...delegated.results] }, interrupts: delegated.interrupts, subagents: delegated.subagents }
}

const NOTHING_DELEGATED: Delegated = { results: [], interrupts: [], subagents: [] }

/**
 * A subagent's open step with the answers to its calls: its own interrupts settle as a run's do
 * (`settleInterrupts`: approved calls run, denials and browser results stand), its subagents that
 * waited continue with theirs. What still waits comes back: its own calls (a browser tool an
 * approval handed over), and deeper ones.
 */
async function settleAgentStep(level: Level, spec: AgentSpec, step: OpenStep, answered: readonly StoredInterrupt[]) {
  const { run, path } = level
  const { own, delegated } = byDelegation(answered, path.length)
  // Settled where they were asked, as the calls of this step: their path is where they were, not what they are.
  const local = own.map(({ path: _path, subagentRunId: _id, ...interrupt }) => interrupt)
  const settlement = await settleInterrupts(step.message, local, spec.tools, 'resume', run.failures)
  const decided = decisionsOf(local)
  const settled = settlement.results.map((result) => withDecision(result, decided))
  for (const result of settled) level.events.result(result)
  const resumed = resumedAgents(spec.tools, step, delegated)
  for (const result of resumed.results) level.events.result(result)
  const next: OpenStep = { ...step, message: settlement.message, results: [...step.results, ...settled, ...resumed.results], interrupts: [], running: [], subagents: undefined }
  const ran = await executeAt(level, next, [...settlement.executions, ...resumed.executions], decided)
  return { step: ran.step, waiting: stamped(settlement.interrupts, path), delegated: ran }
}

/**
 * The calls of agent tools whose subagents waited in `step`, ready to continue with the answers to
 * their calls (`delegated`, by call); a call whose agent tool is gone (a deploy removed it) fails.
 */
export function resumedAgents(tools: ToolRegistry, step: OpenStep, delegated: ReadonlyMap<string, readonly StoredInterrupt[]>): { readonly executions: Execution[]; readonly results: ThreadToolMessage[] } {
  const executions: Execution[] = []
  const results: ThreadToolMessage[] = []
  for (const subagent of step.subagents ?? []) {
    const entry = tools.get(subagent.agent)
    if (entry && agentOf(entry.tool)) executions.push(resumeOf(entry, step, subagent, delegated.get(subagent.toolCallId) ?? []))
    else results.push(errorResult({ toolCallId: subagent.toolCallId, toolName: subagent.agent }, `Tool "${subagent.agent}" is no longer available`))
  }
  return { executions, results }
}

function resumeOf(entry: ToolEntry, step: OpenStep, subagent: SuspendedSubagent, answered: readonly StoredInterrupt[]): Execution {
  const call = step.message.toolCalls.find((candidate) => candidate.id === subagent.toolCallId)
  const args = call ? parseToolArguments(call.arguments) : undefined
  return {
    toolCallId: subagent.toolCallId,
    toolName: subagent.agent,
    entry,
    input: args?.ok ? args.value : undefined,
    ...(subagent.decision ? { decision: subagent.decision } : {}),
    resume: { subagent, answered },
  }
}
