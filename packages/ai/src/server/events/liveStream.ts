import type { EventSink } from './runEvents.ts'
import { takeTelling, type EventFrames } from './eventFrames.ts'
import type { RunEvent } from '../../protocol/events.ts'
import type { LoggedEvent, RunEventLog } from '../thread/threadStore.ts'
import { DirectFrames, OFFER_FRAMES, offerFrames, type TakesFrames } from './directFrames.ts'
import { LogWriter } from './logWriter.ts'
import { afterTurnEnd } from '../../util/turnBatch.ts'
import { isInProcess } from '../../util/settled.ts'

// The live stream of a run and its log. A run writes every event to both: the response that
// started it (while its client stays) and the run's event log, which readers that (re)attach read
// from any instance. A client that leaves does not stop the run; `stop` does.

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

/** Where a run's events go: `sink` tells each to the run's log and its live stream; `end` once the run ended. */
export interface RunEventStream {
  readonly sink: EventSink
  /** The run's last events, when its log can be completed by its thread store's commit. */
  readonly last: LastEvents | undefined
  /** The run ended: the log is completed, then the live stream ends. */
  end(): void
}

/**
 * The run's event stream: each event goes to the run's log (complete once the run ends) and to
 * `live`. With `withCommits`, its `last` lets the thread store's commits carry the log.
 */
export function runEventStream(log: RunEventLog, threadId: string, runId: string, live: LiveStream | undefined, withCommits = false): RunEventStream {
  // An event is told live only once the log answered the write that carries it: a reader never
  // holds an event the log lacks, so when this process dies, the instance that ends the run for
  // its readers (events/replay.ts, `deadRunEnd`) knows all they were told (a subagent, a message,
  // a call they saw open is closed, and none they never saw). A log in this process (`isInProcess`)
  // dies with it: its events are told at once, from the first, not held until its first write at
  // the turn's end (a run goes on meanwhile, and its client would not yet know its thread).
  const waits = live !== undefined && !isInProcess(log)
  let untold: { readonly event: RunEvent; readonly logged: LoggedEvent }[] = []
  const tell = (upTo: number) => {
    let told = 0
    while (told < untold.length && untold[told]!.logged.seq <= upTo) {
      const { event, logged } = untold[told++]!
      live?.event(event, logged.data, runId, logged.seq)
    }
    if (told > 0) untold = untold.slice(told)
  }
  // Told as the log answers only when the live stream waits for it: else nothing is ever untold.
  const writer = new LogWriter(log, threadId, runId, waits ? (events) => tell(events.at(-1)!.seq) : undefined)
  let held: { readonly event: RunEvent; readonly logged: LoggedEvent }[] | undefined
  const sink: EventSink = (event, seq, json) => {
    const data = json ?? JSON.stringify(event)
    if (held) return void held.push({ event, logged: { seq, data } })
    if (waits) untold.push({ event, logged: { seq, data } })
    writer.push({ seq, data })
    if (!waits) live?.event(event, data, runId, seq)
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
          tell(Number.MAX_SAFE_INTEGER)
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
  return { sink, last, end: () => writer.end(endLive) }
}

/**
 * The live event stream of a run (`id: <runId>:<seq>` and `data: <json>`, as AG-UI's HTTP
 * clients read them). A client that disconnects only detaches: the run goes on, and the client may
 * read the rest from the log.
 *
 * Frames written in one turn of the event loop go out as one chunk: a model's network read or a
 * settled tool yields several events at once, and one chunk each cost the reader, the HTTP
 * adapter and the socket a round trip apiece. Under `toNodeHandler` the frames go to the socket
 * directly (directFrames.ts): for a `NodeRequest` no body stream is made, and the response
 * returned stands in for the frames offered on the request; otherwise the body hands out what it
 * holds only when read (nothing is queued in it unread), so the bridge can still take the frames
 * over from a body returned as is.
 *
 * The run starts telling `live` before `response()` is asked for: its first frames are held until
 * the response is read, or offered to the bridge.
 */
export function liveResponse(request: Request): LiveResponse {
  const frames = takeTelling(request) ?? AG_UI
  const offer = (request as Partial<TakesFrames>)[OFFER_FRAMES]
  if (offer) {
    const direct = new DirectFrames()
    return {
      live: told(frames, direct),
      response: () => {
        offer.call(request, { headers: frames.headers, attach: (sink) => direct.attach(sink) })
        return (offeredResponse ??= new Response(null, { status: 200, headers: SSE_HEADERS }))
      },
    }
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
  const live = told(frames, {
    write: (frame) => {
      if (direct) return direct.write(frame)
      if (!open) return
      if (pending === '' && waiting) afterTurnEnd(flush)
      pending += frame
    },
    end: () => {
      if (direct) return direct.end()
      if (ended) return
      ended = true
      flush()
    },
  })
  return { live, response: () => new Response(body, { status: 200, headers: frames.headers }) }
}

/** A run's live stream, and the response that carries it (asked for once the run has started). */
export interface LiveResponse {
  readonly live: LiveStream
  response(): Response
}

/** What a chat handler returns for frames it offered on a `NodeRequest`: never read (the bridge writes the frames). */
let offeredResponse: Response | undefined

const encoder = new TextEncoder()
