import type { ResumeRequest } from '../../../protocol/requests.ts'
import type { ChatConfig } from '../../options.ts'
import type { AguiFields } from './runAgentInput.ts'
import { unanswered } from '../../thread/step.ts'
import { snapshotRun } from '../../run/startRun.ts'
import { authorizeThread, isRunning } from '../../thread/thread.ts'
import { storedHistory } from '../../thread/storedHistory.ts'
import type { ThreadHead } from '../../thread/threadStore.ts'
import { randomId } from '../../../util/randomId.ts'
import { runOutcome } from '../../run/outcome.ts'
import { threadAsAgUi } from '../../events/messagesSnapshot.ts'

// An AG-UI input that neither sends a message nor answers anything: a client reloading, or
// reconnecting after a dropped stream, asks where the thread stands. While a run holds the thread
// it rejoins the run (rejoin.ts); else it gets this answer.

/**
 * A run that changes nothing: `MESSAGES_SNAPSHOT` of the stored thread (empty for a thread not yet
 * created), then `RUN_FINISHED` with what still waits (interrupts, or frontend calls as
 * `pendingToolCallIds`). `read`: the head as the caller just read it from the store (whether a run
 * holds the thread, and what the client's `tool` messages answer, were decided on it); else it is
 * read here. Never the cache's head: whether another instance wrote since, only the store knows.
 */
export async function connect(config: ChatConfig, request: Request, body: ResumeRequest & AguiFields, read?: { readonly head: ThreadHead | undefined }): Promise<Response> {
  await authorizeThread(config, request, body.threadId, 'read')
  const head = read ? read.head : await config.store.head(body.threadId)
  const stored = head ? await storedHistory(config, head) : []
  const waiting = head && !isRunning(head, config.limits.runLeaseMs) ? unanswered(head.step) : []
  return snapshotRun(config, body.threadId, randomId('run_'), threadAsAgUi(stored, head), runOutcome(config, waiting), request)
}
