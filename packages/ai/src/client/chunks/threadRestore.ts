import { lazy } from './lazy.ts'

/**
 * Reading what the server stored of a thread (`restored.ts`: a snapshot, the conversation rebuilt
 * from it, `ResumeAccepted`) is needed only when a thread is read (a reload, a resync) or answers
 * are stored before the batch is complete, so it stays out of the page's startup bundle: the run
 * stream loads it while it asks for the thread, or once such an answer arrives.
 */
export const threadRestore = lazy(() => import('./storedThread.ts'))
