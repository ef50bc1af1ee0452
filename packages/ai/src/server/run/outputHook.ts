import type { DecisionSummary } from '../../protocol/decisions.ts'
import type { ThreadToolMessage } from '../../protocol/messages.ts'
import { successResult } from '../thread/results.ts'
import { describeAttachment } from './attachments.ts'
import type { Execution } from './callPlan.ts'
import { withDecision } from './interrupts.ts'
import type { RunMiddleware } from './middleware.ts'

/**
 * What a call's result goes through before it streams (`ExecuteOptions.onOutput`): the app's
 * `toolOutput` middleware, then the decision it ran under. Without either, nothing (no hook to
 * await per call). The run's own calls and its subagents' take the same.
 */
export function outputHook(
  middleware: RunMiddleware,
  decided: ReadonlyMap<string, DecisionSummary>,
): ((result: ThreadToolMessage, execution: Execution) => Promise<ThreadToolMessage>) | undefined {
  if (!middleware.any && decided.size === 0) return undefined
  return async (result, execution) =>
    withDecision(
      await middleware.toolOutput(result, execution.input, execution.entry.tool, (output) => withAttachmentsOf(result, successResult(execution, output, execution.editedArgs))),
      decided,
    )
}

/** A result rebuilt from a middleware's new output keeps the files the tool returned. */
function withAttachmentsOf(original: ThreadToolMessage, rebuilt: ThreadToolMessage): ThreadToolMessage {
  const { attachments } = original
  if (!attachments || attachments.length === 0) return rebuilt
  return { ...rebuilt, content: [rebuilt.content, ...attachments.map(describeAttachment)].join('\n'), attachments }
}
