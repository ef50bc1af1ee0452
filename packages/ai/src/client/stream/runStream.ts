import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import type { PostRequest, ResumeAnswer } from '../../protocol/requests.ts'
import type { ThreadSnapshot } from '../../protocol/thread.ts'
import type { Fetch } from '../../util/Fetch.ts'
import { readSseData } from '../../util/readSseData.ts'
import { ChatError, type ChatErrorCode } from '../chatError.ts'
import { callReading, pausedRun, reattaching, storedThread } from '../chunks/index.ts'
import { parseEvent } from './parseEvent.ts'
import type { RunCursor, StreamSignal } from './streamSignal.ts'
import { isEventStream, postChat, send } from '../http/index.ts'

/**
 * Following runs over HTTP: posting, reading a run's event stream, picking a dropped stream up
 * after its last event (`GET` with the run's cursor, as Last-Event-ID does), reading the thread
 * instead when the run's events are gone, and stopping the run on the server. It keeps only the
 * cursor; what the events mean for the messages is the client's to apply.
 */
export class RunStream {
  readonly #fetch: Fetch
  readonly #endpoint: string
  /** The run being read and its last event that arrived: where a dropped stream picks up. */
  #cursor: RunCursor | undefined

  constructor(fetch: Fetch, endpoint: string) {
    this.#fetch = fetch
    this.#endpoint = endpoint
  }

  /**
   * POSTs; after interrupting a run of its own, posts again while the server still reports the
   * thread busy, since it notices the abort a moment later (about 1.5 s at most).
   */
  async post(body: PostRequest, signal: AbortSignal, interrupting: boolean): Promise<Response> {
    const post = () => {
      // A custom fetch may send a request whose signal already aborted (a stop() between two posts).
      signal.throwIfAborted()
      return postChat(this.#fetch, this.#endpoint, body, signal)
    }
    try {
      return await post()
    } catch (error) {
      if (!interrupting || !(error instanceof ChatError) || error.code !== 'THREAD_BUSY') throw error
      // Tried again by the reattaching chunk (with util/retry.ts, out of the page's startup bundle).
      return (await reattaching.load()).postWhileBusy(post, signal)
    }
  }

  /**
   * POSTs a turn or answers and follows what comes back: an event stream, or `ResumeAccepted`
   * (answers stored, others of the batch still missing). `answers` left from before a message go
   * first; a run they resume gives way to the message.
   */
  async *exchange(
    body: PostRequest,
    { threadId, answers, interrupting }: { threadId: string | undefined; answers: readonly ResumeAnswer[]; interrupting: boolean },
    signal: AbortSignal,
  ): AsyncGenerator<StreamSignal, readonly ToolInterrupt[]> {
    if (answers.length > 0) {
      interrupting = true
      await this.post({ threadId: threadId!, resume: answers }, signal, true)
        .then((response) => response.body?.cancel())
        .catch(() => {}) // refused: the message goes all the same, and the server denies what it did not record
    }
    const response = await this.post(body, signal, interrupting)
    if (isEventStream(response)) {
      yield { type: 'streaming' }
      return yield* this.follow(response, threadId, signal)
    }
    // JSON, not events: ResumeAccepted (answers stored, others of the batch still missing).
    const accepted = await (await storedThread.load()).readAccepted(response, signal)
    if (accepted.threadId !== undefined) yield { type: 'thread', threadId: accepted.threadId }
    return accepted.interrupts
  }

  /** GETs `?threadId=<id>&<query>` as JSON, unapplied (the thread, and a review watch's reads); throws a `ChatError` unless it succeeds. */
  ask(threadId: string, query: string, signal: AbortSignal): Promise<Response> {
    return send(this.#fetch, `${this.#endpoint}${this.#endpoint.includes('?') ? '&' : '?'}threadId=${encodeURIComponent(threadId)}${query}`, { headers: { accept: 'application/json' }, signal }, signal)
  }

  /** Reads a thread, as after a reload; a run still streaming on it is followed from its start, over what it began from. */
  async *load(threadId: string, signal: AbortSignal): AsyncGenerator<StreamSignal, readonly ToolInterrupt[]> {
    const snapshot = yield* this.resync(threadId, signal)
    if (snapshot?.status === 'running' && snapshot.runId !== undefined) return yield* this.follow(snapshot.runId, threadId, signal)
    return snapshot?.interrupts ?? []
  }

  /**
   * Reads a run to its end, from a POST's `response` or, given a run id, from the run's start (a
   * reload mid-run); returns the interrupts it paused on. When the stream drops (a network blip, a
   * proxy's timeout, a sleeping tab), attaches to the run again after the last event that arrived
   * (`reattach.ts`); when the server keeps no more of the run, the stored thread is read instead.
   */
  async *follow(from: Response | string, threadId: string | undefined, signal: AbortSignal): AsyncGenerator<StreamSignal, readonly ToolInterrupt[]> {
    const thread = { id: threadId }
    let broken: unknown
    this.#cursor = typeof from === 'string' ? { runId: from, after: 0 } : undefined
    if (typeof from !== 'string') {
      try {
        return yield* this.#read(from, thread, signal)
      } catch (error) {
        if (signal.aborted || !(error instanceof ChatError) || error.code !== 'NETWORK' || !this.#cursor) throw error
        broken = error
      }
    }
    const { reattach } = await reattaching.load().catch((error: unknown) => {
      // Not even the chunk loads (the network is down): report the broken stream, as after the last attempt.
      throw broken ?? new ChatError('NETWORK', `Could not attach to the run: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    })
    const run = {
      fetch: this.#fetch,
      endpoint: this.#endpoint,
      thread,
      cursor: () => this.#cursor,
      read: (response: Response) => this.#read(response, thread, signal),
      resync: () => {
        this.#cursor = undefined // the server keeps no more of the run: nothing to pick up, or to stop
        return this.resync(thread.id!, signal)
      },
    }
    return yield* reattach(run, broken, signal)
  }

  /** Reads the stored thread and hands it on (it replaces what the client shows); `undefined` once aborted. */
  async *resync(threadId: string, signal: AbortSignal): AsyncGenerator<StreamSignal, ThreadSnapshot | undefined> {
    // The chunk that reads it loads while the thread is asked for.
    const [response, { readThread }] = await Promise.all([this.ask(threadId, '', signal), storedThread.load()])
    const snapshot = await readThread(response, signal)
    if (signal.aborted) return undefined
    yield { type: 'resynced', snapshot }
    return snapshot
  }

  /**
   * Asks the server to stop the run being read, if one is: closing the stream alone does not.
   * Settles once the server has answered; rejects (a `ChatError`) when it could not be asked.
   */
  stop(threadId: string): Promise<void> | undefined {
    if (!this.#cursor) return undefined
    this.#cursor = undefined
    return postChat(this.#fetch, this.#endpoint, { threadId, stop: true }, new AbortController().signal).then((response) => void response.body?.cancel())
  }

  /** Reads the events of one response; returns the interrupts its (last) run paused on. */
  async *#read(response: Response, thread: { id: string | undefined }, signal: AbortSignal): AsyncGenerator<StreamSignal, readonly ToolInterrupt[]> {
    if (!response.body) throw new ChatError('BAD_RESPONSE', 'The server sent an event stream without a body')
    let interrupts: readonly ToolInterrupt[] | undefined
    // Toolgate's once an event carries a run's cursor, or from the start when one brought the client here (a reload, a reattach).
    let toolgateStream = this.#cursor !== undefined
    // The `<runId>:<seq>` id of the event being read, when it has one: the event is in its run's log.
    let logged: RegExpExecArray | null = null
    try {
      for await (const [data, id] of readSseData(response.body, signal, { flushAtEnd: false })) {
        logged = id ? /^(.+):(\d+)$/.exec(id) : null
        if (logged) {
          if (!toolgateStream) void reattaching.load().catch(() => {}) // tried again if it is ever needed
          toolgateStream = true
          this.#cursor = { runId: logged[1]!, after: Number(logged[2]) }
        }
        const parsed = parseEvent(data)
        if (!parsed) continue
        // A call's arguments stream into a parser, and its result and a subagent's events are read, by a chunk loaded on first use (not with the page).
        if (parsed.type === 'TOOL_CALL_START') await callReading.load()
        const event = parsed.type === 'TOOL_CALL_RESULT' || 'subagentRunId' in parsed ? (await callReading.load()).readCallEvent(parsed) : parsed
        // A run that pauses: its interrupts are read by the pause's chunk, loaded now.
        const paused = event.type === 'RUN_FINISHED' && event.outcome?.type === 'interrupt' ? (await pausedRun.load()).toolInterrupts(event.outcome.interrupts) : undefined
        yield { type: 'event', event }
        if (event.type === 'RUN_STARTED') {
          thread.id = event.threadId
          yield { type: 'thread', threadId: event.threadId }
          interrupts = undefined // a stream may hold several runs: the last one counts
        } else if (event.type === 'RUN_ERROR') {
          const lostRun = this.#cursor?.runId
          this.#cursor = undefined
          // A run that died with nothing to continue its turn (server/events/replay.ts): the stored thread
          // says where the turn stands (its last run lost, or an approval that still waits), without
          // the dead run's half-streamed text, as a reload shows it.
          if (toolgateStream && event.code === 'RUN_LOST') return yield* this.load(thread.id!, signal)
          // A gap in the run's log: the stored thread is read as on a reload, but that run, if still live, is not
          // followed (its log has the same gap: it would end the same way, again); the thread is read again once it ends.
          if (lostRun && event.code === 'EVENTS_LOST') {
            this.#cursor = { runId: lostRun, after: 0 } // what stop() stops while the page waits for it
            try {
              return yield* (await reattaching.load()).outlive(this, thread.id!, lostRun, signal)
            } finally {
              this.#cursor = undefined
            }
          }
          throw new ChatError((event.code ?? 'INTERNAL') as ChatErrorCode, event.message)
        } else if (event.type === 'RUN_FINISHED') {
          this.#cursor = undefined
          // One without an id ends a run that died (server/events/replay.ts). The run that continues
          // its turn began from the stored thread, which holds nothing the dead run had not stored (its
          // half-streamed text or call): the thread is read again and that run followed, as on a reload.
          if (toolgateStream && !logged) return yield* this.load(thread.id!, signal)
          interrupts = paused ?? []
          // Toolgate's server ends the stream with its run (and released the thread before saying
          // so): no need to wait for it to close. Other AG-UI servers may run again in one stream.
          if (toolgateStream) break
        }
      }
    } catch (error) {
      if (signal.aborted || error instanceof ChatError) throw error
      throw new ChatError('NETWORK', `The connection broke: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    }
    if (signal.aborted) return []
    if (!interrupts) throw new ChatError('NETWORK', 'The connection closed before the run finished')
    return interrupts
  }
}
