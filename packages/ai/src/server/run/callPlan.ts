import type { ToolFailures } from '../errors.ts'
import type { CallRef } from '../thread/results.ts'
import { ToolValidationError } from '../../errors.ts'
import type { ThreadToolMessage } from '../../protocol/messages.ts'
import type { AnyTool } from '../../tools/types.ts'
import { toolInputNow } from '../../tools/validateToolValue.ts'
import type { StoredInterrupt, SuspendedSubagent } from '../thread/threadStore.ts'
import type { DecisionSummary } from '../../protocol/decisions.ts'
import type { ToolInputAnswer } from '../../tools/inputRequest.ts'

// What becomes of a step's calls, as the planner (toolCalls.ts) and the settling of answers
// (interrupts.ts) both decide it.
import type { ToolEntry } from '../../tools/toolRegistry.ts'

/** A server tool call ready to run: its input is already validated. */
export interface Execution extends CallRef {
  readonly entry: ToolEntry
  readonly input: unknown
  /** The arguments the user approved instead of the model's, if any. */
  readonly editedArgs?: unknown
  /** The decision it runs under (an approval, an edit, a grant); telemetry puts it on the call's span. */
  readonly decision?: DecisionSummary
  /** A call of an agent tool whose subagent waited: it continues with the answers to its calls (run/subagent.ts). */
  readonly resume?: { readonly subagent: SuspendedSubagent; readonly answered: readonly StoredInterrupt[] }
  /** The answer a call that paused for input runs again with (run/inputInterrupts.ts). */
  readonly inputAnswer?: ToolInputAnswer
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

export type Checked = { ok: true; value: unknown } | { ok: false; error: string }

/**
 * Input issues go back to the model with their paths, so it can correct the call. Checked as the
 * schema answers: now from a synchronous one (no promise to await), `later` from an asynchronous one.
 */
export function validateInputNow(tool: AnyTool, value: unknown, call: CallRef, failures: ToolFailures): Checked | { readonly later: Promise<Checked> } {
  try {
    const checked = toolInputNow(tool, value)
    return checked.later ? { later: checked.later.then(valid, (error: unknown) => invalid(error, call, failures)) } : { ok: true, value: checked.value }
  } catch (error) {
    return invalid(error, call, failures)
  }
}

/** `validateInputNow`, waited for: where a call's input is checked off the turn's hot path (a rerun, an approved edit). */
export async function validateInput(tool: AnyTool, value: unknown, call: CallRef, failures: ToolFailures): Promise<Checked> {
  const checked = validateInputNow(tool, value, call, failures)
  return 'later' in checked ? checked.later : checked
}

const valid = (value: unknown): Checked => ({ ok: true, value })

function invalid(error: unknown, call: CallRef, failures: ToolFailures): Checked {
  if (error instanceof ToolValidationError) return { ok: false, error: error.message }
  // The schema itself threw: its message is the library's, not written for the model.
  return { ok: false, error: failures.tool(error, call) }
}
