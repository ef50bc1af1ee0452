import { toTanStackEvent } from './tanStackInterrupts.ts'
import { SSE_HEADERS, sseFrame } from '../../events/liveStream.ts'
import type { EventFrames } from '../../events/eventFrames.ts'

/** A live run's frames for TanStack's client: AG-UI's, with interrupts in the shape its approval API answers. */
export const TANSTACK_FRAMES: EventFrames = {
  headers: SSE_HEADERS,
  frame: (event, data, runId, seq) =>
    sseFrame(runId, seq, event.type === 'RUN_FINISHED' && event.outcome?.type === 'interrupt' ? JSON.stringify(toTanStackEvent(event as unknown as Record<string, unknown>)) : data),
  end: '',
}

/**
 * A run's AG-UI event stream with each frame's data rewritten for TanStack's client, frame by
 * frame; `id:` lines and comments pass unchanged, so `Last-Event-ID` reconnects still work. Any
 * other response (a JSON refusal, `204` when no run streams) as it is.
 */
export function asTanStackStream(response: Response): Response {
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

/** Only a frame that can hold interrupts is parsed; the rest (nearly all) pass as they are. */
function rewrite(data: string): string {
  if (!data.includes('"RUN_FINISHED"') || !data.includes('"interrupts"')) return data
  const event = JSON.parse(data) as Record<string, unknown>
  return JSON.stringify(toTanStackEvent(event))
}
