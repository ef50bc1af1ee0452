import type { EventSink } from './runEvents.ts'
import { takeTelling, type EventFrames } from './eventFrames.ts'
import type { RunEvent } from '../../protocol/events.ts'
import type { LoggedEvent, RunEventLog } from '../thread/threadStore.ts'
import { offerFrames, type FrameSink } from '../edge/node/directFrames.ts'
import { NodeRequest } from '../edge/node/nodeRequest.ts'
import { nextTurn } from '../../util/nextTurn.ts'

// The live stream of a run and its log. A run writes every event to both: the response that
// started it (while its client stays) and the run's event log, which readers that (re)attach read
// from any instance. A client that leaves does not stop the run; `stop` does.

/**
 * Events are written to the log in batches: those of one event-loop turn together, one write in
 * flight per run, the rest queued behind it; the last write marks the log complete. On a log
 * `inCommits`, a thread commit the run sends while a batch waits here carries it instead (`ride`),
 * as the one write in flight, and the run's release carries what this writer had not yet written.
 */
class LogWriter {
  readonly #log: RunEventLog
  readonly #threadId: string
  readonly #runId: string
  #queued: LoggedEvent[] = []
  /** The batch on its way. */
  #sending: readonly LoggedEvent[] = []
  /** Events another write carries (`carried`). */
  #carried: LoggedEvent[] = []
  #completed = false
  #scheduled = false
  #writing = false
  #ending = false
  #ended = false
  #complete: (() => void) | undefined

  constructor(log: RunEventLog, threadId: string, runId: string) {
    this.#log = log
    this.#threadId = threadId
    this.#runId = runId
  }

  push(event: LoggedEvent): void {
    this.#queued.push(event)
    this.#schedule()
  }

  /**
   * Writes what is queued and marks the log complete; calls `done` once that write is done (or
   * failed), in the microtask that hears of it: the live stream then ends before the frames of
   * this event-loop turn would go out alone (`atTurnEnd`).
   */
  end(done: () => void): void {
    // Completed by the release: a batch still on its way adds nothing a reader needs.
    if (this.#completed) return done()
    this.#ending = true
    this.#complete = done
    this.#schedule()
  }

  /**
   * The queued batch, for a thread commit being sent now to carry instead of this writer (`rode`
   * says how that went): only while no write of the log is on its way, so batches land in order,
   * and those queued behind it wait for its answer as they would for a batch's.
   */
  ride(): readonly LoggedEvent[] | undefined {
    if (this.#writing || this.#ended || this.#queued.length === 0) return undefined
    const events = this.#queued
    this.#queued = []
    this.#writing = true
    this.#sending = events
    return events
  }

  /** The commit that carried `events` (`ride`) was answered: written (`landed`), or else they are written here, first. */
  rode(events: readonly LoggedEvent[], landed: boolean): void {
    if (this.#sending !== events) return
    if (!landed && !this.#ended) this.#queued = [...events, ...this.#queued]
    this.#written()
  }

  #schedule(): void {
    if (this.#scheduled || this.#writing || this.#ended) return
    this.#scheduled = true
    atTurnEnd(logWrites, this.#write)
  }

  /**
   * Every event the log has not acknowledged, in order, for another write to carry (the run's
   * release): the batch on its way, then the queued ones, which this writer then holds back
   * (`uncarried` gives them back).
   */
  carried(): LoggedEvent[] {
    this.#carried.push(...this.#queued)
    this.#queued = []
    return [...this.#sending, ...this.#carried]
  }

  /** The write that carried them failed: they are written here, first. */
  uncarried(): void {
    this.#queued = [...this.#carried, ...this.#queued]
    this.#carried = []
    if (this.#queued.length > 0) this.#schedule()
  }

  /** The log was completed by the write that carried the last events: nothing more is written. */
  completed(): void {
    this.#completed = true
    this.#ended = true
    this.#queued = []
    this.#carried = []
    this.#complete?.()
  }

  readonly #write = () => {
    this.#scheduled = false
    // A commit carrying a batch was sent since this write was scheduled: its answer schedules the next.
    if (this.#ended || this.#writing) return
    const events = this.#queued
    const final = this.#ending
    if (events.length === 0 && !final) return
    this.#queued = []
    this.#writing = true
    this.#sending = events
    this.#ended = final
    // The first try is the store's own promise (most writes need no other); a failure is retried.
    let appended: Promise<void>
    try {
      appended = Promise.resolve(this.#log.append(this.#runId, events, final, this.#threadId))
    } catch (error) {
      appended = Promise.reject(error)
    }
    appended.then(this.#written, (error: unknown) => appendAgain(this.#log, this.#threadId, this.#runId, events, final, error).then(this.#written))
  }

  readonly #written = () => {
    this.#writing = false
    this.#sending = []
    if (this.#ended) return this.#complete?.()
    if (this.#queued.length > 0 || this.#ending) this.#schedule()
  }
}

/**
 * What every run does at the end of an event-loop turn, in one task for all of them (a run
 * streaming a delta per turn would otherwise pay one for its log batch and one for its frames):
 * the log batches first, then, once the microtasks their writes queued have run, the frames. A log
 * an in-process store answers at once so ends a finished run's stream first, its last frames going
 * out with the end in one write; a store's round trip holds no frame back.
 */
let logWrites: (() => void)[] = []
let frameFlushes: (() => void)[] = []
let turnEndScheduled = false

function atTurnEnd(tasks: (() => void)[], task: () => void): void {
  tasks.push(task)
  if (turnEndScheduled) return
  turnEndScheduled = true
  nextTurn(runTurnEnd)
}

function runTurnEnd(): void {
  turnEndScheduled = false
  const writes = logWrites
  logWrites = []
  runEach(writes)
  // Queued behind the reactions to the writes just made: an answered write's run ends first.
  if (frameFlushes.length > 0) queueMicrotask(flushFrames)
}

function flushFrames(): void {
  const flushes = frameFlushes
  frameFlushes = []
  runEach(flushes)
}

function runEach(tasks: readonly (() => void)[]): void {
  for (const task of tasks) {
    try {
      task()
    } catch (error) {
      console.error('[toolgate] could not write a run\'s events:', error)
    }
  }
}

/** How many times a batch of events is written to the log, and the pause before the first retry (it doubles). */
const LOG_ATTEMPTS = 6
const LOG_RETRY_MS = 50

/**
 * A blip of the store must not cost readers events: a batch whose first write failed (`error`) is
 * tried again. If the log stays down, the live stream goes on, and a reader that reattaches finds
 * the gap in the events' numbers and is told to reload the thread (replay.ts), never handed a
 * silent gap.
 */
async function appendAgain(log: RunEventLog, threadId: string, runId: string, events: readonly LoggedEvent[], final: boolean, error: unknown): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (attempt >= LOG_ATTEMPTS) {
      console.error('[toolgate] could not log run events:', error)
      return
    }
    await new Promise((resolve) => setTimeout(resolve, LOG_RETRY_MS * 2 ** (attempt - 1)))
    try {
      await log.append(runId, events, final, threadId)
      return
    } catch (failure) {
      error = failure
    }
  }
}

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
  /** One event, as logged (`data` is its JSON); the stream tells it in its request's dialect. */
  event(event: RunEvent, data: string, runId: string, seq: number): void
  end(): void
}

/** Frames go out as text; what an event says in them is the request's telling (AG-UI unless a dialect chose one). */
interface FrameStream {
  write(frame: string): void
  end(): void
}

const AG_UI: EventFrames = { headers: SSE_HEADERS, frame: (_event, data, runId, seq) => sseFrame(runId, seq, data), end: '' }

/** A live stream telling events with `frames` to `out`. */
function told(frames: EventFrames, out: FrameStream): LiveStream {
  return {
    event: (event, data, runId, seq) => {
      const frame = frames.frame(event, data, runId, seq)
      if (frame !== '') out.write(frame)
    },
    end: () => {
      if (frames.end !== '') out.write(frames.end)
      out.end()
    },
  }
}

/**
 * A run's events on a log its thread store writes with commits (`RunEventLog.inCommits`): the
 * run's writes carry the batch its log writer has not sent (`ride`), and its last events are held
 * back from the live stream and the log until the release that carries them lands, so no reader
 * sees a run finish whose release failed.
 */
export interface LastEvents {
  /** The events not yet sent to the log, for a thread commit being sent now to carry; `undefined` when there are none it may take. */
  ride(): RiddenEvents | undefined
  /** The commit that carried `events` was answered: `landed`, or failed or refused (the log writer then writes them). */
  rode(events: RiddenEvents, landed: boolean): void
  /** Events from now on are held back. */
  hold(): void
  /** What the release carries: every event the log has not acknowledged, the held ones last. */
  unlogged(): { readonly runId: string; readonly events: readonly LoggedEvent[] }
  /** The release landed with them: the log is complete, and the live stream tells the held events. */
  logged(): void
  /** The release failed: the held events were never told (the run fails instead). */
  dropped(): void
}

/** Events a run's thread commit carries into the log: not its last (`final: false`). */
export interface RiddenEvents {
  readonly runId: string
  readonly events: readonly LoggedEvent[]
  readonly final: false
}

/**
 * Runs `run` (not awaited: it outlives the request), writing each of its events to the run's log
 * and to `live`. The log is complete once the run ends. `run` is given `LastEvents` when the log
 * can be completed by its thread store's commit.
 */
export function launchRun(log: RunEventLog, threadId: string, runId: string, live: LiveStream | undefined, run: (sink: EventSink, last?: LastEvents) => Promise<void>, withCommits = false): void {
  const writer = new LogWriter(log, threadId, runId)
  let held: { readonly event: RunEvent; readonly logged: LoggedEvent }[] | undefined
  const sink: EventSink = (event, seq) => {
    const data = JSON.stringify(event)
    if (held) return void held.push({ event, logged: { seq, data } })
    writer.push({ seq, data })
    live?.event(event, data, runId, seq)
  }
  const last: LastEvents | undefined = withCommits
    ? {
        ride: () => {
          const events = writer.ride()
          return events && { runId, events, final: false }
        },
        rode: (ridden, landed) => writer.rode(ridden.events, landed),
        hold: () => void (held = []),
        unlogged: () => ({ runId, events: [...writer.carried(), ...(held ?? []).map((entry) => entry.logged)] }),
        logged: () => {
          // Told before the log is marked complete: completing it may end the live stream at once.
          for (const { event, logged } of held ?? []) live?.event(event, logged.data, runId, logged.seq)
          held = undefined
          writer.completed()
        },
        dropped: () => {
          held = undefined
          writer.uncarried()
        },
      }
    : undefined
  // The live stream ends once the log holds every event it carried: a client that read to the
  // end and reads the thread's runs again (a reload, devtools) finds them all.
  const endLive = () => {
    try {
      live?.end()
    } catch (error) {
      console.error('[toolgate] could not end the live stream:', error)
    }
  }
  const ended = () => writer.end(endLive)
  run(sink, last).then(ended, (error: unknown) => {
    console.error('[toolgate] chat run failed:', error)
    ended()
  })
}

/**
 * The live event stream of a run (`id: <runId>:<seq>` and `data: <json>`, as AG-UI's HTTP
 * clients read them). A client that disconnects only detaches: the run goes on, and the client may
 * read the rest from the log.
 *
 * Frames written in one turn of the event loop go out as one chunk: a model's network read or a
 * settled tool yields several events at once, and one chunk each cost the reader, the HTTP
 * adapter and the socket a round trip apiece. Under `toNodeHandler` the frames go to the socket
 * directly (edge/node/directFrames.ts): for a `NodeRequest` no body stream is made, and the response
 * returned stands in for the frames offered on the request; otherwise the body hands out what it
 * holds only when read (nothing is queued in it unread), so the bridge can still take the frames
 * over from a body returned as is.
 */
export function runStreamResponse(start: (live: LiveStream) => void, request: Request): Response {
  const frames = takeTelling(request) ?? AG_UI
  if (request instanceof NodeRequest) {
    const direct = new DirectFrames()
    start(told(frames, direct))
    request.offerFrames({ headers: frames.headers, attach: (sink) => direct.attach(sink) })
    return (offeredResponse ??= new Response(null, { status: 200, headers: SSE_HEADERS }))
  }
  /** The body can still be read: not cancelled, not closed, not handed over. */
  let open = true
  let ended = false
  let pending = ''
  /** A read waits for frames: the next flush answers it. */
  let waiting = false
  let read = false
  let direct: DirectFrames | undefined
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const close = () => {
    if (!open) return
    open = false
    controller.close()
  }
  // Re-entrant: a runtime may call `pull` from inside `enqueue` (Deno does), so the state is
  // updated before the frames are handed over.
  const flush = () => {
    if (!open || !waiting) return
    if (pending !== '') {
      const frames = pending
      pending = ''
      waiting = false
      controller.enqueue(encoder.encode(frames))
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
    direct = new DirectFrames(pending, ended)
    pending = ''
    direct.attach(sink)
    return true
  })
  start(told(frames, {
    write: (frame) => {
      if (direct) return direct.write(frame)
      if (!open) return
      if (pending === '' && waiting) nextTurn(flush)
      pending += frame
    },
    end: () => {
      if (direct) return direct.end()
      if (ended) return
      ended = true
      flush()
    },
  }))
  return new Response(body, { status: 200, headers: frames.headers })
}

/** What a chat handler returns for frames it offered on a `NodeRequest`: never read (the bridge writes the frames). */
let offeredResponse: Response | undefined

/** Frames on their way to a sink, once it is attached: those of one event-loop turn in one write, the last with the end. */
class DirectFrames implements FrameStream {
  #pending: string
  #ended: boolean
  #sink: FrameSink | undefined

  constructor(pending = '', ended = false) {
    this.#pending = pending
    this.#ended = ended
  }

  readonly #flush = () => {
    if (this.#sink === undefined || this.#pending === '') return
    this.#sink.write(this.#pending)
    this.#pending = ''
  }

  write(frame: string): void {
    if (this.#ended) return
    if (this.#pending === '' && this.#sink) atTurnEnd(frameFlushes, this.#flush)
    this.#pending += frame
  }

  end(): void {
    if (this.#ended) return
    this.#ended = true
    if (this.#sink) this.#endSink(this.#sink)
  }

  attach(sink: FrameSink): void {
    this.#sink = sink
    if (this.#ended) this.#endSink(sink)
    else if (this.#pending !== '') atTurnEnd(frameFlushes, this.#flush)
  }

  #endSink(sink: FrameSink): void {
    sink.end(this.#pending)
    this.#pending = ''
  }
}

const encoder = new TextEncoder()
