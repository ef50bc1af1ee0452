// A paused run: the one book of open interrupts and unsent answers (`Pause`), the client tools'
// runner, the watch on approvals that wait for reviewers, and reading interrupts off the stream.
// All of it loads in the paused-run chunk (`chunks/pausedRun.ts`); other folders import its types only.
export type { Pause, Waiting } from './pause.ts'
export type { ClientToolResult, ClientToolRuns } from './clientTools.ts'
export type { ReviewWatch } from './reviewWatch.ts'
