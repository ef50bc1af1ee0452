import { evaluateApproval } from '../../tools/approval.ts'
import { describeReviewers, NOBODY, checkedReviewers } from '../../server/decisions/reviewers.ts'
import { askApproval, principalOf, type McpApprovalOutcome, type McpAsking } from './askApproval.ts'
import type { McpRequestExtra, McpServableTool } from './types.ts'

/** What `approve` is asked about: one call, its input validated. */
export interface McpApprovalRequest<TContext = unknown> {
  readonly tool: McpServableTool
  readonly input: unknown
  /** Why the tool's policy asks, when it said (`{ reason }`). */
  readonly reason?: string | undefined
  /** The JSON-RPC id of the `tools/call` request. */
  readonly toolCallId: string
  readonly context: TContext
  /** The SDK's request context: its id, abort signal, `_meta` envelope, auth info. */
  readonly extra: McpRequestExtra
}

/** Resolves `true` to let the call run; anything else refuses it. */
export type McpApprove<TContext = unknown> = (request: McpApprovalRequest<TContext>) => boolean | Promise<boolean>

/** A call about to run, validated, with who may answer for it. */
export interface McpApprovalCall<TContext> extends Omit<McpApprovalRequest<TContext>, 'reason'> {
  /** The arguments as the model sent them, which a form shows and the user may edit. */
  readonly args: unknown
}

const RUN: McpApprovalOutcome = { run: true }

/**
 * Whether the call may run. The tool's own policy decides first, on validated input; a call it
 * flags is answered by `approve` when the app gave one (it runs only on exactly `true`), else by
 * the user through the client (input_required, or elicitation on 2025 connections). A policy that
 * names reviewers cannot be answered by the caller, who is the requester: refused without `approve`.
 * `approve` may throw: the caller reports it as a failed call, so it fails closed.
 */
export async function decideApproval<TContext>(call: McpApprovalCall<TContext>, approve: McpApprove<TContext> | undefined, asking: McpAsking): Promise<McpApprovalOutcome> {
  const { tool, input, toolCallId, context, extra, args } = call
  if (tool.needsApproval === false) return RUN
  const { required, reason, reviewers } = await evaluateApproval(tool, input, { toolCallId, context, requestedBy: principalOf(extra) })
  if (!required) return RUN
  if (approve) {
    const approved = await approve({ tool, input, reason, toolCallId, context, extra })
    return approved === true ? RUN : { run: false, text: `Tool "${tool.name}" was not approved, so it did not run` }
  }
  if (reviewers !== undefined) {
    const named = checkedReviewers(reviewers)
    const who = describeReviewers(typeof named === 'string' ? NOBODY : named)
    return { run: false, text: `Tool "${tool.name}" waits for ${who}, who cannot decide it over MCP (the caller may not approve their own call), so it did not run.` }
  }
  return askApproval({ tool, args, reason, toolCallId, context, extra }, asking)
}
