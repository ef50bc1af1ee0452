import { InvalidOptionError } from '../errors.ts'
import type { GrantRequest } from '../protocol/decisions.ts'
import type { AnyTool } from '../tools/types.ts'
import type { Fetch } from '../util/Fetch.ts'
import { isRecord } from '../util/isRecord.ts'
import type { ChatError } from './chatError.ts'
import type { ToolCallPart } from './draft/index.ts'
import type { NotifyScheduler } from './store/index.ts'

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
  /**
   * While approvals wait for reviewers other than this user, the client waits on the thread
   * (`GET ?watch`, answered by the server as soon as it changes) for their decision, then follows
   * the resumed run. After an ask that failed it waits this long before the next (a server too old
   * to watch is looked at this often). Default 2000 ms.
   */
  readonly reviewPollMs?: number
  /**
   * Who this page is signed in as: the principal the server's `identify` names for its requests.
   * Used only for words: an approval waiting for reviewers says `waitingFor: 'you'` when this user
   * may decide it, and names the reviewers otherwise. The server still decides who may answer.
   */
  readonly user?: { readonly id: string; readonly roles?: readonly string[] } | undefined
}

export interface ApproveOptions {
  /** Replaces the call's arguments; the server validates them against the tool's input schema. */
  readonly editedArgs?: unknown
  /** Allow the tool for the rest of the conversation (when `approval.grantable`): `{}`, or `{ ttlMs }`, `{ sameArguments: true }`. */
  readonly grant?: GrantRequest
}

const WHERE = 'createChatClient()'

/** Checked when the client is made, so a typo fails there with an `InvalidOptionError` naming the option, not at the first message. */
export function checkOptions(options: ChatClientOptions<readonly AnyTool[]>): void {
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
  if (options.user !== undefined && !(isRecord(options.user) && typeof options.user.id === 'string' && options.user.id !== '')) {
    throw new InvalidOptionError(WHERE, 'user', 'must be `{ id, roles? }` with a non-empty id when given')
  }
  for (const key of ['fetch', 'onError', 'onToolCall', 'scheduleNotify'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function') throw new InvalidOptionError(WHERE, key, 'must be a function')
  }
}

/** Runs an app callback; what it throws is reported like an event listener's error, not taken as the client's. */
export function callApp(callback: () => void): void {
  try {
    callback()
  } catch (error) {
    queueMicrotask(() => {
      throw error
    })
  }
}
