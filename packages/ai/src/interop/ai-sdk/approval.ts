import type { Tool } from 'ai'
import { evaluateApproval } from '../../tools/approval.ts'
import type { AnyTool } from '../../tools/types.ts'
import { validateToolInput } from '../../tools/validateToolValue.ts'

type AISdkNeedsApproval = NonNullable<Tool<unknown, unknown>['needsApproval']>

/**
 * `needsApproval` as the AI SDK v6 takes it. A policy runs per call, as in Toolgate's own runtime:
 * on the validated input (the SDK hands on the input as the model sent it, see interop/ai-sdk/schema.ts),
 * failing closed when it throws. `{ reason }` asks too, but the SDK has no place for the reason.
 */
export function aiSdkNeedsApproval(tool: AnyTool): AISdkNeedsApproval {
  const policy = tool.needsApproval
  if (typeof policy !== 'function') return policy === true
  return async (input, { toolCallId, experimental_context }) => {
    let valid: unknown
    try {
      valid = await validateToolInput(tool, input)
    } catch {
      return true // the SDK validated this input already; if it now fails, ask rather than run
    }
    return (await evaluateApproval(tool, valid, { toolCallId, context: experimental_context })).required
  }
}
