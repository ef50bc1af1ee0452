/**
 * Reading tool calls as they stream, one chunk loaded when first needed (`callReader.ts`): their
 * arguments (the partial JSON parser) and their results (`readResult`).
 */
export { PartialJsonParser, finishPartialJson } from '../draft/partialJson.ts'
export { readResult } from '../stream/readResult.ts'
