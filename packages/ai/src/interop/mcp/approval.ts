import { evaluateApproval } from '../../tools/approval.ts'
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
  /** The SDK's request context: abort signal, auth info, `sendRequest` (e.g. for elicitation). */
  readonly extra: McpRequestExtra
}

/** Resolves `true` to let the call run; anything else refuses it. */
export type McpApprove<TContext = unknown> = (request: McpApprovalRequest<TContext>) => boolean | Promise<boolean>

/**
 * Why the call may not run, or `undefined` when it may. The tool's own policy decides first,
 * on validated input; a call it flags runs only when `approve` resolves exactly `true`.
 * `approve` may throw: the caller reports it as a failed call, so it fails closed.
 */
export async function approvalRefusal<TContext>(
  request: Omit<McpApprovalRequest<TContext>, 'reason'>,
  approve: McpApprove<TContext> | undefined,
): Promise<string | undefined> {
  const { tool, input, toolCallId, context } = request
  if (tool.needsApproval === false) return undefined
  const { required, reason } = await evaluateApproval(tool, input, { toolCallId, context })
  if (!required) return undefined
  const approved = approve ? await approve({ ...request, reason }) : false
  return approved === true ? undefined : `Tool "${tool.name}" was not approved, so it did not run`
}
