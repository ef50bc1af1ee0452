import { toTanStackEvent } from './tanStackInterrupts.ts'
import { SSE_HEADERS, sseFrame } from '../../events/liveStream.ts'
import { rewriteSseData, type EventFrames } from '../../events/eventFrames.ts'

/** A live run's frames for TanStack's client: AG-UI's, with interrupts in the shape its approval API answers. */
export const TANSTACK_FRAMES: EventFrames = {
  headers: SSE_HEADERS,
  frame: (event, data, runId, seq) =>
    sseFrame(runId, seq, event.type === 'RUN_FINISHED' && event.outcome?.type === 'interrupt' ? JSON.stringify(toTanStackEvent(event as unknown as Record<string, unknown>)) : data),
  end: '',
}

/** A run's AG-UI event stream with each frame's data rewritten for TanStack's client (`rewriteSseData`). */
export function asTanStackStream(response: Response): Response {
  return rewriteSseData(response, rewrite)
}

/** Only a frame that can hold interrupts is parsed; the rest (nearly all) pass as they are. */
function rewrite(data: string): string {
  if (!data.includes('"RUN_FINISHED"') || !data.includes('"interrupts"')) return data
  const event = JSON.parse(data) as Record<string, unknown>
  return JSON.stringify(toTanStackEvent(event))
}
