import type { ThreadToolMessage } from '../protocol/messages.ts'
import type { ChatConfig } from './config.ts'
import { HttpError } from './errors.ts'
import { EventLogWriter, RunEvents, SSE_HEADERS, sseFrame } from './events.ts'
import { recoverLostRun } from './run.ts'
import { isRunEnd, isRunId, type LoggedEvent } from './runEventLog.ts'
import { isRunning, loadHead, updateThread } from './thread.ts'

// `GET ?threadId=` with `Accept: text/event-stream`: a client that lost a run's stream (a dropped
// connection, a reload, another instance behind the load balancer) reads it again from the run's
// event log: every event after the one it last saw, then the live ones, until the run ends.

/** Which run a reconnecting client follows, and the last event it saw (0: none). */
interface RunReference {
  readonly runId: string
  readonly after: number
}

/** The request asks for a run's event stream rather than the thread's JSON snapshot. */
export function wantsEventStream(request: Request, url: URL): boolean {
  return (
    (request.headers.get('accept') ?? '').includes('text/event-stream') ||
    request.headers.has('last-event-id') ||
    url.searchParams.has('runId')
  )
}

/**
 * Streams a run of the thread from its log: the run named by `Last-Event-ID: <runId>:<seq>` or
 * `?runId=&after=`, else the thread's active run from its start (204 when none runs). 404
 * `RUN_NOT_FOUND` when the log does not know the run (another thread's, or expired).
 *
 * A run whose process died never writes its end: once its lease lapsed, the reader takes the
 * thread over (the calls it had started get "interrupted" results, as a new message would give
 * them) and ends the run's log with those results and RUN_ERROR `RUN_LOST`, so every reader of
 * the run, on any instance, sees the same end.
 */
export async function replayRun(config: ChatConfig, request: Request, threadId: string, url: URL): Promise<Response> {
  const head = await loadHead(config, request, threadId, 'read')
  const reference = runReference(request, url)
  const leaseMs = config.limits.runLeaseMs
  if (!reference && !isRunning(head, leaseMs)) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } })
  const { runId, after } = reference ?? { runId: head.activeRun!.runId, after: 0 }

  // The run must be this thread's: its log opens with RUN_STARTED naming the thread. A run that just
  // claimed the thread may not have logged its start yet.
  const opening = await config.eventLog.read(runId, 0)
  const active = head.activeRun?.runId === runId
  const first = opening?.[0]?.event
  const ours = first ? first.type === 'RUN_STARTED' && first.threadId === threadId : active
  if (!ours) throw new HttpError(404, 'RUN_NOT_FOUND', `Run "${runId}" of this thread is unknown or its events expired; read the thread instead`, 'runId')

  const stop = new AbortController()
  const onDisconnect = () => stop.abort()
  request.signal.addEventListener('abort', onDisconnect, { once: true })
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      follow(config, threadId, runId, after, stop.signal, (logged) => controller.enqueue(encoder.encode(sseFrame(runId, logged.seq, logged.event))))
        .catch((error) => console.error(`[toolgate] replaying run ${runId} failed:`, error))
        .finally(() => {
          request.signal.removeEventListener('abort', onDisconnect)
          if (!stop.signal.aborted) controller.close()
        })
    },
    cancel() {
      stop.abort()
    },
  })
  return new Response(body, { status: 200, headers: SSE_HEADERS })
}

/** Writes the run's events after `after` as they come, until its end (or the reader leaves). */
async function follow(
  config: ChatConfig,
  threadId: string,
  runId: string,
  after: number,
  signal: AbortSignal,
  write: (logged: LoggedEvent) => void,
): Promise<void> {
  const { eventLog } = config
  const leaseMs = config.limits.runLeaseMs
  // How often a quiet run's liveness is checked in the store: well inside its lease.
  const checkEveryMs = Math.min(leaseMs / 3, 5_000)
  let last = after
  let checkedAt = Date.now()
  let orphaned = 0
  // A reader that already saw the run's end gets nothing more.
  const lastSeen = after > 0 ? (await eventLog.read(runId, after - 1))?.[0] : undefined
  if (lastSeen?.seq === after && isRunEnd(lastSeen.event)) return
  while (!signal.aborted) {
    const seen = last
    for (const logged of (await eventLog.read(runId, last)) ?? []) {
      if (logged.seq <= last) continue
      write(logged)
      last = logged.seq
      if (isRunEnd(logged.event)) return
    }
    if (last > seen) continue
    if (Date.now() - checkedAt >= checkEveryMs) {
      checkedAt = Date.now()
      const head = await config.store.head(threadId)
      const holds = head?.activeRun?.runId === runId
      if (holds && isRunning(head!, leaseMs)) orphaned = 0
      else if (holds || ++orphaned >= 2) {
        // Lapsed, or released without a logged end twice in a row (a run ending normally logs its
        // end right after releasing the thread, so once is not enough to call it lost).
        await endLostRun(config, threadId, runId)
        continue
      }
    }
    await eventLog.wait(runId, last, { timeoutMs: checkEveryMs, signal })
  }
}

/**
 * Ends the log of a run that stopped writing. If the dead run still holds the thread, the thread is
 * taken over first (one compare-and-set: of several readers only one writes the results). The
 * events are appended with the numbers that follow the log, so a second writer's are dropped.
 */
async function endLostRun(config: ChatConfig, threadId: string, runId: string): Promise<void> {
  let results: readonly ThreadToolMessage[] = []
  let tookOver = false
  try {
    await updateThread(config.store, threadId, (head) => {
      if (head.activeRun?.runId !== runId || isRunning(head, config.limits.runLeaseMs)) throw NOT_OURS
      const recovery = recoverLostRun(head, config.limits.runLeaseMs)
      results = recovery.results
      tookOver = true
      return { head: { step: recovery.step, activeRun: undefined }, append: recovery.append }
    })
  } catch (error) {
    if (error !== NOT_OURS && !(error instanceof HttpError)) throw error
    // Someone else took the thread (a new message, another reader); the log still needs its end.
    results = []
  }
  const logged = await readAll(config, runId)
  const writer = new EventLogWriter(config.eventLog, runId)
  const events = RunEvents.continuing(threadId, runId, logged, (event, seq) => writer.push(event, seq))
  events.stepEnded() // results come after the calls the model left open are closed
  if (tookOver) for (const result of results) events.result(result)
  events.failed('RUN_LOST', LOST)
  await writer.end()
}

const NOT_OURS = Symbol('not ours')
const LOST = 'The server running this turn stopped before it finished; everything it stored is kept. Send your message again to continue.'

async function readAll(config: ChatConfig, runId: string): Promise<LoggedEvent[]> {
  const all: LoggedEvent[] = []
  for (;;) {
    const batch = (await config.eventLog.read(runId, all.at(-1)?.seq ?? 0)) ?? []
    if (batch.length === 0) return all
    all.push(...batch)
  }
}

/** `Last-Event-ID: <runId>:<seq>` (as SSE clients send it back), else `?runId=&after=`. */
function runReference(request: Request, url: URL): RunReference | undefined {
  const lastEventId = request.headers.get('last-event-id')
  if (lastEventId !== null && lastEventId !== '') {
    const match = /^(.+):(\d{1,15})$/.exec(lastEventId)
    if (!match || !isRunId(match[1]!)) throw new HttpError(400, 'INVALID_REQUEST', '`Last-Event-ID` must be `<runId>:<seq>`, as the stream sent it', 'Last-Event-ID')
    return { runId: match[1]!, after: Number(match[2]) }
  }
  const runId = url.searchParams.get('runId')
  if (runId === null) return undefined
  if (!isRunId(runId)) throw new HttpError(400, 'INVALID_REQUEST', '`runId` must be a run id, as RUN_STARTED gave it', 'runId')
  const after = url.searchParams.get('after') ?? '0'
  if (!/^\d{1,15}$/.test(after)) throw new HttpError(400, 'INVALID_REQUEST', '`after` must be the sequence number of the last event seen (0 for none)', 'after')
  return { runId, after: Number(after) }
}
