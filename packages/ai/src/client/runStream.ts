import type { ReadEvent } from './parseEvent.ts'
import type { ToolInterrupt } from '../protocol/interrupts.ts'
import type { ChatRequest, ResumeAnswer } from '../protocol/requests.ts'
import type { ThreadSnapshot } from '../protocol/thread.ts'
import type { Fetch } from '../util/Fetch.ts'
import { readSseData } from '../util/readSseData.ts'
import { argumentsParser } from './argumentsParser.ts'
import { pauseBook } from './pauseBook.ts'
import { threadRestore } from './threadRestore.ts'
import { ChatError, type ChatErrorCode } from './chatError.ts'
import { parseEvent } from './parseEvent.ts'
import { attachRun, getThread, isEventStream, postChat, readAccepted, send } from './transport.ts'
import { untilAborted } from './untilAborted.ts'

/** What following a run asks the client to apply, in order. */
export type StreamSignal =
  /** An event of the run, to apply to the messages. */
  | { readonly type: 'event'; readonly event: ReadEvent }
  /** The thread's id, as the server says it (the first message of a thread learns it here). */
  | { readonly type: 'thread'; readonly threadId: string }
  /** A run streams: it resumed, or a new one began, so the pause the client knew is over. */
  | { readonly type: 'streaming' }
  /** The stream dropped and the client is attaching again (`true`), or stopped trying (`false`). */
  | { readonly type: 'reconnecting'; readonly reconnecting: boolean }
  /** The run's events are gone (it ended while the client was away): the stored thread is the truth. */
  | { readonly type: 'resynced'; readonly snapshot: ThreadSnapshot }

/** Attempts to attach again to a run whose stream dropped, before the client reports the failure. */
const RECONNECT_ATTEMPTS = 5

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
  #cursor: { runId: string; after: number } | undefined

  constructor(fetch: Fetch, endpoint: string) {
    this.#fetch = fetch
    this.#endpoint = endpoint
  }

  /**
   * POSTs; after interrupting a run of its own, retries while the server still reports the thread
   * busy, since it notices the abort a moment later (about 1.5 s at most).
   */
  async post(body: ChatRequest, signal: AbortSignal, interrupting: boolean): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      // A custom fetch may send a request whose signal already aborted (a stop() between two posts).
      signal.throwIfAborted()
      try {
        return await postChat(this.#fetch, this.#endpoint, body, signal)
      } catch (error) {
        if (!interrupting || attempt === 4 || !(error instanceof ChatError) || error.code !== 'THREAD_BUSY') throw error
        await untilAborted(new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt)), signal)
      }
    }
  }

  /**
   * POSTs a turn or answers and follows what comes back: an event stream, or `ResumeAccepted`
   * (answers stored, others of the batch still missing). `answers` left from before a message go
   * first; a run they resume gives way to the message.
   */
  async *exchange(
    body: ChatRequest,
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
    const accepted = await readAccepted(response, signal)
    if (accepted.threadId !== undefined) yield { type: 'thread', threadId: accepted.threadId }
    return accepted.interrupts
  }

  /** GETs `?threadId=<id>&<query>` as JSON, unapplied (a review watch's reads); throws a `ChatError` unless it succeeds. */
  ask(threadId: string, query: string, signal: AbortSignal): Promise<Response> {
    return send(this.#fetch, `${this.#endpoint}${this.#endpoint.includes('?') ? '&' : '?'}threadId=${encodeURIComponent(threadId)}${query}`, { headers: { accept: 'application/json' }, signal }, signal)
  }

  /** Reads a thread, as after a reload; a run still streaming on it is followed from its start, over what it began from. */
  async *load(threadId: string, signal: AbortSignal): AsyncGenerator<StreamSignal, readonly ToolInterrupt[]> {
    const snapshot = await getThread(this.#fetch, this.#endpoint, threadId, signal)
    if (signal.aborted) return []
    await threadRestore.load()
    yield { type: 'resynced', snapshot }
    if (snapshot.status === 'running' && snapshot.runId !== undefined) return yield* this.follow(snapshot.runId, threadId, signal)
    return snapshot.interrupts
  }

  /**
   * Reads a run to its end, from a POST's `response` or, given a run id, from the run's start (a
   * reload mid-run); returns the interrupts it paused on. When the stream drops (a network blip, a
   * proxy's timeout, a sleeping tab), attaches to the run again after the last event that arrived,
   * with bounded backoff; when the server keeps no more of the run, the stored thread is read instead.
   */
  async *follow(from: Response | string, threadId: string | undefined, signal: AbortSignal): AsyncGenerator<StreamSignal, readonly ToolInterrupt[]> {
    const thread = { id: threadId }
    let response = typeof from === 'string' ? undefined : from
    if (typeof from === 'string') this.#cursor = { runId: from, after: 0 }
    for (let attempt = 0; ; attempt++) {
      let broken: unknown
      if (response) {
        try {
          return yield* this.#read(response, thread, signal)
        } catch (error) {
          if (signal.aborted || !(error instanceof ChatError) || error.code !== 'NETWORK' || !this.#cursor) throw error
          broken = error
        }
      }
      if (attempt >= RECONNECT_ATTEMPTS) throw broken ?? new ChatError('NETWORK', 'Could not attach to the run')
      yield { type: 'reconnecting', reconnecting: true }
      try {
        if (response) await untilAborted(new Promise((resolve) => setTimeout(resolve, reconnectDelay(attempt))), signal)
        const attached = await attachRun(this.#fetch, this.#endpoint, thread.id!, this.#cursor!, signal).catch((error: unknown) => {
          // The network, or the server behind a proxy (restarting, deploying), is still down: try again.
          if (signal.aborted || (error instanceof ChatError && error.code !== 'NETWORK' && error.code !== 'UNREACHABLE')) throw error
          return undefined
        })
        if (attached === 'gone') {
          this.#cursor = undefined
          const snapshot = await getThread(this.#fetch, this.#endpoint, thread.id!, signal)
          if (signal.aborted) return []
          await threadRestore.load()
          yield { type: 'resynced', snapshot }
          return snapshot.interrupts
        }
        response = attached
      } finally {
        yield { type: 'reconnecting', reconnecting: false }
      }
    }
  }

  /** Asks the server to stop the run being read, if one is: closing the stream alone does not. */
  stop(threadId: string): void {
    if (!this.#cursor) return
    this.#cursor = undefined
    void postChat(this.#fetch, this.#endpoint, { threadId, stop: true }, new AbortController().signal).catch(() => {})
  }

  /** Reads the events of one response; returns the interrupts its (last) run paused on. */
  async *#read(response: Response, thread: { id: string | undefined }, signal: AbortSignal): AsyncGenerator<StreamSignal, readonly ToolInterrupt[]> {
    if (!response.body) throw new ChatError('BAD_RESPONSE', 'The server sent an event stream without a body')
    let interrupts: readonly ToolInterrupt[] | undefined
    let toolgateStream = false
    const onId = (id: string) => {
      const match = /^(.+):(\d+)$/.exec(id)
      if (!match) return
      toolgateStream = true
      this.#cursor = { runId: match[1]!, after: Number(match[2]) }
    }
    try {
      for await (const data of readSseData(response.body, signal, { flushAtEnd: false, onId })) {
        const event = parseEvent(data)
        if (!event) continue
        // A call's arguments stream into a parser loaded on first use (not with the page).
        if (event.type === 'TOOL_CALL_START') await argumentsParser.load()
        // A run that pauses: its interrupts are read by the pause's chunk, loaded now.
        const paused = event.type === 'RUN_FINISHED' && event.outcome?.type === 'interrupt' ? (await pauseBook.load()).toolInterrupts(event.outcome.interrupts) : undefined
        yield { type: 'event', event }
        if (event.type === 'RUN_STARTED') {
          thread.id = event.threadId
          yield { type: 'thread', threadId: event.threadId }
          interrupts = undefined // a stream may hold several runs: the last one counts
        } else if (event.type === 'RUN_ERROR') {
          this.#cursor = undefined
          throw new ChatError((event.code ?? 'INTERNAL') as ChatErrorCode, event.message)
        } else if (event.type === 'RUN_FINISHED') {
          this.#cursor = undefined
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

/** Exponential backoff with jitter: about 0.25, 0.5, 1, 2, 4 seconds. */
function reconnectDelay(attempt: number): number {
  return 250 * 2 ** attempt * (0.75 + Math.random() * 0.5)
}
