import { lazy } from './lazy.ts'

// The client's five lazily loaded chunks, out of a page's startup bundle: each loads when first
// needed, by the dynamic import here (the only ones in client/), from a barrel in this folder named
// for what it loads. No two share a module: a shared one would cost the page a table of chunk names.
export { notLoaded } from './lazy.ts'

/**
 * Reading tool calls (the partial JSON parser, the client's largest module, and how a result says
 * its call ended): only a run with tool calls needs it. The run stream loads it before it hands on
 * a `TOOL_CALL_START` or a `TOOL_CALL_RESULT`; the draft then creates parsers synchronously.
 */
export const callReading = lazy(() => import('./callReading.ts'))

/**
 * What only a paused run needs, loaded when a run first pauses, on an approval or a client tool; a
 * chat that never pauses never loads it. The run stream loads it before it hands on an interrupt
 * outcome, and the client before it applies a pause (while the request still counts as in flight,
 * so no idle state shows in between); until then there is no interrupt to answer, no answer to send
 * and no client tool running.
 */
export const pausedRun = lazy(() => import('./pausedRun.ts'))

/**
 * Reading what the server stored of a thread, needed only when a thread is read (a reload, a
 * resync) or answers are stored before the batch is complete: the run stream loads it while it
 * asks for the thread, or once such an answer arrives.
 */
export const storedThread = lazy(() => import('./storedThread.ts'))

/**
 * Attaching to a run again, needed only when a stream drops or a page reloads mid-run. A stream
 * that can be picked up again (Toolgate's, whose events carry the run's cursor) fetches it in the
 * background as it starts, so it is there when the network blips.
 */
export const reattaching = lazy(() => import('./reattaching.ts'))

/**
 * Reading a failed response (the server's error, or what to check when something else answered,
 * in long helpful words), needed only when a request fails. If even this chunk cannot load, the
 * status alone is reported.
 */
export const failedResponse = lazy(() => import('./failedResponse.ts'))
