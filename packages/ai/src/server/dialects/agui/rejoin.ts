import type { ResumeRequest } from '../../../protocol/requests.ts'
import type { AgUiMessage } from '../../../protocol/events.ts'
import type { ChatConfig } from '../../options.ts'
import type { AguiFields } from './runAgentInput.ts'
import { followRun } from '../../edge/reads.ts'
import { SSE_HEADERS } from '../../events/liveStream.ts'
import { NONE_OF_THE_RUN } from '../../events/replay.ts'
import { RunEvents } from '../../events/runEvents.ts'
import { toolMessageAnswers } from './toolMessages.ts'
import { isRunning, snapshot } from '../../thread/thread.ts'
import { storedHistory } from '../../thread/storedHistory.ts'
import { randomId } from '../../../util/randomId.ts'
import { sendSnapshot, threadAsAgUi } from '../../events/messagesSnapshot.ts'
import { connect } from './connect.ts'

// An AG-UI client connects with an input that says nothing new (CopilotKit v2 does on mount, so a
// reloaded page does). While no run holds the thread it gets the stored thread and what waits
// (connect.ts). While a run holds it, that answer would leave the client
// with the thread as it was and no way to see the rest of the run: it would take the page for idle,
// and its next message would be refused as busy. So it rejoins the run instead, as a reader that
// attaches does: the thread as the run began, then the run's events from its log, to its end (a
// run whose instance died is continued there, as for any reader who may write).

/**
 * The response to an AG-UI input with nothing new. While a run holds the thread (live, or dead with its lease lapsed): one run that
 * tells the client the thread as the live run began (`MESSAGES_SNAPSHOT`), then the live run's own
 * events from its start, as `GET` + `Accept: text/event-stream` serves them (any instance; a run
 * that died is continued). While none does, `connect` on the head read here: whether a run holds
 * the thread and what its `tool` messages answer are decided on one read of the stored head (the
 * cache's head cannot say whether another instance started a run since). `undefined` when the input
 * says something, its `tool` messages answer calls that wait (a resume claims them), or a dead run
 * left no events.
 */
export async function rejoinRun(config: ChatConfig, request: Request, body: ResumeRequest & AguiFields): Promise<Response | undefined> {
  if (body.resume.length > 0 || body.endsWithTool) return undefined
  const head = await config.store.head(body.threadId)
  if (toolMessageAnswers(head?.step, body.toolMessages ?? []).answers.length > 0) return undefined
  const runId = head?.activeRun?.runId
  if (!head || runId === undefined) return connect(config, request, body, { head })
  // Named by id, the run is read from its log even if it ends before this read starts. The request
  // is authorized as any reader's. A run whose instance died (its lease lapsed) is followed too: at
  // the end of its log the reader continues its turn (takeover), as a `GET` reader does; were the
  // page told the thread instead, the turn would wait for a reply until the next message. Its own
  // events are not told: the run that continues the turn starts again from the stored step (which
  // the snapshot holds), and an AG-UI client takes no run started inside one never finished.
  const live = isRunning(head, config.limits.runLeaseMs)
  const events = await followRun(config, request, head.id, { runId, after: live ? 0 : NONE_OF_THE_RUN }, head)
  // A dead run whose events are gone: the thread as it stands (`connect`, through a resume that finds nothing new).
  if (!live && events.status === 404) return undefined
  if (events.status !== 200 || !events.body) return events
  const { messages } = snapshot(head, await storedHistory(config, head), config.limits.runLeaseMs, config.tools)
  const held = (body.history ?? []).flatMap((message) => (message.id === undefined ? [] : [message.id]))
  return new Response(followedBy(snapshotFrames(head.id, threadAsAgUi(messages, undefined), held), events.body), { status: 200, headers: SSE_HEADERS })
}

/** A run of its own that only tells the thread as the live run began. Not part of any run's log, so without ids: a reconnect never resumes after them. */
function snapshotFrames(threadId: string, messages: readonly AgUiMessage[], held: readonly string[]): string {
  let frames = ''
  const events = new RunEvents(threadId, randomId('run_'), (event) => void (frames += `data: ${JSON.stringify(event)}\n\n`))
  events.started()
  sendSnapshot(events, messages, held)
  events.finished({ type: 'success' })
  return frames
}

function followedBy(first: string, rest: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = rest.getReader()
  return new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(new TextEncoder().encode(first)),
    async pull(controller) {
      const { done, value } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
}
