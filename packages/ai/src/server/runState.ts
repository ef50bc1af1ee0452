import { ToolgateError } from '../errors.ts'
import type { ChatEvent } from '../protocol/events.ts'
import type { ThreadMessage, ThreadToolMessage } from '../protocol/messages.ts'
import type { ChatConfig } from './config.ts'
import type { Thread } from './threadStore.ts'

/** One run: the working copy of its thread, and where its events go. */
export interface RunState {
  readonly config: ChatConfig
  readonly runId: string
  readonly signal: AbortSignal
  /** The app's context for tools and approval policies. */
  readonly context: unknown
  readonly emit: (event: ChatEvent) => void
  thread: Thread
  /** The stored version `thread` was last written as. */
  version: number
  readonly usage: { inputTokens: number; outputTokens: number; reported: boolean }
}

/** The thread changed under a run (its lease ran out and another request took over). */
export class StoreConflictError extends ToolgateError {
  constructor(threadId: string) {
    super('STORE_ERROR', `Thread "${threadId}" changed while the run was writing it`)
  }
}

/** Adds messages to the working copy; `save` persists them. */
export function append(run: RunState, ...messages: ThreadMessage[]): void {
  run.thread = { ...run.thread, messages: [...run.thread.messages, ...messages] }
}

/** Writes the working copy; while the run still holds the thread, the write renews its lease. */
export async function save(run: RunState, changes: Partial<Thread> = {}): Promise<void> {
  const now = Date.now()
  const merged: Thread = { ...run.thread, ...changes, updatedAt: now }
  const next: Thread = merged.activeRun ? { ...merged, activeRun: { ...merged.activeRun, renewedAt: now } } : merged
  if (!(await run.config.store.put(next, run.version))) throw new StoreConflictError(next.id)
  run.thread = next
  run.version += 1
}

export function emitResult(run: RunState, result: ThreadToolMessage): void {
  const { id: messageId, toolCallId, content, status, output, reason, edited } = result
  run.emit({
    type: 'TOOL_CALL_RESULT',
    messageId,
    toolCallId,
    content,
    role: 'tool',
    status,
    ...(status === 'success' ? { output } : {}),
    ...(reason === undefined ? {} : { reason }),
    ...(edited ? { edited } : {}),
  })
}

/** Results are stored in the order the model made the calls, whatever order they finished in. */
export function inCallOrder(results: readonly ThreadToolMessage[], callIds: readonly string[]): ThreadToolMessage[] {
  return [...results].sort((a, b) => callIds.indexOf(a.toolCallId) - callIds.indexOf(b.toolCallId))
}
