import { toTanStackEvent } from './tanStackInterrupts.ts'
import { SSE_HEADERS, sseFrame } from '../../events/liveStream.ts'
import { rewriteSseData, type EventFrames } from '../../events/eventFrames.ts'

/** A live run's frames for TanStack's client: AG-UI's, with interrupts in the shape its approval API answers. */
export const TANSTACK_FRAMES: EventFrames = {
  headers: SSE_HEADERS,
  frame: (event, data, runId, seq) =>
    isSubagentWords(event)
      ? ''
      : sseFrame(runId, seq, event.type === 'RUN_FINISHED' && event.outcome?.type === 'interrupt' ? JSON.stringify(toTanStackEvent(event as unknown as Record<string, unknown>)) : data),
  end: '',
}

/**
 * TanStack AI knows no subagents: a subagent's text, reasoning and calls would join the run's own
 * message (and go back with its next input as calls the thread never stored), so they are not told;
 * its answer reaches the chat as its agent call's result, and an approval of an inner call is asked
 * on that call (tanStackInterrupts.ts).
 */
function isSubagentWords(event: { readonly type: string; readonly subagentRunId?: string }): boolean {
  return event.subagentRunId !== undefined
}

/** What a replayed stream tells in place of a subagent's words: an AG-UI event TanStack's client passes over. */
const SKIPPED = JSON.stringify({ type: 'CUSTOM', name: 'toolgate.subagent', value: null })

/** A run's AG-UI event stream with each frame's data rewritten for TanStack's client (`rewriteSseData`). */
export function asTanStackStream(response: Response): Response {
  return rewriteSseData(response, rewrite)
}

/** Only a frame that can hold interrupts is parsed; the rest (nearly all) pass as they are. */
function rewrite(data: string): string {
  if (data.includes('"subagentRunId"') && isSubagentWords(JSON.parse(data) as { type: string; subagentRunId?: string })) return SKIPPED
  if (!data.includes('"RUN_FINISHED"') || !data.includes('"interrupts"')) return data
  const event = JSON.parse(data) as Record<string, unknown>
  return JSON.stringify(toTanStackEvent(event))
}
