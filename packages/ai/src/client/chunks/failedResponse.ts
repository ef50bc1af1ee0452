/** The chunk that reads a failed response (`failedResponse` in `index.ts`). */
export { errorFrom } from '../http/failedResponse.ts'
