import { ChatError } from '../chatError.ts'
import { untilAborted } from '../../util/untilAborted.ts'

// A module of its own, not in transport.ts: only a thread read (the stored-thread chunk) and the
// review client read JSON, so a chat page loads it with that chunk, not at startup.
export async function readJson(response: Response, signal: AbortSignal): Promise<unknown> {
  try {
    return await untilAborted(response.json(), signal)
  } catch (error) {
    if (signal.aborted) throw error
    throw new ChatError('BAD_RESPONSE', `The server sent a response that is not JSON (HTTP ${response.status})`, { cause: error })
  }
}
