import type { ToolContext } from '../tools/types.ts'

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
  const open = new Map<string, UserRequest<TInput, TOutput>>()
  const listeners = new Set<() => void>()
  let version = 0
  const changed = () => {
    version++
    for (const listener of [...listeners]) listener()
  }
  return {
    execute: (input, { toolCallId, signal }) =>
      new Promise<TOutput>((resolve, reject) => {
        const close = () => {
          open.delete(toolCallId)
          signal.removeEventListener('abort', onAbort)
          changed()
        }
        const onAbort = () => (close(), reject(signal.reason))
        signal.addEventListener('abort', onAbort, { once: true })
        open.set(toolCallId, {
          toolCallId,
          input,
          respond: (output) => (close(), resolve(output)),
          decline: (reason) => (close(), reject(new Error(reason))),
        })
        changed()
      }),
    request: (toolCallId) => open.get(toolCallId),
    subscribe: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
    getSnapshot: () => version,
  }
}
