import { lazy } from './lazy.ts'

/**
 * Reading a stored thread (`restored.ts`: checking the snapshot, rebuilding the conversation from
 * it with `fromSnapshot`) is needed only when a thread is read (a reload, a resync), so it stays out
 * of the page's startup bundle: the run stream loads it while it asks for the thread.
 */
export const threadRestore = lazy(() => import('./restored.ts'))
