import { ToolgateError } from '../errors.ts'
import { ModelProviderError } from '../model/ModelProviderError.ts'
import type { ErrorCode } from '../protocol/errors.ts'
import type { ChatConfig, ErrorScope } from './options.ts'
import type { CallRef } from './thread/results.ts'
import { isStoreError } from './stores/storeError.ts'

// How a request is refused (`HttpError`, with the refusals several steps share) and how a run ends
// in error, and what the browser may be told of each. A refusal only one step makes is written
// where that step checks for it (`new HttpError(...)`), so its words sit beside its condition.

/**
 * A refusal the handler answers with `status` and a JSON `ErrorBody`; `code` is stable. Exported
 * for stores of your own: one throws it to refuse a write with a code the browser sees (as the
 * memory store's `STORE_FULL` does); a `StoreError` is a 503 `STORE_ERROR`, anything else a 500.
 */
export class HttpError extends ToolgateError {
  declare readonly code: ErrorCode
  readonly status: number
  readonly path: string | undefined

  constructor(status: number, code: ErrorCode, message: string, path?: string) {
    super(code, message)
    this.status = status
    this.path = path
  }
}

export function threadNotFound(threadId: string): HttpError {
  return new HttpError(404, 'THREAD_NOT_FOUND', `Thread "${threadId}" does not exist`, 'threadId')
}

/** The refusal for a request that needs the thread while a run holds it. */
export function threadBusy(): HttpError {
  return new HttpError(409, 'THREAD_BUSY', 'A run is still streaming on this thread; wait for it to finish')
}

/** The refusal for a new message on a thread without room for it and a reply. */
export function threadFull(limit: string): HttpError {
  return new HttpError(409, 'THREAD_FULL', `The thread holds its limit of ${limit}; start a new thread`, 'threadId')
}

/** The refusal for one message (or answer) larger than `limits.maxMessageBytes`. */
export function messageTooLarge(bytes: number, maxMessageBytes: number, path: string): HttpError {
  return new HttpError(413, 'PAYLOAD_TOO_LARGE', `This message is ${bytes} bytes as JSON, more than the limit of ${maxMessageBytes}`, path)
}

// Errors that end a run (RUN_ERROR). Each carries the code the browser gets; `runErrorOf` picks
// the text it may see, since a provider's or a store's own words may name hosts or hint at keys.

/** The model failed. `message` keeps the provider's words for the server log; the browser gets `publicMessage`. */
export class ModelError extends ToolgateError {
  readonly publicMessage: string

  constructor(cause: unknown) {
    super('MODEL_ERROR', `The model failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.publicMessage = publicModelMessage(cause)
  }
}

/** `The model provider failed (HTTP 429, rate_limit_exceeded)`: the status and error type, never the provider's text. */
function publicModelMessage(cause: unknown): string {
  if (!(cause instanceof ModelProviderError)) return 'The model failed; see the server log'
  if (cause.code === 'PROVIDER_NETWORK_ERROR') return 'The model provider could not be reached; see the server log'
  if (cause.code === 'PROVIDER_TIMEOUT') return 'The model provider timed out; see the server log'
  const type = cause.type !== undefined && /^[\w.:-]{1,64}$/.test(cause.type) ? cause.type : undefined
  const details = [cause.status === undefined ? undefined : `HTTP ${cause.status}`, type].filter((detail) => detail !== undefined)
  return details.length > 0 ? `The model provider failed (${details.join(', ')})` : 'The model provider failed; see the server log'
}

/** The thread changed under a run: its lease lapsed and another request took the thread over. */
export class StoreConflictError extends ToolgateError {
  constructor(threadId: string) {
    super('STORE_ERROR', `Thread "${threadId}" changed while the run was writing it`)
  }
}

/** A run that would take its thread past `limits.maxThreadMessages` or `limits.maxThreadBytes`. */
export class ThreadFullError extends ToolgateError {
  constructor(limit: string) {
    super('THREAD_FULL', `The thread reached its limit of ${limit}; start a new thread`)
  }
}

/** What the browser is told of a `StoreError`, on a refused request and at the end of a run alike. */
export const STORE_UNAVAILABLE = 'The conversation store is unavailable; try again shortly'

/** What the browser is told when a run ends with `error`: a stable code and a text safe to show. */
export function runErrorOf(error: unknown): { readonly code: ErrorCode; readonly message: string } {
  if (error instanceof ModelError) return { code: 'MODEL_ERROR', message: error.publicMessage }
  if (isStoreError(error)) return { code: 'STORE_ERROR', message: STORE_UNAVAILABLE }
  if (error instanceof StoreConflictError || error instanceof ThreadFullError) return { code: error.code as ErrorCode, message: error.message }
  if (error instanceof HttpError && (error.status < 500 || error.code === 'STORE_FULL')) return { code: error.code, message: error.message }
  return { code: 'INTERNAL', message: 'The chat run failed; see the server log' }
}

/** Hands an error the browser only hears about in general terms to `onError`, or to the server log. */
export function reportError(config: Pick<ChatConfig, 'onError'>, error: unknown, scope: ErrorScope): void {
  const { onError } = config
  if (!onError) return console.error(`[toolgate] ${scope.source === 'run' ? 'chat run' : scope.source} failed:`, error, scope)
  try {
    onError(error, scope)
  } catch (hookError) {
    console.error('[toolgate] failed:', error, scope, '\nand onError threw:', hookError)
  }
}

/**
 * A tool's unexpected exception may name a password or a path: it goes to `onError` with the ids
 * that find the call, and the model and browser get `toolErrorMessage`'s text or a generic one.
 */
export function toolFailures(config: ChatConfig, threadId: string, runId: string): ToolFailures {
  return new RunToolFailures(config, threadId, runId)
}

/** `toolFailures`: one object per run and its methods shared, not two closures made for every run (most never fail). */
class RunToolFailures implements ToolFailures {
  readonly #config: ChatConfig
  readonly #threadId: string
  readonly #runId: string

  constructor(config: ChatConfig, threadId: string, runId: string) {
    this.#config = config
    this.#threadId = threadId
    this.#runId = runId
  }

  tool(error: unknown, call: CallRef): string {
    const config = this.#config
    reportError(config, error, { threadId: this.#threadId, runId: this.#runId, source: 'tool', toolCallId: call.toolCallId, toolName: call.toolName })
    let text: string | undefined
    try {
      text = config.toolErrorMessage?.(error, { toolName: call.toolName, toolCallId: call.toolCallId })
    } catch (hookError) {
      reportError(config, hookError, { threadId: this.#threadId, runId: this.#runId, source: 'tool', toolCallId: call.toolCallId, toolName: call.toolName })
    }
    return typeof text === 'string' && text.trim() !== '' ? text : `Tool "${call.toolName}" failed`
  }

  policy(error: unknown, call: CallRef): void {
    reportError(this.#config, error, { threadId: this.#threadId, runId: this.#runId, source: 'approval-policy', toolCallId: call.toolCallId, toolName: call.toolName })
  }
}

/**
 * What the run does with failures whose text may hold secrets: `tool` reports a tool's exception
 * (or a schema that threw) and returns the text the model and browser get instead; `policy`
 * reports an approval policy's exception.
 */
export interface ToolFailures {
  tool(error: unknown, call: CallRef): string
  policy(error: unknown, call: CallRef): void
}
