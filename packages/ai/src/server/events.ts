import type { ChatEvent, TokenUsage } from '../protocol/events.ts'
import type { RunOutcome } from '../protocol/interrupts.ts'
import type { ThreadToolMessage } from '../protocol/messages.ts'
import type { ErrorCode } from '../protocol/errors.ts'
import { randomId } from '../util/randomId.ts'
import type { LoggedEvent, RunEventLog } from './runEventLog.ts'

/** Where a run's events go, each with its sequence number in the run (1, 2, ...). */
export type EventSink = (event: ChatEvent, seq: number) => void

/**
 * The event stream of one run, and its only writer: every AG-UI event of a run is made here, in
 * an order AG-UI accepts. A text or reasoning message is always closed before anything else
 * starts, each tool call is closed once, and the run ends with exactly one RUN_FINISHED or RUN_ERROR.
 */
export class RunEvents {
  readonly threadId: string
  readonly runId: string
  readonly #sink: EventSink
  #seq = 0
  #ended = false
  /** The assistant message of the model step under way: its first text segment takes its id. */
  #step: { readonly messageId: string; segments: number } | undefined
  /** The text message open for deltas, if any. */
  #text: string | undefined
  /** The reasoning message open for deltas, if any. */
  #reasoning: string | undefined
  readonly #openCalls = new Set<string>()

  constructor(threadId: string, runId: string, sink: EventSink) {
    this.threadId = threadId
    this.runId = runId
    this.#sink = sink
  }

  /**
   * The events of a run that stopped writing (its process died), continued from its log: what the
   * log left open is known, so closing it (`failed`) keeps the stream one AG-UI accepts, and the
   * numbering goes on from the last logged event.
   */
  static continuing(threadId: string, runId: string, logged: readonly LoggedEvent[], sink: EventSink): RunEvents {
    const events = new RunEvents(threadId, runId, sink)
    for (const { seq, event } of logged) {
      events.#seq = seq
      if (event.type === 'TEXT_MESSAGE_START') events.#text = event.messageId
      else if (event.type === 'TEXT_MESSAGE_END') events.#text = undefined
      else if (event.type === 'REASONING_MESSAGE_START') events.#reasoning = event.messageId
      else if (event.type === 'REASONING_END') events.#reasoning = undefined
      else if (event.type === 'TOOL_CALL_START') events.#openCalls.add(event.toolCallId)
      else if (event.type === 'TOOL_CALL_END') events.#openCalls.delete(event.toolCallId)
      else if (event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR') events.#ended = true
    }
    return events
  }

  started(): void {
    this.#emit({ type: 'RUN_STARTED', threadId: this.threadId, runId: this.runId })
  }

  /** A model step begins; `messageId` is the id of the assistant message it stores. */
  stepStarted(messageId: string): void {
    this.stepEnded()
    this.#step = { messageId, segments: 0 }
  }

  /**
   * Appends to the assistant's text. Text after a tool call opens a new text message (AG-UI wants
   * text closed before a call starts); the step's first one carries the stored message's id.
   */
  text(delta: string): void {
    if (delta === '') return
    this.#closeReasoning()
    if (this.#text === undefined) {
      const step = this.#step ?? { messageId: randomId('msg_'), segments: 0 }
      const messageId = step.segments++ === 0 ? step.messageId : randomId('msg_')
      this.#step = step
      this.#text = messageId
      this.#emit({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' })
    }
    this.#emit({ type: 'TEXT_MESSAGE_CONTENT', messageId: this.#text, delta })
  }

  /** Appends to the model's visible reasoning. */
  reasoning(delta: string): void {
    if (delta === '') return
    this.#closeText()
    if (this.#reasoning === undefined) {
      const messageId = randomId('msg_')
      this.#reasoning = messageId
      this.#emit({ type: 'REASONING_START', messageId })
      this.#emit({ type: 'REASONING_MESSAGE_START', messageId, role: 'reasoning' })
    }
    this.#emit({ type: 'REASONING_MESSAGE_CONTENT', messageId: this.#reasoning, delta })
  }

  toolCallStart(toolCallId: string, toolCallName: string): void {
    this.#closeMessages()
    this.#openCalls.add(toolCallId)
    const parent = this.#step?.messageId
    this.#emit({ type: 'TOOL_CALL_START', toolCallId, toolCallName, ...(parent === undefined ? {} : { parentMessageId: parent }) })
  }

  toolCallArgs(toolCallId: string, delta: string): void {
    if (delta !== '' && this.#openCalls.has(toolCallId)) this.#emit({ type: 'TOOL_CALL_ARGS', toolCallId, delta })
  }

  toolCallEnd(toolCallId: string): void {
    if (this.#openCalls.delete(toolCallId)) this.#emit({ type: 'TOOL_CALL_END', toolCallId })
  }

  /** Ends whatever the model left open: the step is over. */
  stepEnded(): void {
    this.#closeMessages()
    for (const toolCallId of [...this.#openCalls]) this.toolCallEnd(toolCallId)
  }

  result(result: ThreadToolMessage): void {
    const { id: messageId, toolCallId, content, status, output, reason, edited } = result
    this.#emit({
      type: 'TOOL_CALL_RESULT',
      messageId,
      toolCallId,
      content,
      role: 'tool',
      status,
      ...(status === 'success' ? { output } : {}),
      ...(reason === undefined ? {} : { reason }),
      ...(edited ? { edited } : {}),
    })
  }

  finished(outcome: RunOutcome, usage?: TokenUsage): void {
    this.stepEnded()
    this.#emit({ type: 'RUN_FINISHED', threadId: this.threadId, runId: this.runId, outcome, ...(usage ? { usage: [usage] } : {}) })
    this.#ended = true
  }

  failed(code: ErrorCode, message: string): void {
    this.stepEnded()
    this.#emit({ type: 'RUN_ERROR', code, message })
    this.#ended = true
  }

  #closeText(): void {
    if (this.#text !== undefined) this.#emit({ type: 'TEXT_MESSAGE_END', messageId: this.#text })
    this.#text = undefined
  }

  #closeReasoning(): void {
    if (this.#reasoning === undefined) return
    this.#emit({ type: 'REASONING_MESSAGE_END', messageId: this.#reasoning })
    this.#emit({ type: 'REASONING_END', messageId: this.#reasoning })
    this.#reasoning = undefined
  }

  #closeMessages(): void {
    this.#closeText()
    this.#closeReasoning()
  }

  #emit(event: ChatEvent): void {
    if (this.#ended) return
    this.#sink(event, ++this.#seq)
  }
}

/**
 * Appends a run's events to its log in order, batching what arrives while an append is under way
 * (a model streams a token at a time; a remote log should not be called per token). A log that
 * fails costs the run's resumability, never the run: the failure is reported once.
 */
export class EventLogWriter {
  readonly #log: RunEventLog
  readonly #runId: string
  #queue: LoggedEvent[] = []
  #flushing: Promise<void> = Promise.resolve()
  #failed = false

  constructor(log: RunEventLog, runId: string) {
    this.#log = log
    this.#runId = runId
  }

  push(event: ChatEvent, seq: number): void {
    this.#queue.push({ seq, event })
    if (this.#queue.length === 1) this.#flushing = this.#flushing.then(() => this.#flush())
  }

  /** Writes what is queued, then marks the run's log ended so it expires. */
  async end(): Promise<void> {
    await this.#flushing
    await this.#flush()
    if (!this.#failed) await this.#log.end(this.#runId).catch((error) => this.#report(error))
  }

  async #flush(): Promise<void> {
    const batch = this.#queue
    if (batch.length === 0) return
    this.#queue = []
    try {
      if (!this.#failed) await this.#log.append(this.#runId, batch)
    } catch (error) {
      this.#report(error)
    }
  }

  #report(error: unknown): void {
    if (this.#failed) return
    this.#failed = true
    console.error(`[toolgate] run ${this.#runId}: the event log failed; a client that reconnects cannot resume this run:`, error)
  }
}

/** One event as Server-Sent Events: `id: <runId>:<seq>`, the id a reconnecting client sends back as `Last-Event-ID`. */
export function sseFrame(runId: string, seq: number, event: ChatEvent): string {
  return `id: ${runId}:${seq}\ndata: ${JSON.stringify(event)}\n\n`
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // Tells nginx-style proxies not to buffer the stream.
  'x-accel-buffering': 'no',
} as const

/**
 * Streams a run as Server-Sent Events (`sseFrame`, as AG-UI's HTTP clients read them) and writes
 * every event to the run's log, from which `GET` replays it to a client that reconnects. With a
 * `requestSignal`, the run is aborted when the client disconnects (the signal) or stops reading
 * (the stream is cancelled), whichever the server reports: that is how a client stops a run.
 * Without one, the run goes on until it ends, whoever reads it.
 */
export function eventStreamResponse(
  requestSignal: AbortSignal | undefined,
  runId: string,
  log: RunEventLog,
  run: (sink: EventSink, signal: AbortSignal) => Promise<void>,
): Response {
  const abort = new AbortController()
  const onDisconnect = () => abort.abort(requestSignal?.reason)
  if (requestSignal?.aborted) onDisconnect()
  else requestSignal?.addEventListener('abort', onDisconnect, { once: true })

  const encoder = new TextEncoder()
  const writer = new EventLogWriter(log, runId)
  let open = true
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const sink: EventSink = (event, seq) => {
        writer.push(event, seq)
        if (open) controller.enqueue(encoder.encode(sseFrame(runId, seq, event)))
      }
      // Not awaited: `start` must return for the stream to flow while the run goes on.
      run(sink, abort.signal)
        .catch((error) => console.error('[toolgate] chat run failed:', error))
        // The log holds the whole run before the stream closes: a client that reads the end and
        // asks again finds it there.
        .finally(() => writer.end())
        .finally(() => {
          requestSignal?.removeEventListener('abort', onDisconnect)
          if (open) {
            open = false
            controller.close()
          }
        })
    },
    cancel(reason) {
      open = false
      if (requestSignal) abort.abort(reason)
    },
  })
  return new Response(body, { status: 200, headers: SSE_HEADERS })
}
