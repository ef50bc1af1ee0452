import { ToolValidationError } from '../errors.ts'
import type { ThreadToolCall, ThreadToolMessage } from '../protocol/messages.ts'
import { evaluateApproval } from '../tools/approval.ts'
import { validateToolInput } from '../tools/validateToolValue.ts'
import { parseToolArguments } from '../util/parseToolArguments.ts'
import type { Execution } from './executeToolCalls.ts'
import { approvalInterrupt, clientToolInterrupt } from './interrupts.ts'
import type { PendingInterrupt } from './threadStore.ts'
import { errorResult, type CallRef } from './toolResults.ts'
import type { Toolset } from './toolset.ts'

/** What becomes of each call of one model step. */
export interface CallPlan {
  /** Calls settled at once with an error the model sees (bad JSON, unknown tool, invalid input). */
  readonly results: ThreadToolMessage[]
  /** Server tools to run now. */
  readonly executions: Execution[]
  /** Calls that wait for a human or the browser. */
  readonly interrupts: PendingInterrupt[]
}

export async function planToolCalls(calls: readonly ThreadToolCall[], toolset: Toolset, context: unknown): Promise<CallPlan> {
  const plan: CallPlan = { results: [], executions: [], interrupts: [] }
  for (const call of calls) {
    const ref: CallRef = { toolCallId: call.id, toolName: call.name }
    const entry = toolset.get(call.name)
    if (!entry) {
      plan.results.push(errorResult(ref, `Unknown tool "${call.name}". Available tools: ${toolset.names.join(', ') || '(none)'}.`))
      continue
    }
    const args = parseToolArguments(call.arguments)
    if (!args.ok) {
      plan.results.push(errorResult(ref, `The arguments of tool "${call.name}" are not valid JSON (${args.error}); send one JSON object.`))
      continue
    }
    const checked = await validateInput(entry.tool, args.value)
    if (!checked.ok) {
      plan.results.push(errorResult(ref, checked.error))
      continue
    }
    const approval = await evaluateApproval(entry.tool, checked.value, { toolCallId: call.id, context })
    // Interrupts carry the arguments as sent (plain JSON, storable); execution later validates them again.
    if (approval.required) plan.interrupts.push(approvalInterrupt(ref, args.value, approval.reason))
    else if (entry.side === 'client') plan.interrupts.push(clientToolInterrupt(ref, args.value))
    else plan.executions.push({ ...ref, entry, input: checked.value })
  }
  return plan
}

type Checked = { ok: true; value: unknown } | { ok: false; error: string }

/** Input issues go back to the model with their paths, so it can correct the call. */
export async function validateInput(tool: Parameters<typeof validateToolInput>[0], value: unknown): Promise<Checked> {
  try {
    return { ok: true, value: await validateToolInput(tool, value) }
  } catch (error) {
    if (error instanceof ToolValidationError) return { ok: false, error: error.message }
    return { ok: false, error: `The input of tool "${tool.name}" could not be validated: ${(error as Error).message}` }
  }
}
