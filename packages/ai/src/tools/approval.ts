import type { AnyTool, ApprovalContext } from './types.ts'

/** Whether a human must approve a call, and why. */
export interface ApprovalRequirement {
  readonly required: boolean
  readonly reason?: string | undefined
}

/**
 * Evaluates a tool's `needsApproval` on validated input. A policy that throws fails closed:
 * the call waits for a human, with the failure as the reason.
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
    const message = error instanceof Error ? error.message : String(error)
    return { required: true, reason: `The approval policy failed (${message}); approve only if you are sure.` }
  }
}
