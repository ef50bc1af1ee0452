import type { ToolInterrupt } from '../protocol/interrupts.ts'
import type { PostRequest, ResumeAnswer } from '../protocol/requests.ts'
import type { ThreadSnapshot } from '../protocol/thread.ts'
import type { AnyTool } from '../tools/types.ts'
// The draft before the error: imported after `chatError.ts`, it made Vite's bundler (Rolldown) put
// the errors in a chunk of their own, 0.5 KB more on a page (`ai-react/bench/bundle.bench.ts`).
import { applyEvent, ThreadDraft, type ChatState, type ChatStatus, type PendingApproval, type ToolCallPart } from './draft/index.ts'
import { ChatError } from './chatError.ts'
import { notLoaded, pausedRun, storedThread } from './chunks/index.ts'
import { callApp, checkOptions, type ApproveOptions, type ChatClientOptions } from './options.ts'
import type { ClientToolRuns, Pause, ReviewWatch, Waiting } from './pause/index.ts'
import { NotifyBatcher, Subscribable, Work } from './store/index.ts'
import { RunStream, type StreamSignal } from './stream/index.ts'
/**
 * The chat client's implementation (its public type is `ChatClient` in `createChatClient.ts`): the
 * store and its commands. Following a run's stream is `RunStream`'s; which interrupts are still
 * open, and the answers not yet sent, are `Pause`'s.
 */
export class ChatClient<const TTools extends readonly AnyTool[] = readonly AnyTool[]> extends Subscribable {
  readonly #options: ChatClientOptions<TTools>
  readonly #tools: readonly AnyTool[]
  /** The tools this client knows (it runs the client tools among them and checks approvals' edits with their schemas). */
  get tools(): readonly AnyTool[] {
    return this.#tools
  }
  readonly #stream: RunStream
  #draft: ThreadDraft
  /** Made when a run first pauses (`chunks/`); before that nothing is open and no answer waits. */
  #pause: Pause | undefined
  #threadId: string | undefined
  #error: ChatError | undefined
  /** The request in flight; there is never more than one. */
  #request: AbortController | undefined
  /** Made with the pause: client tools run only when a run pauses on them. */
  #running: ClientToolRuns | undefined
  #reconnecting = false
  /** The stop request `stop()` sent last, until the client moves on (`#begin`). */
  #stopping: Promise<void> | undefined
  /** Made with the pause; it watches only while approvals wait for reviewers (most chats never have one). */
  #reviews: ReviewWatch | undefined
  #state: ChatState<TTools>
  readonly #batcher: NotifyBatcher
  readonly #work: Work

  constructor(options: ChatClientOptions<TTools>) {
    checkOptions(options)
    super()
    this.#options = options
    this.#tools = options.tools ?? []
    this.#stream = new RunStream(options.fetch ?? ((input, init) => globalThis.fetch(input, init)), options.endpoint)
    this.#draft = new ThreadDraft(this.#tools)
    this.#threadId = options.threadId
    this.#state = Object.freeze({ threadId: this.#threadId, messages: [], status: 'idle', error: undefined, pendingApprovals: [] })
    this.#batcher = new NotifyBatcher(() => this.#publish(), options.scheduleNotify)
    this.#work = new Work(() => this.#batcher.flushNow())
  }

  readonly getSnapshot = (): ChatState<TTools> => this.#state

  /**
   * Sends a message, ending whatever runs. Approvals still pending are denied by the server (and
   * marked so here); client tools still running are cancelled. Results of client tools not yet
   * sent go first, so the server records what really happened.
   */
  readonly send = (text: string): Promise<void> => {
    if (text.trim() === '') return this.#work.idle()
    const interrupting = this.#request !== undefined
    // Not waited for, nor its failure said: the message ends whatever runs on the server as well.
    void this.#stopServerRun()?.catch(() => {})
    this.#halt()
    this.#pause?.supersede()
    const answers = this.#pause?.take() ?? []
    this.#error = undefined
    this.#draft.addUserMessage(text)
    const body = this.#threadId === undefined ? { message: text } : { threadId: this.#threadId, message: text }
    this.#track(this.#exchange(body, interrupting, answers))
    return this.#work.idle()
  }

  /** Approves a call waiting in `pendingApprovals`, optionally with edited arguments. */
  readonly approve = (toolCallId: string, options: ApproveOptions = {}): Promise<void> => {
    if (this.#pause?.approve(toolCallId, options)) this.#answered()
    return this.#work.idle()
  }

  /** Denies a call waiting in `pendingApprovals`; the model reads `reason`. */
  readonly deny = (toolCallId: string, reason?: string): Promise<void> => {
    if (this.#pause?.deny(toolCallId, reason)) this.#answered()
    return this.#work.idle()
  }

  /**
   * Ends the stream and aborts running client tools through their signal; calls left unfinished
   * end as `output-error`. Pending approvals stay, and approvals not yet sent can be given again.
   * When the server cannot be asked to stop the run, `error` says the run may still be going there.
   */
  readonly stop = (): void => {
    const stopping = this.#stopServerRun()
    this.#halt()
    this.#changed()
    this.#batcher.flushNow()
    // A stop the server never got (offline, down, refused) leaves the run going there, its tools
    // included, while the page shows it stopped: said, unless the client moved on since (#begin).
    // Calls and approvals stay as they are: the server still holds them.
    this.#stopping = stopping
    stopping?.catch((cause: ChatError) => {
      if (this.#stopping === stopping) this.#fail(new ChatError(cause.code, `The run may still be going on the server: stopping it failed. ${cause.message}`, { status: cause.status, cause }), false)
    })
    // Approvals still pending may be decided by their reviewers meanwhile.
    this.#watchReviews()
  }

  /**
   * Loads a thread from the server (`GET ?threadId=`), as after a reload: messages, calls and
   * pending approvals; client tools it waits for run. Also resynchronises after a failure.
   * Results of client tools that finished here but were not sent yet go to the server once the
   * thread is loaded, if it still waits for them, so no tool runs twice.
   */
  readonly load = (threadId: string | undefined = this.#threadId): Promise<void> => {
    if (threadId === undefined) return this.#work.idle()
    this.#halt() // keeps queued results: the load, in flight, holds them back
    if (threadId !== this.#threadId) this.#pause?.take()
    this.#error = undefined
    this.#threadId = threadId
    this.#track(this.#loadThread(threadId))
    return this.#work.idle()
  }

  async #loadThread(threadId: string): Promise<void> {
    const controller = this.#begin()
    let failed = false
    try {
      const interrupts = await this.#follow(this.#stream.load(threadId, controller.signal))
      if (controller.signal.aborted) return
      // Queued results the thread no longer waits for are dropped; the others go out as this request ends.
      this.#pause?.retain(interrupts)
      this.#paused(interrupts)
    } catch (error) {
      if (controller.signal.aborted) return
      failed = true
      this.#pause?.take() // whether the thread still waits for them is unknown
      this.#fail(error)
    } finally {
      this.#end(controller)
    }
    // The draft still shows the pause it had: keep following it (the watch's next look also tells when the server is back).
    if (failed && !this.#request) this.#watchReviews()
  }

  async #exchange(body: PostRequest, interrupting = false, answers: readonly ResumeAnswer[] = []): Promise<void> {
    const controller = this.#begin()
    let interrupts: readonly ToolInterrupt[] = []
    let failed = false
    try {
      interrupts = await this.#follow(this.#stream.exchange(body, { threadId: this.#threadId, answers, interrupting }, controller.signal))
    } catch (error) {
      if (controller.signal.aborted) return
      failed = true
      this.#fail(error)
      // Refused answers can be given again (once a run streamed they were applied, and its pause is over).
      if ('resume' in body) this.#pause?.reopen(body.resume)
    } finally {
      this.#end(controller)
    }
    if (controller.signal.aborted) return
    // A refused or failed resume leaves the thread paused as it was (its answers open again): keep following it.
    if (!failed) this.#paused(interrupts)
    else if (!this.#request) this.#watchReviews()
  }

  /** Applies what a request signals, in order; returns the interrupts its run paused on. */
  async #follow(signals: AsyncGenerator<StreamSignal, readonly ToolInterrupt[]>): Promise<readonly ToolInterrupt[]> {
    for (;;) {
      const next = await signals.next()
      if (next.done) {
        if (next.value.length > 0) await pausedRun.load()
        return next.value
      }
      const signal = next.value
      if (signal.type === 'event') applyEvent(this.#draft, signal.event)
      else if (signal.type === 'thread') this.#threadId = signal.threadId
      else if (signal.type === 'streaming') this.#pause?.clear()
      else if (signal.type === 'reconnecting') this.#reconnecting = signal.reconnecting
      else this.#restart(signal.snapshot)
      this.#changed()
    }
  }

  /** The stored thread replaces the draft: the one place it is replaced, and any pause ends with it; a failed last run is the error shown. */
  #restart(snapshot: ThreadSnapshot): void {
    // The stream hands on a stored thread only once it has loaded the chunk that read it.
    const { fromSnapshot } = storedThread.get() ?? notLoaded('storedThread')
    this.#draft = fromSnapshot(snapshot, this.#tools)
    this.#pause?.clear()
    const failed = snapshot.lastRunError
    if (failed) this.#error = new ChatError(failed.code, failed.message)
  }

  /** The run paused: approvals wait for the user, client tools start. */
  #paused(interrupts: readonly ToolInterrupt[]): void {
    // The request that brought the pause stopped any review watch (#begin); it restarts below.
    if (interrupts.length === 0) {
      this.#changed()
      return
    }
    // Loaded in `#follow` before a run's interrupts are handed on.
    const { Pause, ClientToolRuns, ReviewWatch } = pausedRun.get() ?? notLoaded('pausedRun')
    this.#pause ??= new Pause(() => this.#draft, this.#options.user)
    this.#running ??= new ClientToolRuns(this.#tools)
    for (const waiting of this.#pause.offer(interrupts)) this.#startClientTool(waiting)
    this.#changed()
    this.#reviews ??= new ReviewWatch(this.#stream, this.#options.reviewPollMs ?? 2000, this.#pause)
    this.#watchReviews()
  }

  /**
   * Approvals for reviewers are decided elsewhere: once one is, the thread is loaded (and a resumed
   * run followed). Watches while the pause has one that waits for reviewers; every request of this
   * client stops the watch (#begin, #halt), and whatever leaves the pause standing (the pause
   * itself, a refused answer, a failed request, `stop()`) starts it again. A pause is applied
   * while its request still counts as in flight; the others start it once nothing is.
   */
  #watchReviews(): void {
    const threadId = this.#threadId
    if (threadId !== undefined) this.#reviews?.watch(threadId, () => this.#threadId === threadId, () => void this.load(threadId))
  }

  #startClientTool(waiting: Waiting): void {
    const { interrupt, call, input } = waiting
    // The pause that handed out `waiting` was made together with `#running`.
    this.#track(
      this.#running!.start({ ...interrupt, input }, (answer) => {
        this.#pause!.answer(waiting, answer)
        this.#answered()
      }),
    )
    const { onToolCall } = this.#options
    if (onToolCall) callApp(() => onToolCall(this.#draft.partOf(call) as ToolCallPart<TTools>))
  }

  /** The pause recorded an answer: it goes out once nothing else is in flight. */
  #answered(): void {
    this.#error = undefined
    this.#changed()
    this.#sendAnswers()
  }

  /** Sends every queued answer in one request, once nothing else is in flight. */
  #sendAnswers(): void {
    if (this.#request || !this.#pause?.unsent || this.#threadId === undefined) return
    this.#track(this.#exchange({ threadId: this.#threadId, resume: this.#pause.take() }))
  }

  /** Asks the server to stop the run this client is reading. */
  #stopServerRun(): Promise<void> | undefined {
    return this.#request && this.#threadId !== undefined ? this.#stream.stop(this.#threadId) : undefined
  }

  /**
   * Aborts the request in flight and every running client tool; nothing is sent for them. Calls
   * left unfinished are marked stopped. Approvals not yet sent can be given again; results wait
   * for the next request.
   */
  #halt(): void {
    this.#reviews?.stop()
    this.#request?.abort()
    this.#request = undefined
    // The pause's own calls stay open, but the client tools halted here.
    const halted = this.#running?.halt()
    this.#draft.stopCalls('Stopped before it finished', this.#pause?.waitingCalls(halted) ?? new Set())
    this.#pause?.withdraw()
  }

  #begin(): AbortController {
    this.#reviews?.stop() // a request of this client ends the review watch (its pause restarts it)
    this.#stopping = undefined // what the client shows next comes from the server
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

  /** A failed request, as `error`; with `endCalls`, the calls it leaves open end with its message. */
  #fail(error: unknown, endCalls = true): void {
    const failure =
      error instanceof ChatError ? error : new ChatError('BAD_RESPONSE', error instanceof Error ? error.message : String(error), { cause: error })
    this.#error = failure
    if (endCalls) this.#draft.stopCalls(failure.message, this.#pause?.waitingCalls() ?? new Set())
    this.#changed()
    const { onError } = this.#options
    if (onError) callApp(() => onError(failure))
  }

  #status(pendingApprovals: readonly PendingApproval[]): ChatStatus {
    if (this.#reconnecting) return 'reconnecting'
    if (this.#request) return 'streaming'
    if (this.#running?.size) return 'running-tools'
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
    this.notify()
  }

  /** Counts work in flight, so the commands resolve once all of it is done; its failures land in `error`. */
  #track(work: Promise<void>): void {
    this.#work.track(work.catch((error: unknown) => this.#fail(error)))
  }
}
