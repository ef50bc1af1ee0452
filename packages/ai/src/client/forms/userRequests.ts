import type { ToolContext } from '../../tools/types.ts'
import { Subscribable } from '../store/index.ts'

// Client tools that need the user (a confirmation, a picker): the tool's `execute` waits until the
// UI answers, and the UI finds what to ask by the call's id. CopilotKit calls this "render and wait
// for response"; here it is a small store any view can subscribe to.

/** What the UI answers for one call. */
export interface UserRequest<TInput, TOutput> {
  readonly toolCallId: string
  readonly input: TInput
  /** Completes the tool call with `output` (validated against the tool's output schema). */
  respond(output: TOutput): void
  /** Fails the tool call with `reason`, which the model reads. */
  decline(reason: string): void
}

export interface UserRequests<TInput, TOutput> {
  /** Hand this to `.client(...)`: it resolves when the UI responds, and gives up when the run stops. */
  readonly execute: (input: TInput, ctx: ToolContext<any>) => Promise<TOutput>
  /** The open request of a call, if it waits for the user. */
  request(toolCallId: string): UserRequest<TInput, TOutput> | undefined
  readonly subscribe: (listener: () => void) => () => void
  /** Changes whenever a request opens or closes. */
  readonly getSnapshot: () => number
}

/** A tool execution that waits for the user: `tool.client(askUser.execute)`, and the tool's renderer answers it. */
export function userRequests<TInput, TOutput>(): UserRequests<TInput, TOutput> {
  return new RequestStore<TInput, TOutput>()
}

class RequestStore<TInput, TOutput> extends Subscribable implements UserRequests<TInput, TOutput> {
  readonly #open = new Map<string, UserRequest<TInput, TOutput>>()
  #version = 0

  readonly execute = (input: TInput, { toolCallId, signal }: ToolContext<any>): Promise<TOutput> =>
    new Promise<TOutput>((resolve, reject) => {
      const close = () => {
        this.#open.delete(toolCallId)
        signal.removeEventListener('abort', onAbort)
        this.#changed()
      }
      const onAbort = () => (close(), reject(signal.reason))
      signal.addEventListener('abort', onAbort, { once: true })
      this.#open.set(toolCallId, {
        toolCallId,
        input,
        respond: (output) => (close(), resolve(output)),
        decline: (reason) => (close(), reject(new Error(reason))),
      })
      this.#changed()
    })

  readonly request = (toolCallId: string): UserRequest<TInput, TOutput> | undefined => this.#open.get(toolCallId)

  readonly getSnapshot = (): number => this.#version

  #changed(): void {
    this.#version++
    this.notify()
  }
}
