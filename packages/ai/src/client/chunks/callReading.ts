/** The chunk that reads tool calls as they stream (`callReading` in `index.ts`): their arguments (the partial JSON parser) and their results. */
export { PartialJsonParser, finishPartialJson } from '../draft/partialJson.ts'
export { readResult } from '../stream/readResult.ts'
