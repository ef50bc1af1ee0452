import { lazy } from './lazy.ts'

/**
 * The partial JSON parser, the client's largest module: only a call whose arguments stream needs
 * it, so it stays out of the page's startup bundle. The run stream loads it before it hands on a
 * `TOOL_CALL_START`; the draft then creates parsers synchronously.
 */
export const argumentsParser = lazy(() => import('./partialJson.ts'))
