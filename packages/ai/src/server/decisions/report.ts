import type { ChatConfig } from '../options.ts'
import type { ThreadChange } from '../thread/thread.ts'

/** Hands each record a written change carried to the app's `onDecision`, in order; its failures go to `onError`, never back to the request. */
export async function reportDecisions(config: ChatConfig, change: ThreadChange): Promise<void> {
  const { onDecision } = config
  if (!onDecision || !change.decisions) return
  for (const record of change.decisions) {
    try {
      await onDecision(record)
    } catch (error) {
      // The runId is not the record's concern: a decision is the thread's, whichever run asked.
      if (config.onError) config.onError(error, { threadId: record.threadId, runId: '', source: 'decision-hook', toolCallId: record.toolCallId, toolName: record.toolName })
      else console.error('[toolgate] onDecision threw:', error)
    }
  }
}
