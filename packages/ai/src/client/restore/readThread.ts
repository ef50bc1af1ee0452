import type { ThreadSnapshot } from '../../protocol/thread.ts'
import { isRecord } from '../../util/isRecord.ts'
import { ChatError } from '../chatError.ts'
import { isToolInterrupt } from './isToolInterrupt.ts'
import { readJson } from '../http/index.ts'
import { callReading } from '../chunks/index.ts'

/** Reads a `GET ?threadId=` answer as the thread's snapshot; throws `BAD_RESPONSE` for anything else. */
export async function readThread(response: Response, signal: AbortSignal): Promise<ThreadSnapshot> {
  const snapshot = await readJson(response, signal)
  if (!isThreadSnapshot(snapshot)) throw new ChatError('BAD_RESPONSE', 'The server sent a thread that is not a ThreadSnapshot')
  // A subagent's call that waits is shown in its subagents' parts, which the call-reading chunk rebuilds (`draft/subagents.ts`).
  if (snapshot.interrupts.some((interrupt) => interrupt.path)) await callReading.load()
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
