export interface ChatLimits {
  /** Largest request body accepted; larger ones get 413. Default 1 MB. */
  readonly maxBodyBytes?: number
  /** Deny reasons and client error texts are cut to this many characters. Default 500. */
  readonly maxReasonLength?: number
  /** A server tool that runs longer is aborted and the model told so. Default 30 s. */
  readonly toolTimeoutMs?: number
  /**
   * How long a run may hold its thread without writing it (it writes after each round of tool
   * calls). Only matters when a process died mid-run: after this, the thread takes new messages
   * again. Default 10 minutes.
   */
  readonly runLeaseMs?: number
  /**
   * Messages a thread may hold (user, assistant and tool messages). A new message needs room for
   * itself, the results of interrupts it supersedes and a reply; without it the request is refused
   * (409 `THREAD_FULL`) and nothing changes. A model step that would not fit with a result for each
   * of its calls ends the run with RUN_ERROR `THREAD_FULL` and is not stored. Default 500.
   */
  readonly maxThreadMessages?: number
}

export type ResolvedLimits = Required<ChatLimits>

export function resolveLimits(limits: ChatLimits = {}): ResolvedLimits {
  const maxThreadMessages = limits.maxThreadMessages ?? 500
  // A message and its reply: fewer, and no thread could ever be answered.
  if (!Number.isInteger(maxThreadMessages) || maxThreadMessages < 2) throw new TypeError('`limits.maxThreadMessages` must be an integer of at least 2')
  return {
    maxThreadMessages,
    maxBodyBytes: limits.maxBodyBytes ?? 1024 * 1024,
    maxReasonLength: limits.maxReasonLength ?? 500,
    toolTimeoutMs: limits.toolTimeoutMs ?? 30_000,
    runLeaseMs: limits.runLeaseMs ?? 10 * 60_000,
  }
}

/** Cuts user-supplied text the model will read, so one answer cannot flood the context. */
export function capText(text: string, maxLength: number): string {
  const chars = [...text]
  return chars.length <= maxLength ? text : `${chars.slice(0, maxLength).join('')}…`
}
