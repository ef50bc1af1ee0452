import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import type { ThreadSnapshot } from '../../protocol/thread.ts'
import type { Fetch } from '../../util/Fetch.ts'
import { ChatError } from '../chatError.ts'
import type { RunCursor, StreamSignal } from './streamSignal.ts'
import { send } from '../http/index.ts'
import { backoff, sleep } from '../../util/retry.ts'

/** Attempts to attach again to a run whose stream dropped, before the client reports the failure. */
const RECONNECT_ATTEMPTS = 5
/** The wait before attempt `n + 1` after `n` failed: about 0.25, 0.5, 1, 2, 4 seconds, with jitter so pages cut off together do not come back together. */
const reconnectDelay = backoff(250)

/**
 * What attaching again needs of the run stream (`RunStream`), given structurally so this chunk
 * does not import it: reading a response's events, and reading the stored thread instead.
 */
export interface DroppedRun {
  readonly fetch: Fetch
  readonly endpoint: string
  readonly thread: { readonly id: string | undefined }
  /** Where the stream picks up; `undefined` once the server keeps no more of the run. */
  cursor(): RunCursor | undefined
  /** Reads one response's events; returns the interrupts its run paused on. */
  read(response: Response): AsyncGenerator<StreamSignal, readonly ToolInterrupt[]>
  /** Reads the stored thread (the run's events are gone) and hands it on; returns it, or `undefined` once aborted. */
  resync(): AsyncGenerator<StreamSignal, ThreadSnapshot | undefined>
}

/**
 * Attaches to a run again after the last event that arrived, with bounded backoff, until it is
 * read to its end: when its stream dropped (a network blip, a proxy's timeout, a sleeping tab;
 * `broken` is that failure) or on a reload mid-run (`broken` undefined: attach at once). When the
 * server keeps no more of the run, the stored thread is read instead. Only a broken stream or a
 * reload needs this, so it is a chunk of its own (see `runStream.ts`).
 */
export async function* reattach(run: DroppedRun, broken: unknown, signal: AbortSignal): AsyncGenerator<StreamSignal, readonly ToolInterrupt[]> {
  for (let attempt = 0; ; attempt++) {
    if (attempt >= RECONNECT_ATTEMPTS) throw broken ?? new ChatError('NETWORK', 'Could not attach to the run')
    let response: Response | 'gone' | undefined
    yield { type: 'reconnecting', reconnecting: true }
    try {
      // The first attach after a reload goes at once; after a failure, each waits longer.
      if (attempt > 0 || broken !== undefined) await sleep(reconnectDelay(attempt + 1) * (0.75 + Math.random() * 0.5), signal)
      response = await attachRun(run.fetch, run.endpoint, run.thread.id!, run.cursor()!, signal).catch((error: unknown) => {
        // The network, or the server behind a proxy (restarting, deploying), is still down: try again.
        if (signal.aborted || (error instanceof ChatError && error.code !== 'NETWORK' && error.code !== 'UNREACHABLE')) throw error
        return undefined
      })
      if (response === 'gone') return (yield* run.resync())?.interrupts ?? []
    } finally {
      yield { type: 'reconnecting', reconnecting: false }
    }
    if (!response) continue
    try {
      return yield* run.read(response)
    } catch (error) {
      if (signal.aborted || !(error instanceof ChatError) || error.code !== 'NETWORK' || !run.cursor()) throw error
      broken = error
    }
  }
}

/**
 * GETs the rest of a run as an event stream: the events after `after`, then the live ones. `gone`
 * when the server keeps no events of it (204: no run streams; 404: unknown or expired).
 */
async function attachRun(fetch: Fetch, endpoint: string, threadId: string, from: RunCursor, signal: AbortSignal): Promise<Response | 'gone'> {
  const query = `threadId=${encodeURIComponent(threadId)}&runId=${encodeURIComponent(from.runId)}&after=${from.after}`
  const url = `${endpoint}${endpoint.includes('?') ? '&' : '?'}${query}`
  try {
    const response = await send(fetch, url, { method: 'GET', headers: { accept: 'text/event-stream' }, signal }, signal)
    if (response.status === 204) return 'gone'
    return response
  } catch (error) {
    if (error instanceof ChatError && error.code === 'RUN_NOT_FOUND') return 'gone'
    throw error
  }
}

/** What waiting out a run needs of the run stream (`RunStream`), given structurally so this chunk does not import it. */
export interface ThreadReader {
  ask(threadId: string, query: string, signal: AbortSignal): Promise<Response>
  resync(threadId: string, signal: AbortSignal): AsyncGenerator<StreamSignal, ThreadSnapshot | undefined>
  follow(runId: string, threadId: string, signal: AbortSignal): AsyncGenerator<StreamSignal, readonly ToolInterrupt[]>
}

/**
 * After `EVENTS_LOST` (the store lost some of run `lostRun`'s events): reads the stored thread, as a
 * reload does, and again on each commit of it (`GET ?watch=<version>`, a long poll) or when the
 * server's wait ends (25 s by default) while `lostRun` still streams on it, so the page shows the run's outcome once it ends. That run is never attached
 * to again: its log has the same gap, so the server would end the stream the same way, again and
 * again. A run that comes after it is followed, as on a reload.
 */
export async function* outlive(stream: ThreadReader, threadId: string, lostRun: string, signal: AbortSignal): AsyncGenerator<StreamSignal, readonly ToolInterrupt[]> {
  // Version 0 is answered at once with the thread's version: read before the thread, so a commit after that read ends the next watch.
  for (let version = 0; ; ) {
    const changed = await stream.ask(threadId, `&watch=${version}`, signal)
    // 204: the server's wait ended first. The thread is read all the same: a run that died (its process
    // killed) commits nothing, only a read past its lease shows it lost, as a reload would.
    if (changed.status !== 204) version = ((await changed.json()) as { version: number }).version
    const snapshot = yield* stream.resync(threadId, signal)
    if (snapshot?.status !== 'running' || snapshot.runId === undefined) return snapshot?.interrupts ?? []
    if (snapshot.runId !== lostRun) return yield* stream.follow(snapshot.runId, threadId, signal)
  }
}
