import type { RunEvent } from '../../../protocol/events.ts'
import { answerTold, rewriteSseData, type EventFrames } from '../../events/eventFrames.ts'
import { SSE_HEADERS, sseFrame } from '../../events/liveStream.ts'

// AG-UI clients before 1.0 (CopilotKit 1.74 and `@copilotkit/runtime` 1.75 bundle `@ag-ui/client`
// 0.0.59) check `RUN_FINISHED.outcome` strictly: `{ type: 'success' }` with no other key. A 1.0
// client says it is one: its `RunAgentInput` carries `protocolVersion`, which 0.0.59's has no
// field for. So a request without it is answered in the shapes 0.0.59 accepts, told from the
// request, never guessed: a run that ends on frontend tool calls ends `success` alone. Such a client
// learns which calls wait as it always did: the assistant's tool calls that have no `tool` message
// (in the run's TOOL_CALL_* events, or in the reconnect's MESSAGES_SNAPSHOT), which is what a pending
// call is; the server's answer is the same either way.

/** The client sent no `protocolVersion`: AG-UI before 1.0. */
export function isPreOneClient(body: { readonly protocolVersion?: string }): boolean {
  return body.protocolVersion === undefined
}

/** Answers a pre-1.0 client's request: a run it starts tells its events in the old shapes; any other event stream is rewritten. */
export function answerPreOne(request: Request, post: () => Promise<Response>): Promise<Response> {
  return answerTold(request, PRE_ONE_FRAMES, post, asPreOneStream)
}

const PRE_ONE_FRAMES: EventFrames = {
  headers: SSE_HEADERS,
  frame: (event, data, runId, seq) => sseFrame(runId, seq, isPendingOutcome(event) ? JSON.stringify(preOneEvent(event)) : data),
  end: '',
}

function isPendingOutcome(event: RunEvent | Record<string, unknown>): boolean {
  if (event.type !== 'RUN_FINISHED') return false
  const outcome = (event as { outcome?: unknown }).outcome
  return typeof outcome === 'object' && outcome !== null && 'pendingToolCallIds' in outcome
}

function preOneEvent<E extends RunEvent | Record<string, unknown>>(event: E): E {
  return { ...event, outcome: { type: 'success' } }
}

/** A response's event stream (a run's log replayed, a rejoin) with each `RUN_FINISHED` that names pending calls told the old way (`rewriteSseData`). */
export function asPreOneStream(response: Response): Response {
  return rewriteSseData(response, rewrite)
}

function rewrite(data: string): string {
  if (!data.includes('"pendingToolCallIds"')) return data
  const event = JSON.parse(data) as Record<string, unknown>
  return isPendingOutcome(event) ? JSON.stringify(preOneEvent(event)) : data
}
