import type { ThreadSnapshot } from '../protocol/thread.ts'
import { toWire, unanswered } from './interrupts.ts'
import { isRunning } from './runLease.ts'
import type { Thread } from './threadStore.ts'
import type { Toolset } from './toolset.ts'

/**
 * What a reloaded page needs to continue: the history and what is still waiting for an answer. A
 * batch whose every answer is stored but whose run was lost waits for nothing: the thread is
 * `idle` (a new message settles the batch; replaying one of its answers re-drives it).
 */
export function snapshot(thread: Thread, leaseMs: number, toolset: Toolset): ThreadSnapshot {
  const running = isRunning(thread, leaseMs)
  const waiting = running ? [] : unanswered(thread.pending)
  return {
    threadId: thread.id,
    status: running ? 'running' : waiting.length > 0 ? 'interrupted' : 'idle',
    messages: thread.messages,
    interrupts: waiting.map((interrupt) => toWire(interrupt, toolset)),
  }
}
