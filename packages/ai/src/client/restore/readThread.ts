import type { ThreadSnapshot } from '../../protocol/thread.ts'
import { isRecord } from '../../util/isRecord.ts'
import { ChatError } from '../chatError.ts'
import { isToolInterrupt } from './isToolInterrupt.ts'
import { readJson } from '../http/index.ts'

/** Reads a `GET ?threadId=` answer as the thread's snapshot; throws `BAD_RESPONSE` for anything else. */
export async function readThread(response: Response, signal: AbortSignal): Promise<ThreadSnapshot> {
  const snapshot = await readJson(response, signal)
  if (!isThreadSnapshot(snapshot)) throw new ChatError('BAD_RESPONSE', 'The server sent a thread that is not a ThreadSnapshot')
  return snapshot
}

function isThreadSnapshot(value: unknown): value is ThreadSnapshot {
  return (
    isRecord(value) &&
    typeof value.threadId === 'string' &&
    Array.isArray(value.messages) &&
    value.messages.every(isRecord) &&
    Array.isArray(value.interrupts) &&
    value.interrupts.every(isToolInterrupt)
  )
}
