import type { ToolInterrupt } from '../protocol/interrupts.ts'
import type { ChatRequest, ResumeAnswer } from '../protocol/requests.ts'
import type { ThreadSnapshot } from '../protocol/thread.ts'
import type { JsonSchema } from '../schema/types.ts'
import type { AnyTool } from '../tools/types.ts'
import { applyEvent } from './applyEvent.ts'
import { ChatError, type ChatErrorCode } from './chatError.ts'
import { ThreadDraft, type CallOutcome, type ToolCallDraft } from './draft.ts'
import { fromSnapshot } from './fromSnapshot.ts'
import type { Fetch } from '../util/Fetch.ts'
import { InvalidOptionError } from '../errors.ts'
import { isRecord } from '../util/isRecord.ts'
import { readSseData } from '../util/readSseData.ts'
import { isToolInterrupt } from './guards.ts'
import { parseEvent } from './parseEvent.ts'
import type { ChatState, ChatStatus, PendingApproval, ToolApproval, ToolCallPart } from './parts.ts'
import { runClientTool, type ClientToolResult } from './runClientTool.ts'
import { NotifyBatcher, type NotifyScheduler } from './scheduleNotify.ts'
import { attachRun, getThread, isEventStream, postChat, readJson } from './transport.ts'
import { untilAborted } from './untilAborted.ts'

export interface ChatClientOptions<TTools extends readonly AnyTool[] = readonly AnyTool[]> {
  /** The URL of the chat handler. */
  readonly endpoint: string
  /**
   * Every tool the model may call. `.client()` tools run in this browser when the server asks;
   * definitions of the others type their parts and give them their `metadata`.
   */
  readonly tools?: TTools
  /** Continue this thread (`load()` fetches what it holds); without it the first message starts one. */
  readonly threadId?: string | undefined
  /** Replaces the global `fetch`: to add headers, or to call a handler in-process. */
  readonly fetch?: Fetch
  /** Called with each failure, as it lands in `error`. */
  readonly onError?: (error: ChatError) => void
  /** Called when this browser starts running a client tool. */
  readonly onToolCall?: (call: ToolCallPart<TTools>) => void
  /** How change notifications are batched. Default: one per animation frame, a timeout where there are none. */
  readonly scheduleNotify?: NotifyScheduler
}

export interface ApproveOptions {
  /** Replaces the call's arguments; the server validates them against the tool's input schema. */
  readonly editedArgs?: unknown
}

/** An interrupt of the current pause, and whether this client has answered it. */
interface PauseEntry {
  readonly interrupt: ToolInterrupt
  answered: boolean
}

/**
 * A chat as an external store: `subscribe` and `getSnapshot` let any framework bind it, and the
 * snapshot is immutable and the same object until something changes. Every method is bound, so it
 * can be passed around as is. The async ones resolve once the client has nothing left to do by
 * itself (the run finished, or paused for the user) and never reject: failures land in `error`.
 */
export class ChatClient<const TTools extends readonly AnyTool[] = readonly AnyTool[]> {
  readonly #options: ChatClientOptions<TTools>
  readonly #tools: readonly AnyTool[]
  /** The tools this client knows (it runs the client tools among them and checks approvals' edits with their schemas). */
  get tools(): readonly AnyTool[] {
    return this.#tools
  }
  readonly #fetch: Fetch
  #draft: ThreadDraft
  #threadId: string | undefined
  #error: ChatError | undefined
  /** The request in flight; there is never more than one. */
  #request: AbortController | undefined
  /** Client tools running, by interrupt id. */
  readonly #running = new Map<string, AbortController>()
  /** The interrupts the run is paused on, by id. */
  readonly #pause = new Map<string, PauseEntry>()
  /** Answers not yet sent. Each goes out as soon as nothing else is in flight, so requests never race. */
  #outbox: ResumeAnswer[] = []
  #state: ChatState<TTools>
  readonly #listeners = new Set<() => void>()
  readonly #batcher: NotifyBatcher
  #busy = 0
  #idleWaiters: (() => void)[] = []
  /** The run being read and its last event that arrived: where a dropped stream picks up. */
  #cursor: { runId: string; after: number } | undefined
  #reconnecting = false

  constructor(options: ChatClientOptions<TTools>) {
    checkOptions(options)
    this.#options = options
    this.#tools = options.tools ?? []
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
    this.#draft = new ThreadDraft(this.#tools)
    this.#threadId = options.threadId
    this.#state = Object.freeze({ threadId: this.#threadId, messages: [], status: 'idle', error: undefined, pendingApprovals: [] })
    this.#batcher = new NotifyBatcher(() => this.#publish(), options.scheduleNotify)
  }

  /** Calls `listener` after changes, at most once per batch (an animation frame by default). */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  readonly getSnapshot = (): ChatState<TTools> => this.#state

  /**
   * Sends a message, ending whatever runs. Approvals still pending are denied by the server (and
   * marked so here); client tools still running are cancelled. Results of client tools not yet
   * sent go first, so the server records what really happened.
   */
  readonly send = (text: string): Promise<void> => {
    if (text.trim() === '') return this.#idle()
    const interrupting = this.#request !== undefined
    this.#stopServerRun()
    this.#halt()
    this.#supersedePause()
    const answers = this.#outbox
    this.#outbox = []
    this.#error = undefined
    this.#draft.addUserMessage(text)
    const body = this.#threadId === undefined ? { message: text } : { threadId: this.#threadId, message: text }
    this.#track(this.#exchange(body, interrupting, answers))
    return this.#idle()
  }

  /** Approves a call waiting in `pendingApprovals`, optionally with edited arguments. */
  readonly approve = (toolCallId: string, options: ApproveOptions = {}): Promise<void> => {
    const pending = this.#pendingApproval(toolCallId)
    if (pending) {
      const { call, entry } = pending
      const edited = options.editedArgs !== undefined
      this.#draft.approve(call, edited ? { value: options.editedArgs } : undefined)
      this.#answer(entry, { interruptId: entry.interrupt.id, approved: true, ...(edited ? { editedArgs: options.editedArgs } : {}) })
    }
    return this.#idle()
  }

  /** Denies a call waiting in `pendingApprovals`; the model reads `reason`. */
  readonly deny = (toolCallId: string, reason?: string): Promise<void> => {
    const pending = this.#pendingApproval(toolCallId)
    if (pending) {
      const { call, entry } = pending
      this.#draft.settle(call, { status: 'denied', reason })
      this.#answer(entry, { interruptId: entry.interrupt.id, approved: false, ...(reason === undefined ? {} : { reason }) })
    }
    return this.#idle()
  }

  /**
   * Ends the stream and aborts running client tools through their signal; calls left unfinished
   * end as `output-error`. Pending approvals stay, and approvals not yet sent can be given again.
   */
  readonly stop = (): void => {
    this.#stopServerRun()
    this.#halt()
    this.#changed()
    this.#batcher.flushNow()
  }

  /**
   * Loads a thread from the server (`GET ?threadId=`), as after a reload: messages, calls and
   * pending approvals; client tools it waits for run. Also resynchronises after a failure.
   * Results of client tools that finished here but were not sent yet go to the server once the
   * thread is loaded, if it still waits for them, so no tool runs twice.
   */
  readonly load = (threadId: string | undefined = this.#threadId): Promise<void> => {
    if (threadId === undefined) return this.#idle()
    this.#halt() // keeps queued results: the load, in flight, holds them back
    if (threadId !== this.#threadId) this.#outbox = []
    this.#error = undefined
    this.#threadId = threadId
    this.#track(this.#loadThread(threadId))
    return this.#idle()
  }

  async #loadThread(threadId: string): Promise<void> {
    const controller = this.#begin()
    try {
      const snapshot = await this.#readThread(threadId, controller.signal)
      if (controller.signal.aborted) return
      this.#draft = fromSnapshot(snapshot, this.#tools)
      this.#pause.clear()
      // A run still streams (a reload mid-answer): follow it from its start, over what it began from.
      let interrupts = snapshot.interrupts
      if (snapshot.status === 'running' && snapshot.runId !== undefined) {
        this.#cursor = { runId: snapshot.runId, after: 0 }
        interrupts = await this.#followRun(undefined, controller.signal)
        if (controller.signal.aborted) return
      }
      // Queued results the thread no longer waits for are dropped; the others go out as this request ends.
      this.#outbox = this.#outbox.filter((answer) => interrupts.some((interrupt) => interrupt.id === answer.interruptId))
      this.#paused(interrupts)
    } catch (error) {
      if (controller.signal.aborted) return
      this.#outbox = [] // whether the thread still waits for them is unknown
      this.#fail(error)
    } finally {
      this.#end(controller)
    }
  }

  /**
   * POSTs a turn or answers and follows what comes back: an event stream, or `ResumeAccepted`.
   * `answers` left from before a message go first; a run they resume gives way to the message.
   */
  async #exchange(body: ChatRequest, interrupting = false, answers: readonly ResumeAnswer[] = []): Promise<void> {
    const controller = this.#begin()
    let interrupts: readonly ToolInterrupt[] = []
    let streamed = false
    try {
      if (answers.length > 0) {
        interrupting = true
        await this.#post({ threadId: this.#threadId!, resume: answers }, controller.signal, true)
          .then((response) => response.body?.cancel())
          .catch(() => {}) // refused: the message goes all the same, and the server denies what it did not record
      }
      const response = await this.#post(body, controller.signal, interrupting)
      if (isEventStream(response)) {
        streamed = true
        this.#pause.clear() // the run resumed, or a new one began
        interrupts = await this.#followRun(response, controller.signal)
      } else {
        interrupts = this.#accepted(await readJson(response, controller.signal))
      }
    } catch (error) {
      if (controller.signal.aborted) return
      this.#fail(error)
      // Refused answers can be given again; once a stream started, they were applied.
      if ('resume' in body && !streamed) this.#reopen(body.resume)
    } finally {
      this.#end(controller)
    }
    if (!controller.signal.aborted) this.#paused(interrupts)
  }

  /**
   * POSTs; after interrupting a run of its own, retries while the server still reports the thread
   * busy, since it notices the abort a moment later (about 1.5 s at most).
   */
  async #post(body: ChatRequest, signal: AbortSignal, interrupting: boolean): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      // A custom fetch may send a request whose signal already aborted (a stop() between two posts).
      signal.throwIfAborted()
      try {
        return await postChat(this.#fetch, this.#options.endpoint, body, signal)
      } catch (error) {
        if (!interrupting || attempt === 4 || !(error instanceof ChatError) || error.code !== 'THREAD_BUSY') throw error
        await untilAborted(new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt)), signal)
      }
    }
  }

  /**
   * Reads a run to its end; returns the interrupts it paused on. When the stream drops (a network
   * blip, a proxy's timeout, a sleeping tab), attaches to the run again after the last event that
   * arrived, with bounded backoff, as `reconnecting`; when the server keeps no more of the run, the
   * stored thread is read instead. `response` undefined: attach to `#cursor` straight away.
   */
  async #followRun(response: Response | undefined, signal: AbortSignal): Promise<readonly ToolInterrupt[]> {
    for (let attempt = 0; ; attempt++) {
      let broken: unknown
      if (response) {
        try {
          return await this.#readRun(response, signal)
        } catch (error) {
          if (signal.aborted || !(error instanceof ChatError) || error.code !== 'NETWORK' || !this.#cursor) throw error
          broken = error
        }
      }
      if (attempt >= RECONNECT_ATTEMPTS) throw broken ?? new ChatError('NETWORK', 'Could not attach to the run')
      this.#setReconnecting(true)
      try {
        if (response) await untilAborted(new Promise((resolve) => setTimeout(resolve, reconnectDelay(attempt))), signal)
        const attached = await attachRun(this.#fetch, this.#options.endpoint, this.#threadId!, this.#cursor!, signal).catch((error: unknown) => {
          if (signal.aborted || (error instanceof ChatError && error.code !== 'NETWORK')) throw error
          return undefined // the network is still down: try again
        })
        if (attached === 'gone') return await this.#resync(signal)
        response = attached
      } finally {
        this.#setReconnecting(false)
      }
    }
  }

  /** The run's events are gone (it ended while the client was away): the stored thread is the truth. */
  async #resync(signal: AbortSignal): Promise<readonly ToolInterrupt[]> {
    this.#cursor = undefined
    const snapshot = await this.#readThread(this.#threadId!, signal)
    if (signal.aborted) return []
    this.#draft = fromSnapshot(snapshot, this.#tools)
    this.#pause.clear()
    return snapshot.interrupts
  }

  #setReconnecting(reconnecting: boolean): void {
    if (this.#reconnecting === reconnecting) return
    this.#reconnecting = reconnecting
    this.#changed()
  }

  /** Asks the server to stop the run this client is reading: closing the stream alone does not. */
  #stopServerRun(): void {
    const threadId = this.#threadId
    if (!this.#cursor || !this.#request || threadId === undefined) return
    this.#cursor = undefined
    void postChat(this.#fetch, this.#options.endpoint, { threadId, stop: true }, new AbortController().signal).catch(() => {})
  }

  /** Applies the events of one run; returns the interrupts it paused on. */
  async #readRun(response: Response, signal: AbortSignal): Promise<readonly ToolInterrupt[]> {
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
        const signalled = applyEvent(this.#draft, event)
        this.#changed()
        if (signalled?.type === 'started') this.#threadId = signalled.threadId
        if (signalled?.type === 'failed') {
          this.#cursor = undefined
          throw new ChatError((signalled.code ?? 'INTERNAL') as ChatErrorCode, signalled.message)
        }
        if (signalled?.type === 'started') interrupts = undefined // a stream may hold several runs: the last one counts
        if (signalled?.type === 'finished') {
          this.#cursor = undefined
          interrupts = signalled.interrupts
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

  async #readThread(threadId: string, signal: AbortSignal): Promise<ThreadSnapshot> {
    const snapshot = await getThread(this.#fetch, this.#options.endpoint, threadId, signal)
    if (!isThreadSnapshot(snapshot)) throw new ChatError('BAD_RESPONSE', 'The server sent a thread that is not a ThreadSnapshot')
    return snapshot
  }

  /** A 202: the answers are stored and others of the batch are still missing. */
  #accepted(body: unknown): readonly ToolInterrupt[] {
    if (!isRecord(body) || !Array.isArray(body.interrupts) || !body.interrupts.every(isToolInterrupt)) {
      throw new ChatError('BAD_RESPONSE', 'The server sent JSON that is neither an event stream nor ResumeAccepted')
    }
    if (typeof body.threadId === 'string') this.#threadId = body.threadId
    return body.interrupts
  }

  /** The run paused: approvals wait for the user, client tools start. Interrupts already known are left alone. */
  #paused(interrupts: readonly ToolInterrupt[]): void {
    for (const interrupt of interrupts) {
      if (this.#pause.has(interrupt.id)) continue
      const call = this.#draft.callFor(interrupt)
      // A plain AG-UI interrupt names no tool: it is the call's.
      const entry: PauseEntry = { interrupt: interrupt.toolName === '' ? { ...interrupt, toolName: call.toolName } : interrupt, answered: false }
      this.#pause.set(interrupt.id, entry)
      const input = interrupt.input === undefined ? call.input : interrupt.input
      const queued = this.#outbox.find((answer) => answer.interruptId === interrupt.id)
      if (queued && !('approved' in queued)) {
        entry.answered = true // a result kept across load(): it goes out with the outbox
        this.#draft.execute(call, input)
        this.#draft.settle(call, outcomeOf(queued))
      } else if (interrupt.reason === 'client_tool') this.#startClientTool(entry, call, input)
      else this.#draft.askApproval(call, input, askedApproval(interrupt))
    }
    this.#changed()
  }

  #startClientTool(entry: PauseEntry, call: ToolCallDraft, input: unknown): void {
    const { interrupt } = entry
    const controller = new AbortController()
    this.#running.set(interrupt.id, controller)
    this.#draft.execute(call, input)
    const { onToolCall } = this.#options
    if (onToolCall) callApp(() => onToolCall(this.#draft.partOf(call) as ToolCallPart<TTools>))
    const tool = this.#tools.find((candidate) => candidate.name === interrupt.toolName)
    const run = runClientTool(tool, { ...interrupt, input }, controller.signal).then((result) => {
      this.#running.delete(interrupt.id)
      this.#draft.settle(call, outcomeOf(result))
      this.#answer(entry, { interruptId: interrupt.id, ...result })
    })
    this.#track(run.catch(() => {})) // rejects only when halted, which already marked the call
  }

  #answer(entry: PauseEntry, answer: ResumeAnswer): void {
    entry.answered = true
    this.#error = undefined
    this.#outbox.push(answer)
    this.#changed()
    this.#sendAnswers()
  }

  /** Sends every queued answer in one request, once nothing else is in flight. */
  #sendAnswers(): void {
    if (this.#request || this.#outbox.length === 0 || this.#threadId === undefined) return
    const resume = this.#outbox
    this.#outbox = []
    this.#track(this.#exchange({ threadId: this.#threadId, resume }))
  }

  /**
   * Approvals the server did not take (a refused resume, or one never sent) can be answered again.
   * Client tool results wait for a `load()`.
   */
  #reopen(answers: readonly ResumeAnswer[]): void {
    for (const answer of answers) {
      const entry = this.#pause.get(answer.interruptId)
      if (!entry || !('approved' in answer)) continue
      entry.answered = false
      this.#draft.askApproval(this.#draft.callFor(entry.interrupt), entry.interrupt.input, askedApproval(entry.interrupt))
    }
  }

  /**
   * The user sent a message instead: the server denies every interrupt of the pause (approvals,
   * even approved ones not yet run, and client tools without a result) but results the browser gave.
   */
  #supersedePause(): void {
    for (const { interrupt, answered } of this.#pause.values()) {
      const call = this.#draft.call(interrupt.toolCallId)
      if (!call || call.state === 'denied' || (answered && interrupt.reason === 'client_tool')) continue
      this.#draft.settle(call, { status: 'denied' })
    }
    this.#pause.clear()
  }

  #pendingApproval(toolCallId: string): { call: ToolCallDraft; entry: PauseEntry } | undefined {
    const call = this.#draft.call(toolCallId)
    if (call?.state !== 'approval-requested') return undefined
    for (const entry of this.#pause.values()) {
      const { interrupt } = entry
      if (interrupt.toolCallId === toolCallId && interrupt.reason === 'tool_approval' && !entry.answered) return { call, entry }
    }
    return undefined
  }

  /**
   * Aborts the request in flight and every running client tool; nothing is sent for them. Calls
   * left unfinished are marked stopped. Approvals not yet sent can be given again; results wait
   * for the next request.
   */
  #halt(): void {
    this.#request?.abort()
    this.#request = undefined
    for (const controller of this.#running.values()) controller.abort()
    this.#stopCalls('Stopped before it finished', this.#running)
    this.#running.clear()
    this.#reopen(this.#outbox)
    this.#outbox = this.#outbox.filter((answer) => !('approved' in answer))
  }

  /** Ends every call still open with `error`, but the interrupts of the pause (client tools in `halted` excepted). */
  #stopCalls(error: string, halted?: ReadonlyMap<string, unknown>): void {
    const keep = new Set<string>()
    for (const [id, { interrupt }] of this.#pause) if (!halted?.has(id)) keep.add(interrupt.toolCallId)
    this.#draft.stopCalls(error, keep)
  }

  #begin(): AbortController {
    const controller = new AbortController()
    this.#request = controller
    this.#changed()
    return controller
  }

  #end(controller: AbortController): void {
    if (this.#request !== controller) return
    this.#request = undefined
    this.#changed()
    this.#sendAnswers()
  }

  #fail(error: unknown): void {
    const failure =
      error instanceof ChatError ? error : new ChatError('BAD_RESPONSE', error instanceof Error ? error.message : String(error), { cause: error })
    this.#error = failure
    this.#stopCalls(failure.message)
    this.#changed()
    const { onError } = this.#options
    if (onError) callApp(() => onError(failure))
  }

  #status(pendingApprovals: readonly PendingApproval[]): ChatStatus {
    if (this.#reconnecting) return 'reconnecting'
    if (this.#request) return 'streaming'
    if (this.#running.size > 0) return 'running-tools'
    if (this.#error) return 'error'
    if (pendingApprovals.length > 0) return 'awaiting-approval'
    return 'idle'
  }

  #changed(): void {
    this.#batcher.request()
  }

  #publish(): void {
    const { messages, pendingApprovals } = this.#draft.snapshot()
    const status = this.#status(pendingApprovals)
    const state = this.#state
    const same =
      state.messages === messages &&
      state.pendingApprovals === pendingApprovals &&
      state.status === status &&
      state.error === this.#error &&
      state.threadId === this.#threadId
    if (same) return
    this.#state = Object.freeze({ threadId: this.#threadId, messages, status, error: this.#error, pendingApprovals }) as ChatState<TTools>
    for (const listener of [...this.#listeners]) listener()
  }

  /** Counts work in flight, so the public methods can resolve once all of it is done. */
  #track(work: Promise<void>): void {
    this.#busy++
    work
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        if (--this.#busy > 0) return
        this.#batcher.flushNow()
        for (const resolve of this.#idleWaiters.splice(0)) resolve()
      })
  }

  #idle(): Promise<void> {
    if (this.#busy > 0) return new Promise((resolve) => this.#idleWaiters.push(resolve))
    this.#batcher.flushNow()
    return Promise.resolve()
  }
}

/** Attempts to attach again to a run whose stream dropped, before the client reports the failure. */
const RECONNECT_ATTEMPTS = 5

/** Exponential backoff with jitter: about 0.25, 0.5, 1, 2, 4 seconds. */
function reconnectDelay(attempt: number): number {
  return 250 * 2 ** attempt * (0.75 + Math.random() * 0.5)
}

/**
 * Creates a `ChatClient`; the tools given type every part. This is the public way to make one
 * (`new ChatClient(options)` does the same; the class is exported for its type). Options are
 * checked here, so a typo fails at construction with an `InvalidOptionError` naming the option,
 * not at the first message.
 */
export function createChatClient<const TTools extends readonly AnyTool[] = readonly AnyTool[]>(
  options: ChatClientOptions<TTools>,
): ChatClient<TTools> {
  return new ChatClient(options)
}

const WHERE = 'createChatClient()'

function checkOptions(options: ChatClientOptions<readonly AnyTool[]>): void {
  if (!isRecord(options)) throw new InvalidOptionError(WHERE, 'options', 'must be an object')
  const { endpoint, tools, threadId } = options
  if (typeof endpoint !== 'string' || endpoint.trim() === '') throw new InvalidOptionError(WHERE, 'endpoint', 'must be a non-empty URL string')
  if (threadId !== undefined && (typeof threadId !== 'string' || threadId === '')) {
    throw new InvalidOptionError(WHERE, 'threadId', 'must be a non-empty string when given')
  }
  if (tools !== undefined) {
    if (!Array.isArray(tools)) throw new InvalidOptionError(WHERE, 'tools', 'must be an array of tools')
    const names = new Set<string>()
    tools.forEach((tool: unknown, index) => {
      const name = isRecord(tool) ? tool.name : undefined
      if (typeof name !== 'string') throw new InvalidOptionError(WHERE, `tools[${index}]`, 'is not a tool (made with toolDefinition)')
      if (names.has(name)) throw new InvalidOptionError(WHERE, `tools[${index}]`, `repeats the tool name "${name}"`)
      names.add(name)
    })
  }
  for (const key of ['fetch', 'onError', 'onToolCall', 'scheduleNotify'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function') throw new InvalidOptionError(WHERE, key, 'must be a function')
  }
}

/** How a call ended once its client tool returned, or failed. */
function outcomeOf(result: ClientToolResult): CallOutcome {
  return 'output' in result ? { status: 'success', output: result.output } : { status: 'error', error: result.error }
}

function askedApproval(interrupt: ToolInterrupt): ToolApproval {
  const inputSchema = approvalInputSchema(interrupt.responseSchema)
  return {
    ...(interrupt.message === undefined ? {} : { reason: interrupt.message }),
    ...(inputSchema === undefined ? {} : { inputSchema }),
    ...(interrupt.expiresAt === undefined ? {} : { expiresAt: interrupt.expiresAt }),
  }
}

/** The tool's input schema out of an approval's `responseSchema` (see `ToolInterrupt.responseSchema`). */
function approvalInputSchema(responseSchema: unknown): JsonSchema | undefined {
  const defs = isRecord(responseSchema) ? responseSchema.$defs : undefined
  const input = isRecord(defs) ? defs.input : undefined
  if (!isRecord(input)) return undefined
  const { $id: _id, ...schema } = input
  return schema
}

/** Runs an app callback; what it throws is reported like an event listener's error, not taken as the client's. */
function callApp(callback: () => void): void {
  try {
    callback()
  } catch (error) {
    queueMicrotask(() => {
      throw error
    })
  }
}

function isThreadSnapshot(value: unknown): value is ThreadSnapshot {
  return (
    isRecord(value) &&
    typeof value.threadId === 'string' &&
    Array.isArray(value.messages) &&
    value.messages.every(isRecord) &&
    Array.isArray(value.interrupts) &&
    value.interrupts.every(isToolInterrupt)
  )
}
