import { SSE_HEADERS, sseFrame } from './liveStream.ts'
import { RunEvents } from './runEvents.ts'
import type { RunEvent } from '../../protocol/events.ts'
import type { RunEventLog } from '../thread/threadStore.ts'

/** Where a reader (re)attaches: after event `after` of run `runId`. */
export interface ReplayFrom {
  readonly runId: string
  readonly after: number
}

const EVENTS_LOST = 'Some events of this run were lost by the store; reload the thread to see where it stands'

/**
 * A position past any run's log: the reader wants none of the run's events, only the run that
 * continues its turn (an AG-UI page that rejoins a run whose instance died, dialects/agui/rejoin.ts).
 */
export const NONE_OF_THE_RUN = Number.MAX_SAFE_INTEGER

/** Events read from the log at a time. */
const REPLAY_PAGE = 500

/** How long a reader waits for new events before it checks that the run still lives. */
const REPLAY_POLL_MS = 1000

/** What a reader needs to know of the runs it follows. */
export interface ReplayRuns {
  /** Whether the run still holds its thread. */
  isLive(runId: string): Promise<boolean>
  /**
   * For a run that died mid-way: the run that continues its turn (see `takeOverLostRun`), if any,
   * or why this reader may not continue it.
   */
  takeOver(runId: string): Promise<string | undefined | { readonly refused: string }>
}

/**
 * The rest of a run for a reader that (re)attaches: the logged events after `from.after`, then
 * the live ones as they are logged, until the run's last event. A run that died without one (its
 * process was killed) is continued by a new run once its lease lapsed, and the reader follows
 * that one, after the dead run's end (`deadRunEnd`); when nothing continues it, the stream ends
 * with a RUN_ERROR that says so, and so it does (`EVENTS_LOST`) when the reader was shown events
 * of the dead run that its log never got.
 */
export function replayResponse(log: RunEventLog, threadId: string, from: ReplayFrom, requestSignal: AbortSignal, runs: ReplayRuns): Response {
  const encoder = new TextEncoder()
  // The log is read a page at a time, and the next page only once the reader took the last (the
  // stream's queue is below its mark): a long run never sits whole in memory, and a reader that
  // stops reading stops the reads.
  let demanded: (() => void) | undefined
  const demand = (controller: ReadableStreamDefaultController<Uint8Array>) =>
    (controller.desiredSize ?? 1) > 0 || requestSignal.aborted ? Promise.resolve() : new Promise<void>((resolve) => (demanded = resolve))
  const wake = () => {
    demanded?.()
    demanded = undefined
  }
  requestSignal.addEventListener('abort', wake, { once: true })
  const body = new ReadableStream<Uint8Array>({
    pull: wake,
    cancel: wake,
    async start(controller) {
      let { runId, after } = from
      let quietSince = Date.now()
      void run()
      async function run() {
        try {
          while (!requestSignal.aborted) {
            await demand(controller)
            if (requestSignal.aborted) break
            const read = await log.read(runId, after, REPLAY_PAGE, threadId)
            let page = ''
            for (const event of read?.events ?? []) {
              if (event.seq !== after + 1) {
                // The log lost events (its store failed longer than the run's retries): the reader
                // cannot be given the run gapless, so it is told to read the thread instead.
                if (page !== '') controller.enqueue(encoder.encode(page))
                new RunEvents(threadId, runId, (lostEvent) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(lostEvent)}\n\n`))).failed('EVENTS_LOST', EVENTS_LOST)
                return close()
              }
              page += sseFrame(runId, event.seq, event.data)
              after = event.seq
              quietSince = Date.now()
            }
            if (page !== '') controller.enqueue(encoder.encode(page))
            if (read?.ended) break
            // Silence: a run that no longer holds its thread will not write its last event.
            if (Date.now() - quietSince >= REPLAY_POLL_MS && !(await runs.isLive(runId))) {
              const late = await log.read(runId, after, 1, threadId)
              if (late?.events.length || late?.ended) continue
              const next = await runs.takeOver(runId)
              // Not part of the run's log, so without an id: a reconnect must not resume after it.
              const lost = new RunEvents(threadId, runId, (event) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`)))
              if (typeof next === 'object') {
                lost.lost(next.refused)
                break
              }
              if (next !== undefined && next !== runId) {
                const end = after === NONE_OF_THE_RUN ? '' : await deadRunEnd(log, threadId, runId, after)
                if (requestSignal.aborted) break
                // It was shown events the log never got: what they left open is not known, so the
                // reader is told to read the thread (where the turn goes on) rather than kept with half a reply.
                if (end === undefined) {
                  lost.failed('EVENTS_LOST', EVENTS_LOST)
                  break
                }
                if (end !== '') controller.enqueue(encoder.encode(end))
                runId = next
                after = 0
                quietSince = Date.now()
                continue
              }
              lost.lost()
              break
            }
            await log.wait(runId, after, REPLAY_POLL_MS, requestSignal, threadId)
          }
        } catch (error) {
          console.error('[toolgate] replaying run events failed:', error)
        }
        close()
      }
      function close() {
        requestSignal.removeEventListener('abort', wake)
        try {
          controller.close()
        } catch {
          // the reader left
        }
      }
    },
  }, new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }))
  return new Response(body, { status: 200, headers: SSE_HEADERS })
}

/**
 * The end of a run that died, for a reader that holds its events up to `after`: what it left open
 * (text and reasoning messages, tool calls) closed, then RUN_FINISHED. An AG-UI client takes no
 * RUN_STARTED inside a run that never finished, and the run that continues the turn comes next in
 * the same stream. RUN_FINISHED, not RUN_ERROR: in AG-UI a RUN_ERROR ends the stream (nothing may
 * follow it), while the turn is not lost here, it goes on in the next run (which starts again
 * from the stored step, so the dead run's calls are not pending). Empty when the reader holds none
 * of the run (not even its RUN_STARTED). `undefined` when it holds events past the log's end: its
 * instance told them live while the log stayed down past its retries (events/logWriter.ts), so
 * what they opened cannot be closed from the log.
 *
 * These events are not in the run's log, so they carry no id: a reader that reconnects after them
 * resumes after the dead run's last logged event (and is told its end again) or, once it got an
 * event of the continuing run, in that run. An id such as `<deadRun>:<after + 1>` would name an
 * event the log never had. Toolgate's client keeps reading past a RUN_FINISHED without an id.
 *
 * The log is read again from its start (a page at a time): a takeover is rare, and a reader that
 * resumed mid-run (`Last-Event-ID`) holds events this stream never sent.
 */
async function deadRunEnd(log: RunEventLog, threadId: string, runId: string, after: number): Promise<string | undefined> {
  let started = false
  const open = new Map<string, RunEvent>() // what closes each open thing, by what it opens
  let read = 0
  while (read < after) {
    const page = await log.read(runId, read, Math.min(REPLAY_PAGE, after - read), threadId)
    if (!page || page.events.length === 0) break
    for (const { seq, data } of page.events) {
      if (seq > after) break
      read = seq
      const event = JSON.parse(data) as RunEvent
      if (event.type === 'RUN_STARTED') started = true
      else if (event.type === 'TEXT_MESSAGE_START') open.set(`text ${event.messageId}`, { type: 'TEXT_MESSAGE_END', messageId: event.messageId })
      else if (event.type === 'TEXT_MESSAGE_END') open.delete(`text ${event.messageId}`)
      else if (event.type === 'REASONING_START') open.set(`reasoning ${event.messageId}`, { type: 'REASONING_END', messageId: event.messageId })
      else if (event.type === 'REASONING_END') open.delete(`reasoning ${event.messageId}`)
      else if (event.type === 'REASONING_MESSAGE_START') open.set(`thought ${event.messageId}`, { type: 'REASONING_MESSAGE_END', messageId: event.messageId })
      else if (event.type === 'REASONING_MESSAGE_END') open.delete(`thought ${event.messageId}`)
      else if (event.type === 'TOOL_CALL_START') open.set(`call ${event.toolCallId}`, { type: 'TOOL_CALL_END', toolCallId: event.toolCallId })
      else if (event.type === 'TOOL_CALL_END') open.delete(`call ${event.toolCallId}`)
      // A subagent the run left open ends with it (AG-UI refuses a run that finishes while one is active).
      else if (event.type === 'SUBAGENT_STARTED') open.set(`subagent ${event.subagentRunId}`, { type: 'SUBAGENT_ERROR', subagentRunId: event.subagentRunId, code: 'INTERNAL', message: 'The run stopped without finishing' })
      else if (event.type === 'SUBAGENT_FINISHED' || event.type === 'SUBAGENT_ERROR') open.delete(`subagent ${event.subagentRunId}`)
    }
  }
  if (read < after) return undefined
  if (!started) return ''
  // Innermost first: a reasoning message closes before the reasoning that holds it.
  const closing: RunEvent[] = [...open.values()].reverse()
  closing.push({ type: 'RUN_FINISHED', threadId, runId, outcome: { type: 'success' } })
  return closing.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')
}
