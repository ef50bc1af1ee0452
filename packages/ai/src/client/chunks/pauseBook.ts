import { lazy } from './lazy.ts'

/**
 * What only a paused run needs (`paused.ts`: reading its interrupts, the book of open interrupts
 * and unsent answers, the client tools' runner, the review watch) comes in one chunk, loaded when a
 * run first pauses, on an approval or a client tool; a chat that never pauses never loads it. The run
 * stream loads it before it hands on an interrupt outcome, and the client before it applies a pause
 * (while the request still counts as in flight, so no idle state shows in between); until then there
 * is no interrupt to answer, no answer to send and no client tool running.
 */
export const pauseBook = lazy(() => import('./pausedRun.ts'))
