/**
 * What only a paused run needs, one chunk loaded when a run first pauses (`pauseBook.ts`): the book
 * of open interrupts and unsent answers, and the runner of client tools (they run only on a pause).
 */
export { Pause } from './pause.ts'
export { ClientToolRuns } from './runClientTool.ts'
