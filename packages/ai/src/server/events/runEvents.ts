import type { AgUiMessage, RunEvent, RunFinishedEvent, SubagentErrorCode, SubagentOutcome, SubagentStartedEvent, TokenUsage, ToolCallStartEvent, ToolResultMetadata } from '../../protocol/events.ts'
import type { AgUiInterrupt, AgUiRunOutcome, RunOutcome, ToolInterrupt } from '../../protocol/interrupts.ts'
import type { ThreadToolMessage } from '../../protocol/messages.ts'
import type { ErrorCode } from '../../protocol/errors.ts'
import { jsonString } from '../../util/jsonString.ts'
import { randomId } from '../../util/randomId.ts'
import { mcpAppActivity } from './mcpAppActivity.ts'

/** Where a run's events go, each with its sequence number in the run (1, 2, ...), and its JSON when it was made with it (a delta's). */
export type EventSink = (event: RunEvent, seq: number, json?: string) => void

/**
 * The event stream of one run, and its only writer: every AG-UI event of a run is made here, in
 * an order AG-UI accepts. A text or reasoning message is always closed before anything else
 * starts, each tool call is closed once, and the run ends with exactly one RUN_FINISHED or RUN_ERROR.
 */
export class RunEvents {
  readonly threadId: string
  readonly runId: string
  readonly #sink: EventSink
  /** The run's ids as JSON strings, quoted once: its first and last events carry both. */
  readonly #threadJson: string
  readonly #runJson: string
  #seq = 0
  #ended = false
  #snapshot = false
  /** The assistant message of the model step under way: its first text segment takes its id. */
  #step: { readonly messageId: string; segments: number } | undefined
  /** The text message open for deltas, if any, and its id as a JSON string (each delta's frame carries it). */
  #text: string | undefined
  #textJson = ''
  /** The reasoning message open for deltas, if any. */
  #reasoning: string | undefined
  /** The calls open for argument deltas, each with its id as a JSON string: quoted once, not once per delta. */
  readonly #openCalls = new Map<string, string>()
  /** Calls this run started and did not answer: AG-UI 1.0 clients derive `pendingToolCallIds` from them. */
  readonly #unansweredCalls = new Set<string>()
  readonly #timestamps: boolean
  /** Tools with an MCP App, by name (absent when none has): their results are followed by the app's activity. */
  readonly #apps: ReadonlyMap<string, string> | undefined
  /** The arguments of this run's calls of those tools, as streamed, for the activity's `toolInput`. */
  #appArgs: Map<string, string> | undefined

  /** `timestamps`: each event carries AG-UI's `timestamp` (ms since the epoch), for the devtools' timeline. `apps`: `appUris(tools)`. */
  constructor(threadId: string, runId: string, sink: EventSink, options: { readonly timestamps?: boolean; readonly apps?: ReadonlyMap<string, string> | undefined } = {}) {
    this.threadId = threadId
    this.runId = runId
    this.#sink = sink
    this.#threadJson = jsonString(threadId)
    this.#runJson = jsonString(runId)
    this.#timestamps = options.timestamps === true
    this.#apps = options.apps
  }

  started(): void {
    this.#emit({ type: 'RUN_STARTED', threadId: this.threadId, runId: this.runId }, `{"type":"RUN_STARTED","threadId":${this.#threadJson},"runId":${this.#runJson}}`)
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
      this.#textJson = jsonString(messageId)
      this.#emit({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' }, `{"type":"TEXT_MESSAGE_START","messageId":${this.#textJson},"role":"assistant"}`)
    }
    const messageId = this.#text
    this.#emit({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta }, `{"type":"TEXT_MESSAGE_CONTENT","messageId":${this.#textJson},"delta":${JSON.stringify(delta)}}`)
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
    const messageId = this.#reasoning
    this.#emit({ type: 'REASONING_MESSAGE_CONTENT', messageId, delta }, `{"type":"REASONING_MESSAGE_CONTENT","messageId":${jsonString(messageId)},"delta":${JSON.stringify(delta)}}`)
  }

  toolCallStart(toolCallId: string, toolCallName: string): void {
    this.#closeMessages()
    const idJson = jsonString(toolCallId)
    this.#openCalls.set(toolCallId, idJson)
    this.#unansweredCalls.add(toolCallId)
    const parent = this.#step?.messageId
    // The optional key set in place, not spread from a conditional literal (so in `finished`).
    const event: { -readonly [K in keyof ToolCallStartEvent]: ToolCallStartEvent[K] } = { type: 'TOOL_CALL_START', toolCallId, toolCallName }
    let json = `{"type":"TOOL_CALL_START","toolCallId":${idJson},"toolCallName":${jsonString(toolCallName)}`
    if (parent !== undefined) {
      event.parentMessageId = parent
      json += `,"parentMessageId":${jsonString(parent)}`
    }
    if (this.#apps?.has(toolCallName)) (this.#appArgs ??= new Map()).set(toolCallId, '')
    this.#emit(event, `${json}}`)
  }

  toolCallArgs(toolCallId: string, delta: string): void {
    const idJson = this.#openCalls.get(toolCallId)
    if (delta === '' || idJson === undefined) return
    const args = this.#appArgs?.get(toolCallId)
    if (args !== undefined) this.#appArgs!.set(toolCallId, args + delta)
    this.#emit({ type: 'TOOL_CALL_ARGS', toolCallId, delta }, `{"type":"TOOL_CALL_ARGS","toolCallId":${idJson},"delta":${JSON.stringify(delta)}}`)
  }

  toolCallEnd(toolCallId: string): void {
    const idJson = this.#openCalls.get(toolCallId)
    if (idJson === undefined) return
    this.#openCalls.delete(toolCallId)
    this.#emit({ type: 'TOOL_CALL_END', toolCallId }, `{"type":"TOOL_CALL_END","toolCallId":${idJson}}`)
  }

  /** Ends whatever the model left open: the step is over. */
  stepEnded(): void {
    this.#closeMessages()
    // Copied only when a call is open: every step start and end comes here.
    if (this.#openCalls.size > 0) for (const toolCallId of [...this.#openCalls.keys()]) this.toolCallEnd(toolCallId)
  }

  /**
   * A subagent begins (`SUBAGENT_STARTED`): its own steps are told through the events returned,
   * each carrying its `subagentRunId` (a deeper one's keep their own), in this run's one sequence.
   */
  subagent(started: Omit<SubagentStartedEvent, 'type'>): RunEvents {
    this.stepEnded()
    this.#emit({ type: 'SUBAGENT_STARTED', ...started })
    const { subagentRunId } = started
    // Attribution is added once, by the events of the subagent that made the event.
    return new RunEvents(this.threadId, this.runId, (event) => this.#emit('subagentRunId' in event ? event : ({ ...event, subagentRunId } as RunEvent)))
  }

  /** The subagent's segment of the run ends: it answered (`result`), or it waits on interrupts (`suspended`). */
  subagentFinished(subagentRunId: string, outcome: SubagentOutcome, result?: unknown): void {
    this.#emit({ type: 'SUBAGENT_FINISHED', subagentRunId, outcome, ...(result === undefined ? {} : { result }) })
  }

  /** The subagent failed; the run goes on (its parent reads the failure as the call's error). */
  subagentFailed(subagentRunId: string, code: SubagentErrorCode, message: string): void {
    this.#emit({ type: 'SUBAGENT_ERROR', subagentRunId, code, message })
  }

  result(result: ThreadToolMessage): void {
    const { id: messageId, toolCallId, content } = result
    this.#unansweredCalls.delete(toolCallId)
    const metadata = resultMetadata(result)
    this.#emit(
      { type: 'TOOL_CALL_RESULT', messageId, toolCallId, content, role: 'tool', metadata },
      `{"type":"TOOL_CALL_RESULT","messageId":${jsonString(messageId)},"toolCallId":${jsonString(toolCallId)},"content":${JSON.stringify(content)},"role":"tool","metadata":${JSON.stringify(metadata)}}`,
    )
    const uri = this.#apps?.get(result.toolName)
    if (uri !== undefined) this.#emit(mcpAppActivity(result, uri, this.#appArgs?.get(toolCallId)))
  }

  /** The stored thread, for an AG-UI client that was behind it; only right after `started`. */
  messagesSnapshot(messages: readonly AgUiMessage[]): void {
    this.#snapshot = true
    this.#emit({ type: 'MESSAGES_SNAPSHOT', messages })
  }

  /** The client was sent the stored thread: results already in it are not sent again, and none it lacks are held back. */
  get snapshotSent(): boolean {
    return this.#snapshot
  }

  finished(outcome: RunOutcome, usage?: TokenUsage): void {
    this.stepEnded()
    const told = toAgUi(outcome, this.#unansweredCalls)
    const event: { -readonly [K in keyof RunFinishedEvent]: RunFinishedEvent[K] } = { type: 'RUN_FINISHED', threadId: this.threadId, runId: this.runId, outcome: told }
    let json = `{"type":"RUN_FINISHED","threadId":${this.#threadJson},"runId":${this.#runJson},"outcome":${JSON.stringify(told)}`
    if (usage) {
      event.usage = [usage]
      json += `,"usage":[${JSON.stringify(usage)}]`
    }
    this.#emit(event, `${json}}`)
    this.#ended = true
  }

  /** The RUN_FINISHED just made was held back for the release that failed (liveStream.ts): never told, so the run may fail instead. */
  unfinished(): void {
    this.#seq -= 1
    this.#ended = false
  }

  /**
   * A reader's stream ends: the run it follows stopped without its last event (its process died)
   * and nothing continues it.
   */
  lost(message = 'The run stopped without finishing; reload the thread'): void {
    this.failed('RUN_LOST', message)
  }

  failed(code: ErrorCode, message: string): void {
    this.stepEnded()
    this.#emit({ type: 'RUN_ERROR', code, message })
    this.#ended = true
  }

  #closeText(): void {
    if (this.#text !== undefined) this.#emit({ type: 'TEXT_MESSAGE_END', messageId: this.#text }, `{"type":"TEXT_MESSAGE_END","messageId":${this.#textJson}}`)
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

  /**
   * `json`: the event's JSON, written out key for key as `JSON.stringify` would write the object,
   * for the events every turn makes (a delta's, a call's, a result's, the run's start and end).
   * Stringifying the object takes V8's general path (an eighth of the instructions of a turn
   * streaming text); its strings take the fast one, or none (`jsonString`), at a third of the cost.
   * Dropped when a timestamp joins the event.
   */
  #emit(event: RunEvent, json?: string): void {
    if (this.#ended) return
    if (this.#timestamps) this.#sink(Object.assign({}, event, { timestamp: Date.now() }), ++this.#seq)
    else this.#sink(event, ++this.#seq, json)
  }
}

/** Toolgate's extensions of a result, in AG-UI's `metadata` (`TOOL_CALL_RESULT`, a snapshot's tool message). */
export function resultMetadata({ status, output, reason, edited, attachments, decision }: ThreadToolMessage): ToolResultMetadata {
  // Set key by key, not spread from conditional literals: one object per result instead of six.
  const metadata: { -readonly [K in keyof ToolResultMetadata]: ToolResultMetadata[K] } = { status }
  if (status === 'success') metadata.output = output
  if (reason !== undefined) metadata.reason = reason
  if (edited) metadata.edited = edited
  if (attachments) metadata.attachments = attachments
  if (decision) metadata.decision = decision
  return metadata
}

/** AG-UI 1.0 keeps only its own keys at the top of an interrupt: the tool's name and input stay in `metadata`. */
/**
 * `pendingToolCallIds` is optional in AG-UI 1.0: a client takes the calls the run started and left
 * unanswered. It is sent only when it says more than that (calls a previous run started), because
 * AG-UI clients before 1.0 (CopilotKit 1.74 bundles 0.0.59) refuse a `success` outcome carrying it.
 */
function toAgUi(outcome: RunOutcome, unansweredCalls: ReadonlySet<string>): AgUiRunOutcome {
  if (outcome.type === 'success' && outcome.pendingToolCallIds) {
    const pending = outcome.pendingToolCallIds
    const derivable = pending.length === unansweredCalls.size && pending.every((id) => unansweredCalls.has(id))
    return derivable ? { type: 'success' } : outcome
  }
  if (outcome.type !== 'interrupt') return outcome
  return { type: 'interrupt', interrupts: outcome.interrupts.map(agUiInterrupt) }
}

function agUiInterrupt({ toolName: _toolName, input: _input, path: _path, delegation: _delegation, ...interrupt }: ToolInterrupt): AgUiInterrupt {
  return interrupt
}
