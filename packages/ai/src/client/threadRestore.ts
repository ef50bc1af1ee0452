import { lazy } from './lazy.ts'

/**
 * Rebuilding the conversation from a stored thread (`fromSnapshot`) is needed only when a thread
 * is read (a reload, a resync), so it stays out of the page's startup bundle: the run stream loads
 * it before it hands on a thread it read.
 */
export const threadRestore = lazy(() => import('./fromSnapshot.ts'))
