import type { EventSink } from './runEvents.ts'
import type { LoggedEvent, RunEventLog } from '../thread/threadStore.ts'

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
    // A blip of the store must not cost readers events: the batch is tried again. If the log stays
    // down, the live stream goes on, and a reader that reattaches finds the gap in the events'
    // numbers and is told to reload the thread (replay.ts), never handed a silent gap.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#log.append(this.#runId, events, final)
        return
      } catch (error) {
        if (attempt >= LOG_ATTEMPTS) {
          console.error('[toolgate] could not log run events:', error)
          return
        }
        await new Promise((resolve) => setTimeout(resolve, LOG_RETRY_MS * 2 ** (attempt - 1)))
      }
    }
  }
}

/** How many times a batch of events is written to the log, and the pause before the first retry (it doubles). */
const LOG_ATTEMPTS = 6
const LOG_RETRY_MS = 50

export function sseFrame(runId: string, seq: number, data: string): string {
  return `id: ${runId}:${seq}\ndata: ${data}\n\n`
}

export const SSE_HEADERS = {
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
 * adapter and the socket a round trip apiece (a fifth of a scripted turn).
 */
export function runStreamResponse(start: (live: LiveStream) => void): Response {
  const encoder = new TextEncoder()
  let open = true
  let pending = ''
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const flush = () => {
    if (open && pending !== '') controller.enqueue(encoder.encode(pending))
    pending = ''
  }
  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController
      start({
        write: (frame) => {
          if (!open) return
          if (pending === '') nextTurn(flush)
          pending += frame
        },
        end: () => {
          if (!open) return
          flush()
          open = false
          controller.close()
        },
      })
    },
    cancel() {
      open = false
    },
  })
  return new Response(body, { status: 200, headers: SSE_HEADERS })
}

/**
 * Runs `task` once the current turn of the event loop is done (after its I/O callbacks' promises).
 * Only Node-compatible runtimes get `setImmediate`: Next.js' Edge runtime defines one that throws.
 */
const nextTurn: (task: () => void) => void =
  (globalThis as { process?: { release?: { name?: string } } }).process?.release?.name === 'node' && typeof setImmediate === 'function'
    ? (task) => void setImmediate(task)
    : (task) => void setTimeout(task, 0)
