import type { GrantRequest } from '../../protocol/decisions.ts'
import type { ApprovalAnswer, ReviewAccepted, ReviewView } from '../../protocol/requests.ts'
import type { Fetch } from '../../util/Fetch.ts'
import { isRecord } from '../../util/isRecord.ts'
import type { FormApproval } from '../forms/index.ts'
import { ChatError } from '../chatError.ts'
import type { JsonSchema } from '../../schema/types.ts'
import { Subscribable } from '../store/index.ts'
import { readJson, send } from '../http/index.ts'

// A review page's state without a framework: the request a signed link opens (`GET ?review=`),
// and the reviewer's decision (`POST { review, answer }`). Its own module: a chat that never
// reviews does not carry it. The form is `ApprovalForm`, fed by `formApproval`.

export interface ReviewState {
  /**
   * `loading` the link, `ready` to decide, `submitting`, `decided`, `refused` (the link is good,
   * but whoever opened it may not decide: `error` says why, in a sentence, and `view` what it is
   * about; no form to show), or `error` (a refused link or answer says why in `error.code`).
   */
  readonly status: 'loading' | 'ready' | 'submitting' | 'decided' | 'refused' | 'error'
  readonly view: ReviewView | undefined
  /** The decision as the server recorded it, once made. */
  readonly decided: ReviewAccepted | undefined
  readonly error: ChatError | undefined
}

export interface ReviewClientOptions {
  readonly endpoint: string
  readonly token: string
  readonly fetch?: Fetch
}

/** One review link's page: the one writer of its state. */
export class ReviewClient extends Subscribable {
  readonly #options: ReviewClientOptions
  readonly #fetch: Fetch
  #state: ReviewState = { status: 'loading', view: undefined, decided: undefined, error: undefined }

  constructor(options: ReviewClientOptions) {
    super()
    this.#options = options
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  }

  readonly getSnapshot = (): ReviewState => this.#state

  /** What the form edits: the call as the link shows it, with the tool's input schema from the interrupt. */
  get formApproval(): FormApproval | undefined {
    const interrupt = this.#state.view?.interrupt
    if (!interrupt) return undefined
    const defs = isRecord(interrupt.responseSchema) ? interrupt.responseSchema.$defs : undefined
    const input = isRecord(defs) && isRecord(defs.input) ? defs.input : undefined
    const { $id: _id, ...inputSchema } = input ?? {}
    return {
      toolCallId: interrupt.toolCallId,
      toolName: interrupt.toolName,
      input: interrupt.input,
      approval: { reason: interrupt.message, ...(input ? { inputSchema: inputSchema as JsonSchema } : {}) },
    }
  }

  /** Reads what the link decides on. */
  readonly load = async (): Promise<void> => {
    const { endpoint, token } = this.#options
    const url = `${endpoint}${endpoint.includes('?') ? '&' : '?'}review=${encodeURIComponent(token)}`
    const signal = new AbortController().signal
    try {
      const response = await send(this.#fetch, url, { method: 'GET', headers: { accept: 'application/json' } }, signal)
      const view = (await readJson(response, signal)) as ReviewView
      const { refusal } = view
      this.#set(refusal ? { status: 'refused', view, error: new ChatError(refusal.code, refusal.message) } : { status: 'ready', view, error: undefined })
    } catch (error) {
      this.#fail(error)
    }
  }

  /** Approves, with edited arguments (from the form) and a grant for later calls, if given. */
  readonly approve = (options: { readonly editedArgs?: unknown; readonly grant?: GrantRequest } = {}): Promise<void> =>
    this.#decide({ approved: true, ...(options.editedArgs === undefined ? {} : { editedArgs: options.editedArgs }), ...(options.grant ? { grant: options.grant } : {}) })

  readonly deny = (reason?: string): Promise<void> => this.#decide({ approved: false, ...(reason ? { reason } : {}) })

  async #decide(answer: Omit<ApprovalAnswer, 'interruptId'>): Promise<void> {
    const view = this.#state.view
    if (!view || this.#state.status !== 'ready') return
    this.#set({ status: 'submitting' })
    const signal = new AbortController().signal
    const body = { review: this.#options.token, threadId: view.threadId, answer: { interruptId: view.interrupt.id, ...answer } }
    try {
      const response = await send(
        this.#fetch,
        this.#options.endpoint,
        { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) },
        signal,
      )
      this.#set({ status: 'decided', decided: (await readJson(response, signal)) as ReviewAccepted })
    } catch (error) {
      this.#fail(error)
    }
  }

  #fail(error: unknown): void {
    this.#set({ status: 'error', error: error instanceof ChatError ? error : new ChatError('BAD_RESPONSE', String(error), { cause: error }) })
  }

  #set(changes: Partial<ReviewState>): void {
    this.#state = { ...this.#state, ...changes }
    this.notify()
  }
}
