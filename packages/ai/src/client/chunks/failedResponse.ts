/** The chunk that reads a failed response (`failedResponse` in `index.ts`). */
export { errorFrom, networkError } from '../http/failedResponse.ts'
