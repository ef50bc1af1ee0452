import { runTurn, type TurnStart } from './runTurn.ts'
import type { ChatConfig } from './config.ts'
import { eventStreamResponse } from './sse.ts'
import type { VersionedThread } from './threadStore.ts'

export interface ClaimedRun {
  readonly runId: string
  /** The thread as stored with `activeRun` set to this run. */
  readonly claimed: VersionedThread
  readonly context: unknown
  readonly start: TurnStart
}

/** Streams a run whose thread is already claimed. */
export function streamRun(config: ChatConfig, request: Request, { runId, claimed, context, start }: ClaimedRun): Response {
  return eventStreamResponse(request.signal, (emit, signal) =>
    runTurn(
      {
        config,
        runId,
        signal,
        context,
        emit,
        thread: claimed.thread,
        version: claimed.version,
        usage: { inputTokens: 0, outputTokens: 0, reported: false },
      },
      start,
    ),
  )
}
