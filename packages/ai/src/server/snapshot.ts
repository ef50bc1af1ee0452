import type { ThreadSnapshot } from '../protocol/thread.ts'
import { toWire, unanswered } from './interrupts.ts'
import { isRunning } from './runLease.ts'
import type { Thread } from './threadStore.ts'

/** What a reloaded page needs to continue: the history and what is still waiting for an answer. */
export function snapshot(thread: Thread, leaseMs: number): ThreadSnapshot {
  const waiting = unanswered(thread.pending)
  return {
    threadId: thread.id,
    status: isRunning(thread, leaseMs) ? 'running' : thread.pending ? 'interrupted' : 'idle',
    messages: thread.messages,
    interrupts: isRunning(thread, leaseMs) ? [] : waiting.map(toWire),
  }
}
