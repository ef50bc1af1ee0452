import type { ThreadMessage, ThreadToolMessage } from '../protocol/messages.ts'
import { deepEqual } from '../util/deepEqual.ts'
import { validateToolOutput } from '../tools/validateToolValue.ts'
import { ToolValidationError } from '../errors.ts'
import type { Execution } from './executeToolCalls.ts'
import { clientToolInterrupt } from './interrupts.ts'
import { validateInput } from './planToolCalls.ts'
import type { PendingInterrupt } from './threadStore.ts'
import { SUPERSEDED_REASON, deniedResult, errorResult, successResult, type CallRef } from './toolResults.ts'
import type { Toolset } from './toolset.ts'

/** What a batch of answered interrupts turns into. */
export interface Settlement {
  readonly results: ThreadToolMessage[]
  /** Approved server calls, to run now. */
  readonly executions: Execution[]
  /** Approved client calls: the browser runs them next. */
  readonly interrupts: PendingInterrupt[]
  /** Arguments users edited while approving, by tool call id, as JSON text. */
  readonly editedArguments: Map<string, string>
}

/**
 * `resume`: every interrupt is answered; apply the answers. `supersede`: the user sent a new
 * message instead; results the browser already produced and explicit denials stand, everything
 * else (unanswered, or approved but not yet run) is denied with `SUPERSEDED_REASON`.
 */
export async function settleInterrupts(
  interrupts: readonly PendingInterrupt[],
  toolset: Toolset,
  mode: 'resume' | 'supersede',
): Promise<Settlement> {
  const settlement: Settlement = { results: [], executions: [], interrupts: [], editedArguments: new Map() }
  for (const interrupt of interrupts) {
    const ref: CallRef = { toolCallId: interrupt.toolCallId, toolName: interrupt.toolName }
    const { answer } = interrupt
    const entry = toolset.get(interrupt.toolName)
    if (answer?.kind === 'approval' && !answer.approved) settlement.results.push(deniedResult(ref, answer.reason))
    else if (mode === 'supersede' && (answer === undefined || answer.kind === 'approval')) {
      settlement.results.push(deniedResult(ref, SUPERSEDED_REASON))
    } else if (!entry) settlement.results.push(errorResult(ref, `Tool "${interrupt.toolName}" is no longer available`))
    else if (answer?.kind === 'error') settlement.results.push(errorResult(ref, `Tool "${interrupt.toolName}" failed in the browser: ${answer.error}`))
    else if (answer?.kind === 'output') settlement.results.push(await clientResult(interrupt, entry.tool, answer.output))
    else if (answer?.kind === 'approval') {
      const edited = 'editedArgs' in answer && !deepEqual(answer.editedArgs, interrupt.input)
      const args = edited ? answer.editedArgs : interrupt.input
      if (edited) settlement.editedArguments.set(interrupt.toolCallId, JSON.stringify(args))
      const checked = await validateInput(entry.tool, args)
      if (!checked.ok) settlement.results.push(errorResult(ref, checked.error))
      else if (entry.side === 'client') settlement.interrupts.push(clientToolInterrupt(ref, args, edited))
      else settlement.executions.push({ ...ref, entry, input: checked.value, ...(edited ? { editedArgs: args } : {}) })
    } else {
      throw new Error(`Interrupt "${interrupt.id}" has no answer`)
    }
  }
  return settlement
}

/** A browser's result is checked against the output schema like a server tool's. */
async function clientResult(interrupt: PendingInterrupt, tool: Parameters<typeof validateToolOutput>[0], output: unknown) {
  const ref = { toolCallId: interrupt.toolCallId, toolName: interrupt.toolName }
  try {
    return successResult(ref, await validateToolOutput(tool, output), interrupt.edited ? interrupt.input : undefined)
  } catch (error) {
    if (error instanceof ToolValidationError) return errorResult(ref, error.message)
    return errorResult(ref, `The output of tool "${interrupt.toolName}" could not be validated: ${(error as Error).message}`)
  }
}

/** The model must see the call that actually ran, so edited arguments replace the model's in history. */
export function withEditedArguments(messages: readonly ThreadMessage[], edits: ReadonlyMap<string, string>): ThreadMessage[] {
  if (edits.size === 0) return [...messages]
  return messages.map((message) =>
    message.role === 'assistant' && message.toolCalls.some((call) => edits.has(call.id))
      ? { ...message, toolCalls: message.toolCalls.map((call) => (edits.has(call.id) ? { ...call, arguments: edits.get(call.id)! } : call)) }
      : message,
  )
}
