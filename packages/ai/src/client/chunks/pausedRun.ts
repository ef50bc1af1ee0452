/**
 * The chunk of what only a paused run needs (`pausedRun` in `index.ts`): reading its interrupts off
 * the stream, the book of open interrupts and unsent answers, the runner of client tools (they run
 * only on a pause), the watch on approvals that wait for reviewers (they too arrive only with a
 * pause), and the form of an approval (`forms/pendingApprovalForm.ts`: an approval is pending only once a run paused).
 */
export { toolInterrupts } from '../pause/readInterrupts.ts'
export { Pause } from '../pause/pause.ts'
export { ClientToolRuns } from '../pause/clientTools.ts'
export { ReviewWatch } from '../pause/reviewWatch.ts'
export { ApprovalForm } from '../forms/approvalForm.ts'
