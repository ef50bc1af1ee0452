import { lazy } from './lazy.ts'

/**
 * The book of a pause (`pause.ts`: open interrupts, answers not yet sent) is needed only once a run
 * pauses, on an approval or a client tool; a chat that never pauses never loads it. The client loads
 * it before it applies a pause (while the request still counts as in flight, so no idle state shows
 * in between); until then there is no interrupt to answer and no answer to send.
 */
export const pauseBook = lazy(() => import('./pause.ts'))
