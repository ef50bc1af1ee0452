import { inCallOrder, errorResult } from './results.ts'
import type { ThreadMessage, ThreadToolMessage } from '../../protocol/messages.ts'
import { isRunning } from './thread.ts'

import type { ToolRegistry } from '../../tools/toolRegistry.ts'
import type { OpenStep, ThreadHead } from './threadStore.ts'

/** A thread's open step and what to append, once whatever a dead run left is settled. */
export interface Recovery {
  readonly step: OpenStep | undefined
  readonly append: readonly ThreadMessage[]
  /** The results written for calls the dead run had started; the next run streams them. */
  readonly results: readonly ThreadToolMessage[]
  /** Calls of idempotent or read-only tools the dead run had started: the next run runs them again (they stay in `step.running`). */
  readonly rerun: readonly string[]
}

/**
 * What a request that takes a thread over from a run that died must write with its own change:
 * each call the run had started gets an error result saying it may have taken effect (it is never
 * run again by surprise), and a step left with every call settled joins the history. A thread
 * whose run still holds it, or with no call left running, comes back as it is.
 */
export function recoverLostRun(head: ThreadHead, leaseMs: number, tools: ToolRegistry): Recovery {
  const { step } = head
  // A step that still lists running calls once no run holds the thread (the run's lease lapsed, or
  // it let the thread go without storing their results) has calls whose outcome is unknown.
  if (!step || step.running.length === 0 || isRunning(head, leaseMs)) return { step, append: [], results: [], rerun: [] }
  const byId = new Map(step.message.toolCalls.map((call) => [call.id, call]))
  // Calls of idempotent and read-only server tools run again, under the same ids (running twice is
  // safe for both): at once when nothing else of the step waits for an answer, else with the
  // answered calls once the step's interrupts are all answered.
  const again = (toolCallId: string) => {
    const entry = tools.get(byId.get(toolCallId)?.name ?? '')
    return entry?.side === 'server' && (entry.tool.idempotent === true || entry.tool.readOnly === true)
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
