import type { RunEvent } from '../../protocol/events.ts'

// A run's events go to the request that started it as AG-UI frames, unless a dialect at the edge
// (dialects/aisdk/, dialects/tanstack/) chose its own telling for that request. The telling is applied where the
// frames are written (liveStream.ts), so a dialect's frames take the same way out as AG-UI's: on
// one live stream, and straight to the socket under `toNodeHandler`. A response the dialect did
// not get told this way (a replay, a refusal) it still translates from the body (the Fetch way).

/** How a run's events are told to one request: its response headers, each event's frames, and what ends them. */
export interface EventFrames {
  readonly headers: Readonly<Record<string, string>>
  /** The frames for one event (`''` for none); `data` is the event as JSON, encoded once for the log too. */
  frame(event: RunEvent, data: string, runId: string, seq: number): string
  /** Written after the last event. */
  readonly end: string
}

const chosen = new WeakMap<Request, EventFrames>()

/**
 * Answers `request` in a dialect: the run it starts (if any) tells its events with `frames`; any
 * other response (a replay of a run's log, a refusal) goes through `translate`, which reads the
 * body the Fetch way and leaves what is not an event stream as it is.
 */
export async function answerTold(request: Request, frames: EventFrames, post: () => Promise<Response>, translate: (response: Response) => Response): Promise<Response> {
  chosen.set(request, frames)
  let response: Response
  try {
    response = await post()
  } catch (error) {
    chosen.delete(request)
    throw error
  }
  // Still chosen: no run took it, so the response speaks AG-UI (or is no event stream at all).
  return chosen.delete(request) ? translate(response) : response
}

/** The telling chosen for `request`'s run, taken once; `undefined` for AG-UI. */
export function takeTelling(request: Request): EventFrames | undefined {
  const frames = chosen.get(request)
  if (frames) chosen.delete(request)
  return frames
}

/**
 * A run's AG-UI event stream (a replay, a rejoin) with each frame's `data:` rewritten by
 * `rewrite`, frame by frame: how a dialect that tells some events its own way translates a stream
 * it did not make. `id:` lines and comments pass unchanged, so `Last-Event-ID` reconnects still
 * work. Any other response (a JSON refusal, `204` when no run streams) as it is.
 */
export function rewriteSseData(response: Response, rewrite: (data: string) => string): Response {
  if (!response.body || !/^text\/event-stream\b/.test(response.headers.get('content-type') ?? '')) return response
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  let buffered = ''
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        buffered += decoder.decode(chunk, { stream: true })
        const end = buffered.lastIndexOf('\n\n')
        if (end < 0) return
        const frames = buffered.slice(0, end + 2)
        buffered = buffered.slice(end + 2)
        controller.enqueue(encoder.encode(frames.replace(/^data: (.*)$/gm, (_line, data: string) => `data: ${rewrite(data)}`)))
      },
      flush(controller) {
        if (buffered !== '') controller.enqueue(encoder.encode(buffered))
      },
    }),
  )
  return new Response(body, { status: response.status, headers: response.headers })
}
