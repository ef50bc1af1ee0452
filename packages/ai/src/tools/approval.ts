import type { AnyTool, ApprovalContext } from './types.ts'

/** Whether a human must approve a call, and why. */
export interface ApprovalRequirement {
  readonly required: boolean
  readonly reason?: string | undefined
  /** What a policy threw. It is kept out of `reason`, which the browser shows: it may hold secrets. */
  readonly error?: unknown
}

/** The reason a human reads when a policy could not decide. */
export const POLICY_FAILED_REASON = 'The approval policy could not decide; approve only if you are sure.'


/**
 * Evaluates a tool's `needsApproval` on validated input. A policy that throws fails closed: the
 * call waits for a human, with a generic reason; the error itself is returned for the server log.
 */
export async function evaluateApproval(tool: AnyTool, input: unknown, ctx: ApprovalContext): Promise<ApprovalRequirement> {
  const policy = tool.needsApproval
  if (typeof policy !== 'function') return { required: policy === true }
  try {
    const decision = await policy(input, ctx)
    if (typeof decision === 'object' && decision !== null) {
      return { required: true, reason: typeof decision.reason === 'string' ? decision.reason : undefined }
    }
    return { required: Boolean(decision) }
  } catch (error) {
    return { required: true, reason: POLICY_FAILED_REASON, error }
  }
}
