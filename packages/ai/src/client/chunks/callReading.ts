/**
 * The chunk that reads tool calls as they stream (`callReading` in `index.ts`): their arguments (the
 * partial JSON parser), their results, and the subagents an agent tool's calls run.
 */
export { PartialJsonParser, finishPartialJson } from '../draft/partialJson.ts'
export { readCallEvent } from '../stream/readCallEvent.ts'
export { restoreSubagents } from '../draft/subagents.ts'
export { applyCallEvent } from '../draft/callEvents.ts'
