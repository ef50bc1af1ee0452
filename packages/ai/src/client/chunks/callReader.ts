import { lazy } from './lazy.ts'

/**
 * Reading tool calls (`callReading.ts`: the partial JSON parser, the client's largest module, and
 * how a result says its call ended): only a run with tool calls needs it, so it stays out of the
 * page's startup bundle. The run stream loads it before it hands on a `TOOL_CALL_START` or a
 * `TOOL_CALL_RESULT`; the draft then creates parsers synchronously.
 */
export const callReader = lazy(() => import('./callReading.ts'))
