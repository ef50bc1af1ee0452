import type { AnyTool, ApprovalContext, RejectedCall } from './types.ts'

/** Whether a human must approve a call, and why. */
export interface ApprovalRequirement {
  readonly required: boolean
  readonly reason?: string | undefined
  /** What a policy threw. It is kept out of `reason`, which the browser shows: it may hold secrets. */
  readonly error?: unknown
  /** Who must decide, when the policy named reviewers (unchecked: the runtime checks it). */
  readonly reviewers?: unknown
}

/** The reason a human reads when a policy could not decide. */
export const POLICY_FAILED_REASON = 'The approval policy could not decide; approve only if you are sure.'


/** The requirement of a tool whose `needsApproval` is no function (most tools): known without a call or a wait; `undefined` for a policy. */
export function fixedApproval(tool: AnyTool): ApprovalRequirement | undefined {
  const policy = tool.needsApproval
  return typeof policy === 'function' ? undefined : { required: policy === true }
}

/**
 * Evaluates a tool's `needsApproval` on validated input. A policy that throws fails closed: the
 * call waits for a human, with a generic reason; the error itself is returned for the server log.
 */
export async function evaluateApproval(tool: AnyTool, input: unknown, ctx: ApprovalContext): Promise<ApprovalRequirement> {
  const policy = tool.needsApproval
  if (typeof policy !== 'function') return fixedApproval(tool)!
  try {
    const decision = await policy(input, ctx)
    if (typeof decision === 'object' && decision !== null) {
      const reason = typeof decision.reason === 'string' ? decision.reason : undefined
      return 'reviewers' in decision && decision.reviewers !== undefined ? { required: true, reason, reviewers: decision.reviewers } : { required: true, reason }
    }
    return { required: Boolean(decision) }
  } catch (error) {
    return { required: true, reason: POLICY_FAILED_REASON, error }
  }
}

/** The tool's `rejectMessage` for a call; one that throws or returns no text gives `undefined` (the default text). */
export function rejectMessageOf(tool: AnyTool | undefined, call: RejectedCall): string | undefined {
  const rejectMessage = tool?.rejectMessage
  if (typeof rejectMessage === 'string') return rejectMessage
  if (typeof rejectMessage !== 'function') return undefined
  try {
    const text = rejectMessage({ toolCallId: call.toolCallId, toolName: call.toolName, input: call.input })
    return typeof text === 'string' && text.trim() !== '' ? text : undefined
  } catch (error) {
    console.error(`[toolgate] rejectMessage of tool "${call.toolName}" threw; the default text is used:`, error)
    return undefined
  }
}

/** What the model reads for a denied call: the tool's `rejectMessage` with the human's reason after it, or the default. */
export function denialText(reason: string | undefined, rejectMessage: string | undefined): string {
  if (rejectMessage === undefined) return `denied by the user: ${reason ?? 'no reason given'}`
  return reason === undefined ? rejectMessage : `${rejectMessage}\nThe user's reason: ${reason}`
}
