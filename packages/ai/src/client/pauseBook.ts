import { lazy } from './lazy.ts'

/**
 * The book of a pause (`pause.ts`: open interrupts, answers not yet sent), the client tools' runner
 * and the review watch are needed only once a run pauses, on an approval or a client tool; a chat
 * that never pauses never loads them (`paused.ts`). The client loads them before it applies a pause (while the
 * request still counts as in flight, so no idle state shows in between); until then there is no
 * interrupt to answer, no answer to send and no client tool running.
 */
export const pauseBook = lazy(() => import('./paused.ts'))
