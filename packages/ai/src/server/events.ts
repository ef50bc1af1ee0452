import type { ChatEvent, TokenUsage } from '../protocol/events.ts'
import type { RunOutcome } from '../protocol/interrupts.ts'
import type { ThreadToolMessage } from '../protocol/messages.ts'
import type { ErrorCode } from '../protocol/errors.ts'
import { randomId } from '../util/randomId.ts'
import type { LoggedEvent, RunEventLog } from './threadStore.ts'
import { offerFrames, type FrameSink } from './http/directFrames.ts'

/** Where a run's events go, each with its sequence number in the run (1, 2, ...). */
export type EventSink = (event: ChatEvent, seq: number) => void

/**
 * The event stream of one run, and its only writer: every AG-UI event of a run is made here, in
 * an order AG-UI accepts. A text or reasoning message is always closed before anything else
 * starts, each tool call is closed once, and the run ends with exactly one RUN_FINISHED or RUN_ERROR.
 */
export class RunEvents {
  readonly threadId: string
  readonly runId: string
  readonly #sink: EventSink
  #seq = 0
  #ended = false
  /** The assistant message of the model step under way: its first text segment takes its id. */
  #step: { readonly messageId: string; segments: number } | undefined
  /** The text message open for deltas, if any. */
  #text: string | undefined
  /** The reasoning message open for deltas, if any. */
  #reasoning: string | undefined
  readonly #openCalls = new Set<string>()

  constructor(threadId: string, runId: string, sink: EventSink) {
    this.threadId = threadId
    this.runId = runId
    this.#sink = sink
  }

  started(): void {
    this.#emit({ type: 'RUN_STARTED', threadId: this.threadId, runId: this.runId })
  }

  /** A model step begins; `messageId` is the id of the assistant message it stores. */
  stepStarted(messageId: string): void {
    this.stepEnded()
    this.#step = { messageId, segments: 0 }
  }

  /**
   * Appends to the assistant's text. Text after a tool call opens a new text message (AG-UI wants
   * text closed before a call starts); the step's first one carries the stored message's id.
   */
  text(delta: string): void {
    if (delta === '') return
    this.#closeReasoning()
    if (this.#text === undefined) {
      const step = this.#step ?? { messageId: randomId('msg_'), segments: 0 }
      const messageId = step.segments++ === 0 ? step.messageId : randomId('msg_')
      this.#step = step
      this.#text = messageId
      this.#emit({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' })
    }
    this.#emit({ type: 'TEXT_MESSAGE_CONTENT', messageId: this.#text, delta })
  }

  /** Appends to the model's visible reasoning. */
  reasoning(delta: string): void {
    if (delta === '') return
    this.#closeText()
    if (this.#reasoning === undefined) {
      const messageId = randomId('msg_')
      this.#reasoning = messageId
      this.#emit({ type: 'REASONING_START', messageId })
      this.#emit({ type: 'REASONING_MESSAGE_START', messageId, role: 'reasoning' })
    }
    this.#emit({ type: 'REASONING_MESSAGE_CONTENT', messageId: this.#reasoning, delta })
  }

  toolCallStart(toolCallId: string, toolCallName: string): void {
    this.#closeMessages()
    this.#openCalls.add(toolCallId)
    const parent = this.#step?.messageId
    this.#emit({ type: 'TOOL_CALL_START', toolCallId, toolCallName, ...(parent === undefined ? {} : { parentMessageId: parent }) })
  }

  toolCallArgs(toolCallId: string, delta: string): void {
    if (delta !== '' && this.#openCalls.has(toolCallId)) this.#emit({ type: 'TOOL_CALL_ARGS', toolCallId, delta })
  }

  toolCallEnd(toolCallId: string): void {
    if (this.#openCalls.delete(toolCallId)) this.#emit({ type: 'TOOL_CALL_END', toolCallId })
  }

  /** Ends whatever the model left open: the step is over. */
  stepEnded(): void {
    this.#closeMessages()
    for (const toolCallId of [...this.#openCalls]) this.toolCallEnd(toolCallId)
  }

  result(result: ThreadToolMessage): void {
    const { id: messageId, toolCallId, content, status, output, reason, edited, attachments } = result
    this.#emit({
      type: 'TOOL_CALL_RESULT',
      messageId,
      toolCallId,
      content,
      role: 'tool',
      status,
      ...(status === 'success' ? { output } : {}),
      ...(reason === undefined ? {} : { reason }),
      ...(edited ? { edited } : {}),
      ...(attachments ? { attachments } : {}),
    })
  }

  finished(outcome: RunOutcome, usage?: TokenUsage): void {
    this.stepEnded()
    this.#emit({ type: 'RUN_FINISHED', threadId: this.threadId, runId: this.runId, outcome, ...(usage ? { usage: [usage] } : {}) })
    this.#ended = true
  }

  failed(code: ErrorCode, message: string): void {
    this.stepEnded()
    this.#emit({ type: 'RUN_ERROR', code, message })
    this.#ended = true
  }

  #closeText(): void {
    if (this.#text !== undefined) this.#emit({ type: 'TEXT_MESSAGE_END', messageId: this.#text })
    this.#text = undefined
  }

  #closeReasoning(): void {
    if (this.#reasoning === undefined) return
    this.#emit({ type: 'REASONING_MESSAGE_END', messageId: this.#reasoning })
    this.#emit({ type: 'REASONING_END', messageId: this.#reasoning })
    this.#reasoning = undefined
  }

  #closeMessages(): void {
    this.#closeText()
    this.#closeReasoning()
  }

  #emit(event: ChatEvent): void {
    if (this.#ended) return
    this.#sink(event, ++this.#seq)
  }
}

// The live stream of a run and its log. A run writes every event to both: the response that
// started it (while its client stays) and the run's event log, which readers that (re)attach read
// from any instance. A client that leaves does not stop the run; `stop` does.

/** Events are written to the log in batches: one write in flight per run, the rest queued behind it. */
class LogWriter {
  readonly #log: RunEventLog
  readonly #runId: string
  #queued: LoggedEvent[] = []
  #writing: Promise<void> = Promise.resolve()

  constructor(log: RunEventLog, runId: string) {
    this.#log = log
    this.#runId = runId
  }

  push(event: LoggedEvent): void {
    this.#queued.push(event)
    if (this.#queued.length === 1) this.#writing = this.#writing.then(() => this.#write(false))
  }

  /** Writes what is queued and marks the log complete. */
  end(): Promise<void> {
    this.#writing = this.#writing.then(() => this.#write(true))
    return this.#writing
  }

  async #write(final: boolean): Promise<void> {
    const events = this.#queued
    this.#queued = []
    if (events.length === 0 && !final) return
    try {
      await this.#log.append(this.#runId, events, final)
    } catch (error) {
      // The live stream goes on; only readers that reattach miss these events.
      console.error('[toolgate] could not log run events:', error)
    }
  }
}

function sseFrame(runId: string, seq: number, data: string): string {
  return `id: ${runId}:${seq}\ndata: ${data}\n\n`
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // Tells nginx-style proxies not to buffer the stream.
  'x-accel-buffering': 'no',
}

/** The response a run started from, while its client reads it. */
export interface LiveStream {
  write(frame: string): void
  end(): void
}

/**
 * Runs `run` (not awaited: it outlives the request), writing each of its events to the run's log
 * and to `live`. The log is complete once the run ends.
 */
export function launchRun(log: RunEventLog, runId: string, live: LiveStream | undefined, run: (sink: EventSink) => Promise<void>): void {
  const writer = new LogWriter(log, runId)
  const sink: EventSink = (event, seq) => {
    const data = JSON.stringify(event)
    writer.push({ seq, data })
    live?.write(sseFrame(runId, seq, data))
  }
  run(sink)
    .catch((error) => console.error('[toolgate] chat run failed:', error))
    .finally(() => {
      void writer.end()
      live?.end()
    })
}

/**
 * The live event stream of a run (`id: <runId>:<seq>` and `data: <json>`, as AG-UI's HTTP
 * clients read them). A client that disconnects only detaches: the run goes on, and the client may
 * read the rest from the log.
 *
 * Frames written in one turn of the event loop go out as one chunk: a model's network read or a
 * settled tool yields several events at once, and one chunk each cost the reader, the HTTP
 * adapter and the socket a round trip apiece. The body hands out what it holds when it is read
 * (nothing is queued in it unread), so under `toNodeHandler` the frames can go to the socket
 * directly instead (http/directFrames.ts).
 */
export function runStreamResponse(start: (live: LiveStream) => void): Response {
  /** The body can still be read: not cancelled, not closed, not handed to a direct sink. */
  let open = true
  let ended = false
  let pending = ''
  /** A read waits for frames: the next flush answers it. */
  let waiting = false
  let read = false
  let direct: FrameSink | undefined
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const close = () => {
    open = false
    controller.close()
  }
  const flush = () => {
    if (direct) {
      if (pending !== '') direct.write(pending)
      pending = ''
      return
    }
    if (!open || !waiting) return
    if (pending !== '') {
      controller.enqueue(encoder.encode(pending))
      pending = ''
      waiting = false
    }
    if (ended) close()
  }
  const body = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController
      },
      pull() {
        read = true
        waiting = true
        flush()
      },
      cancel() {
        open = false
        pending = ''
      },
    },
    { highWaterMark: 0 },
  )
  offerFrames(body, (sink) => {
    if (read || !open) return false
    close()
    if (ended) {
      sink.end(pending)
      pending = ''
      return true
    }
    direct = sink
    if (pending !== '') nextTurn(flush)
    return true
  })
  start({
    write: (frame) => {
      if (!open && !direct) return
      if (pending === '' && (direct || waiting)) nextTurn(flush)
      pending += frame
    },
    end: () => {
      if (ended) return
      ended = true
      if (direct) {
        direct.end(pending)
        direct = undefined
        pending = ''
      } else flush()
    },
  })
  return new Response(body, { status: 200, headers: SSE_HEADERS })
}

const encoder = new TextEncoder()

/**
 * Runs `task` once the current turn of the event loop is done (after its I/O callbacks' promises).
 * Only Node-compatible runtimes get `setImmediate`: Next.js' Edge runtime defines one that throws.
 */
const nextTurn: (task: () => void) => void =
  (globalThis as { process?: { release?: { name?: string } } }).process?.release?.name === 'node' && typeof setImmediate === 'function'
    ? (task) => void setImmediate(task)
    : (task) => void setTimeout(task, 0)

/** Where a reader (re)attaches: after event `after` of run `runId`. */
export interface ReplayFrom {
  readonly runId: string
  readonly after: number
}

/** How long a reader waits for new events before it checks that the run still lives. */
const REPLAY_POLL_MS = 1000

/** What a reader needs to know of the runs it follows. */
export interface ReplayRuns {
  /** Whether the run still holds its thread. */
  isLive(runId: string): Promise<boolean>
  /** For a run that died mid-way: the run that continues its turn (see `takeOverLostRun`), if any. */
  takeOver(runId: string): Promise<string | undefined>
}

/**
 * The rest of a run for a reader that (re)attaches: the logged events after `from.after`, then
 * the live ones as they are logged, until the run's last event. A run that died without one (its
 * process was killed) is continued by a new run once its lease lapsed, and the reader follows
 * that one; when nothing continues it, the stream ends with a RUN_ERROR that says so.
 */
export function replayResponse(log: RunEventLog, from: ReplayFrom, requestSignal: AbortSignal, runs: ReplayRuns): Response {
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let { runId, after } = from
      let quietSince = Date.now()
      try {
        while (!requestSignal.aborted) {
          const read = await log.read(runId, after)
          for (const event of read?.events ?? []) {
            controller.enqueue(encoder.encode(sseFrame(runId, event.seq, event.data)))
            after = event.seq
            quietSince = Date.now()
          }
          if (read?.ended) break
          // Silence: a run that no longer holds its thread will not write its last event.
          if (Date.now() - quietSince >= REPLAY_POLL_MS && !(await runs.isLive(runId))) {
            const late = await log.read(runId, after)
            if (late?.events.length || late?.ended) continue
            const next = await runs.takeOver(runId)
            if (next !== undefined && next !== runId) {
              runId = next
              after = 0
              quietSince = Date.now()
              continue
            }
            const event: ChatEvent = { type: 'RUN_ERROR', code: 'RUN_LOST', message: 'The run stopped without finishing; reload the thread' }
            controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`))
            break
          }
          await log.wait(runId, after, REPLAY_POLL_MS, requestSignal)
        }
      } catch (error) {
        console.error('[toolgate] replaying run events failed:', error)
      }
      try {
        controller.close()
      } catch {
        // the reader left
      }
    },
  })
  return new Response(body, { status: 200, headers: SSE_HEADERS })
}
