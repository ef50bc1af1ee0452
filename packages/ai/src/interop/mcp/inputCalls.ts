import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { ToolError } from '../../errors.ts'
import type { JsonSchema } from '../../schema/types.ts'
import { inputAnswerOf, ToolInputRequired, type ToolInputAnswer } from '../../tools/inputRequest.ts'
import type { ToolContext } from '../../tools/types.ts'
import { isRecord } from '../../util/isRecord.ts'
import { randomId } from '../../util/randomId.ts'
import { isInputRequired, type CallOutcome, type McpConnection } from './connection.ts'

// An imported tool's call that needs a person's input becomes a Toolgate interrupt (the tool throws
// `ToolInputRequired`; server/run/inputInterrupts.ts stores it with the thread), answered as the
// server's protocol expects:
//
// - 2026-07-28 (`input_required`): stateless. The request's key and the server's `requestState`
//   are stored with the interrupt; the answer retries the call with `inputResponses` and that
//   state, from whichever instance runs the resumed turn, however much later.
// - 2025 (`elicitation/create` during the call): the request lives inside the live call, in this
//   process. The answer goes back through it while it is still there; after a restart, on another
//   instance, or past `elicitationTimeoutMs`, it is not, and the call ends with an error saying so.

/** What the stored interrupt keeps for the call to go on (never sent to a browser). */
type InputState =
  | { readonly era: 'modern'; readonly key: string; readonly requestState?: string }
  | { readonly era: 'legacy'; readonly session: string; readonly process: string }

/** Calls one imported tool, pausing for input when the server asks for it. */
export type ImportedCall = (params: Record<string, unknown>, ctx: ToolContext<unknown>) => Promise<CallOutcome>

export function inputCalls(connection: McpConnection, toolName: string, live: LiveCalls): ImportedCall {
  return async (params, ctx) => {
    const answer = inputAnswerOf(ctx)
    const state = answer?.state as InputState | undefined
    if (state?.era === 'legacy') return live.resume(toolName, answer!, state, ctx.signal)
    if (state?.era === 'modern' && !connection.modern) {
      throw new ToolError(`The MCP server asked for input to tool "${toolName}" at 2026-07-28 and now speaks the 2025 protocol, which cannot take the answer; the call did not complete`)
    }
    if (!connection.modern) return live.start(toolName, (signal) => connection.callTool(params, signal, live.callTimeoutMs), ctx.signal)
    const retry = state?.era === 'modern' ? { inputResponses: { [state.key]: elicitResult(answer!) }, ...(state.requestState === undefined ? {} : { requestState: state.requestState }) } : {}
    let result: CallOutcome
    try {
      result = await connection.callTool({ ...params, ...retry }, ctx.signal)
    } catch (error) {
      // -32021: the server would ask the person, but the client did not say it can show a form.
      if (isRecord(error) && error.code === -32021) {
        throw new ToolError(`The MCP server needs a person's input for tool "${toolName}", and its client did not declare it can ask: create the Client with \`capabilities: { elicitation: { form: {} } }\``, { cause: error })
      }
      if (!answer) throw error
      // Told to the model (a ToolError's message is), never a silent success. A JSON-RPC error is the
      // server's refusal (most likely it no longer knows the request); anything else left the answer
      // on its way, and the server may have acted on it.
      const why = error instanceof Error ? error.message : String(error)
      if (isRecord(error) && typeof error.code === 'number') throw new ToolError(`The MCP server refused the answer to its request for input (${why}); the call did not complete`, { cause: error })
      throw new ToolError(`The answer to the MCP server's request for input was sent, but no result came back (${why}); the call may have taken effect`, { cause: error })
    }
    if (isInputRequired(result)) throw modernRequest(toolName, result.inputRequests, result.requestState)
    return result
  }
}

/** The answer as MCP elicitation's result. */
function elicitResult(answer: ToolInputAnswer): ElicitResult {
  return answer.action === 'accept' ? { action: 'accept', content: (answer.content ?? {}) as ElicitResult['content'] } : { action: answer.action }
}

/** One form elicitation becomes the interrupt; anything Toolgate cannot ask a person fails the call, saying what. */
function modernRequest(toolName: string, requests: Record<string, { readonly method: string; readonly params?: Record<string, unknown> }> | undefined, requestState: string | undefined): ToolError | ToolInputRequired {
  const entries = Object.entries(requests ?? {})
  if (entries.length !== 1) {
    const what = entries.length === 0 ? 'only to be called again with its state' : `${entries.length} answers at once (${entries.map(([, request]) => request.method).join(', ')})`
    return new ToolError(`The MCP server asked for ${what} before tool "${toolName}" can finish; the import answers one form at a time, so the call did not complete`)
  }
  const [key, request] = entries[0]!
  const form = formOf(request.method, request.params)
  if (typeof form === 'string') return new ToolError(`The MCP server asked for ${form} before tool "${toolName}" can finish, which the import cannot ask a person for; the call did not complete`)
  return new ToolInputRequired({ ...form, state: { era: 'modern', key, ...(requestState === undefined ? {} : { requestState }) } satisfies InputState })
}

/** A form-mode elicitation's message and schema, or what else was asked (in words). */
function formOf(method: string, params: Record<string, unknown> | undefined): { message: string; schema: JsonSchema } | string {
  if (method !== 'elicitation/create') return `\`${method}\``
  if (params?.mode === 'url') return 'a visit to a URL (URL-mode elicitation)'
  if (!isRecord(params?.requestedSchema) || typeof params.message !== 'string') return 'a form without a schema'
  return { message: params.message, schema: params.requestedSchema as JsonSchema }
}

/** A 2025 call in flight, and the elicitation it waits on once paused. */
interface LiveCall {
  readonly result: Promise<CallOutcome>
  readonly controller: AbortController
  /** Set while the call waits for a person: answers the server's `elicitation/create`. */
  respond?: ((result: ElicitResult) => void) | undefined
  /** Set while a turn waits on the call: told when the server asks. */
  onAsk?: ((params: Record<string, unknown>) => void) | undefined
  timer?: ReturnType<typeof setTimeout>
}

/**
 * The 2025 calls of one client: which is in flight, which waits for a person. The server's
 * `elicitation/create` names no call, so it goes to the one call in flight that is not already
 * waiting; with several, none can be told apart and the request is cancelled (one client per
 * concurrent call, or a 2026-07-28 server, avoids that).
 */
export class LiveCalls {
  readonly #flying = new Set<LiveCall>()
  readonly #paused = new Map<string, LiveCall>()
  readonly #timeoutMs: number
  /** These calls' holder (one import, in one process), so an answer arriving elsewhere is told apart from one that ran out. */
  readonly #holder = randomId('mcpi_')

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs
  }

  /** The call's own request timeout: as long as a person may take, and the SDK's minute more. */
  get callTimeoutMs(): number {
    return this.#timeoutMs + 60_000
  }

  /** The client's `elicitation/create` handler. */
  readonly elicit = (params: Record<string, unknown>): Promise<ElicitResult> => {
    const candidates = [...this.#flying].filter((call) => !call.respond && call.onAsk)
    if (candidates.length !== 1 || params.mode === 'url') return Promise.resolve({ action: 'cancel' })
    const call = candidates[0]!
    return new Promise((resolve) => {
      call.respond = resolve
      call.onAsk!(params)
    })
  }

  async start(toolName: string, send: (signal: AbortSignal) => Promise<CallOutcome>, signal: AbortSignal): Promise<CallOutcome> {
    const controller = new AbortController()
    const result = send(controller.signal)
    const call: LiveCall = { result, controller }
    this.#flying.add(call)
    // Settled whether or not a turn still waits on it: a call that ends while paused is not an unhandled rejection.
    result.then(
      () => this.#flying.delete(call),
      () => this.#flying.delete(call),
    )
    return this.#next(toolName, call, signal)
  }

  async resume(toolName: string, answer: ToolInputAnswer, state: Extract<InputState, { era: 'legacy' }>, signal: AbortSignal): Promise<CallOutcome> {
    const call = this.#paused.get(state.session)
    if (!call?.respond) {
      const where =
        state.process === this.#holder
          ? `it waited longer than ${this.#timeoutMs} ms (elicitationTimeoutMs), so it was cancelled`
          : 'it lived in another server process (this one restarted, or another instance holds it) or another import of the server'
      throw new ToolError(
        `Tool "${toolName}" asked for input during its call (an MCP server on the 2025 protocol, by elicitation/create), and that call can no longer take the answer: ${where}. The call did not complete here.`,
      )
    }
    this.#paused.delete(state.session)
    clearTimeout(call.timer)
    const respond = call.respond
    call.respond = undefined
    respond(elicitResult(answer))
    return this.#next(toolName, call, signal)
  }

  /** The call's result, or, when the server asks first, the pause (the call stays live, in this process). */
  async #next(toolName: string, call: LiveCall, signal: AbortSignal): Promise<CallOutcome> {
    const asked = new Promise<Record<string, unknown>>((resolve) => (call.onAsk = resolve))
    // The turn's stop (or the tool's timeout) ends the call while a turn waits on it; once paused, nothing does but the answer or the timeout.
    const stop = () => call.controller.abort(signal.reason)
    if (signal.aborted) stop()
    else signal.addEventListener('abort', stop, { once: true })
    try {
      const first = await Promise.race([call.result.then((result) => ({ result })), asked.then((params) => ({ params }))])
      if ('result' in first) return first.result
      const session = randomId('mcps_')
      this.#paused.set(session, call)
      call.timer = setTimeout(() => this.#expire(session), this.#timeoutMs)
      const form = formOf('elicitation/create', first.params)
      if (typeof form === 'string') {
        this.#expire(session)
        throw new ToolError(`The MCP server asked for ${form} during tool "${toolName}", which the import cannot ask a person for`)
      }
      throw new ToolInputRequired({ ...form, state: { era: 'legacy', session, process: this.#holder } satisfies InputState })
    } finally {
      call.onAsk = undefined
      signal.removeEventListener('abort', stop)
    }
  }

  /** No answer in time: the server is told `cancel`, and a later answer is refused. */
  #expire(session: string): void {
    const call = this.#paused.get(session)
    this.#paused.delete(session)
    if (!call?.respond) return
    clearTimeout(call.timer)
    const respond = call.respond
    call.respond = undefined
    respond({ action: 'cancel' })
  }
}
