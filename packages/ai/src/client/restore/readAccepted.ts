import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import { isRecord } from '../../util/isRecord.ts'
import { ChatError } from '../chatError.ts'
import { isToolInterrupt } from './isToolInterrupt.ts'
import { readJson } from '../http/index.ts'

/**
 * Reads a POST's JSON answer, `ResumeAccepted` (202): the answers are stored and others of the
 * batch are still missing, so the run still waits on `interrupts`.
 */
export async function readAccepted(response: Response, signal: AbortSignal): Promise<{ readonly threadId: string | undefined; readonly interrupts: readonly ToolInterrupt[] }> {
  const body = await readJson(response, signal)
  if (!isRecord(body) || !Array.isArray(body.interrupts) || !body.interrupts.every(isToolInterrupt)) {
    throw new ChatError('BAD_RESPONSE', 'The server sent JSON that is neither an event stream nor ResumeAccepted')
  }
  return { threadId: typeof body.threadId === 'string' ? body.threadId : undefined, interrupts: body.interrupts }
}
