import type { ThreadToolMessage, ThreadUserMessage } from '../protocol/messages.ts'
import type { MessageRequest } from '../protocol/requests.ts'
import { randomId } from '../util/randomId.ts'
import { authorizeThread, loadAuthorized } from './authorizeThread.ts'
import type { ChatConfig } from './config.ts'
import { HttpError } from './errors.ts'
import { rememberResolved } from './interrupts.ts'
import { newThread } from './newThread.ts'
import { isRunning, threadBusy } from './runLease.ts'
import { threadFull } from './threadSize.ts'
import { settleInterrupts } from './settleInterrupts.ts'
import { streamRun } from './streamRun.ts'
import type { Thread, VersionedThread } from './threadStore.ts'
import { updateThread } from './updateThread.ts'

/**
 * `POST { threadId?, message }`: claims the thread for a run and streams it. Interrupts still
 * pending are not an error: the user moved on, so they are denied and the turn proceeds.
 */
export async function startTurn(config: ChatConfig, request: Request, body: MessageRequest): Promise<Response> {
  const runId = randomId('run_')
  const user: ThreadUserMessage = { role: 'user', id: randomId('msg_'), content: body.message }

  // The app's context is resolved only once the request is authorized, and before the thread is
  // claimed, so a context function that throws leaves nothing held.
  if (body.threadId === undefined) {
    const threadId = randomId('thread_')
    await authorizeThread(config, request, threadId, 'create')
    const context = await config.resolveContext(request)
    const thread: Thread = { ...newThread(threadId), messages: [user], activeRun: { runId, startedAt: Date.now() } }
    if (!(await config.store.put(thread, 0))) throw new HttpError(409, 'VERSION_CONFLICT', 'A thread with this id already exists')
    return streamRun(config, request, { runId, claimed: { thread, version: 1 }, context, start: { steps: 0 } })
  }

  await loadAuthorized(config, request, body.threadId, 'write')
  const context = await config.resolveContext(request)
  let announced: ThreadToolMessage[] = []
  const claimed: VersionedThread = await updateThread(config.store, body.threadId, async (thread) => {
    if (isRunning(thread, config.limits.runLeaseMs)) throw threadBusy()
    const pending = thread.pending?.interrupts ?? []
    // Room for the superseded results, the message and a reply.
    if (thread.messages.length + pending.length + 2 > config.limits.maxThreadMessages) throw threadFull(config.limits.maxThreadMessages)
    announced = (await settleInterrupts(pending, config.toolset, 'supersede')).results
    return {
      ...thread,
      messages: [...thread.messages, ...announced, user],
      pending: undefined,
      activeRun: { runId, startedAt: Date.now() },
      resolvedInterruptIds: rememberResolved(thread.resolvedInterruptIds, pending),
    }
  })
  return streamRun(config, request, { runId, claimed, context, start: { steps: 0, announced } })
}
