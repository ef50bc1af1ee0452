import type { RunOutcome } from '../../protocol/interrupts.ts'
import type { ChatConfig } from '../options.ts'
import { toWire } from '../thread/step.ts'
import type { StoredInterrupt } from '../thread/threadStore.ts'

// How a run that stops with calls waiting ends (RUN_FINISHED's outcome), for every client: the
// interrupts a person or a Toolgate client tool answers through `resume`, and the calls of AG-UI
// frontend tools (`createChatHandler({ frontendTools })`, dialects/agui/frontendTools.ts), which an
// AG-UI client answers with `tool` messages.

/** A call of an AG-UI frontend tool: the client answers it with a `tool` message, not `resume`. */
export function isFrontendCall(config: ChatConfig, interrupt: StoredInterrupt): boolean {
  // A subagent's browser tool is its own `.client()` tool, whatever the request declared under its name.
  return interrupt.reason === 'client_tool' && interrupt.path === undefined && config.frontendTools.has(interrupt.toolName)
}

/**
 * How a run that stops on `waiting` ends: `interrupt` with everything a human or a Toolgate client
 * tool must answer through `resume`; when only frontend tool calls wait, `success` with their ids
 * (AG-UI 1.0: a run that stopped on a frontend tool call completed). With both, the interrupts come
 * first; once they are answered the run ends on the frontend calls alone.
 */
export function runOutcome(config: ChatConfig, waiting: readonly StoredInterrupt[]): RunOutcome {
  const asked = waiting.filter((interrupt) => !isFrontendCall(config, interrupt))
  if (asked.length > 0) return { type: 'interrupt', interrupts: asked.map((interrupt) => toWire(interrupt, config.tools)) }
  return waiting.length > 0 ? { type: 'success', pendingToolCallIds: waiting.map((interrupt) => interrupt.toolCallId) } : { type: 'success' }
}
