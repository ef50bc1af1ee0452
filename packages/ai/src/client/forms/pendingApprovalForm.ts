import type { AnyTool } from '../../tools/types.ts'
import type { ApprovalForm, FormApproval } from './approvalForm.ts'
import { pausedRun } from '../chunks/index.ts'

/**
 * The form of an approval this chat waits for, checking edits with the chat's own tool when it has
 * it. The form's code comes in the pause's chunk (`chunks/pausedRun.ts`), not with the page: an approval
 * is pending only once a run paused (the pause is the one writer of `approval-requested`), and by
 * then that chunk has loaded.
 */
export function formOfPendingApproval(approval: FormApproval, tools: readonly AnyTool[]): ApprovalForm {
  // Undefined until the chunk loaded: no run of this chat has paused.
  const book = pausedRun.get()
  if (!book) throw new Error(`The approval of ${approval.toolName} (${approval.toolCallId}) is not one this chat waits for: no run of it has paused yet`)
  return new book.ApprovalForm(approval, tools.find((tool) => tool.name === approval.toolName))
}
