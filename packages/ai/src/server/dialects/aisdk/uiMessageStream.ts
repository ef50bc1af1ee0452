import type { RunEvent } from '../../../protocol/events.ts'
import type { ThreadAttachment } from '../../../protocol/messages.ts'
import type { AgUiInterrupt } from '../../../protocol/interrupts.ts'
import { isRecord } from '../../../util/isRecord.ts'
import { readSseData } from '../../../util/readSseData.ts'
import { attachmentUrl } from './attachmentUrl.ts'
import type { AiSdkPartMetadata } from '../../../protocol/aiSdk.ts'
import { approvalMetadata, type UIMessageChunk } from './uiMessageChunks.ts'
import { afterTurnEnd } from '../../../util/turnBatch.ts'
import type { EventFrames } from '../../events/eventFrames.ts'
import { heldOutputChunks, type GivenOutput } from './heldOutputs.ts'

// A run's AG-UI events, told again in the AI SDK's UI message stream protocol. The run itself is
// unchanged (its events still go to its log, and it outlives the request); only what this response
// says differs.

/** The headers `DefaultChatTransport` looks for (`x-vercel-ai-ui-message-stream: v1`). */
export const UI_MESSAGE_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
}

export interface UIMessageStreamOptions {
  /** Whether the server runs tool `name` (its calls are `providerExecuted`, so `onToolCall` skips them). */
  readonly isServerTool: (name: string) => boolean
  /**
   * Calls of the message the stream continues (after approvals or browser outputs). Results of
   * other calls the run announces (calls a new message superseded) belong to an earlier message,
   * which the AI SDK cannot update: they are left out, and a reload shows them.
   */
  readonly knownCalls: ReadonlyMap<string, string | undefined>
  /** Where stored attachments are served: the endpoint's URL path. */
  readonly endpoint: string
  /** Browser outputs the request gave: told back as held when the run ends with their step still waiting (heldOutputs.ts). */
  readonly givenOutputs?: readonly GivenOutput[]
}

/**
 * A run's events told as UI message chunks, one event at a time: the frames a live run writes for
 * an AI SDK request (events/eventFrames.ts), and what `uiMessageStreamResponse` writes for a body.
 */
export function uiMessageFrames(options: UIMessageStreamOptions): EventFrames {
  let frames = ''
  const translator = new UIMessageStreamWriter(options, (chunk) => {
    frames += `data: ${JSON.stringify(chunk)}\n\n`
  })
  return {
    headers: UI_MESSAGE_STREAM_HEADERS,
    frame: (event) => {
      translator.write(event)
      const told = frames
      frames = ''
      return told
    },
    end: 'data: [DONE]\n\n',
  }
}

/**
 * The UI message stream response for the AG-UI event stream `events` (a run's `text/event-stream`
 * body, as a reattaching GET reads it). Chunks made in one turn of the event loop go out together,
 * as the run's own frames do (util/turnBatch.ts).
 */
export function uiMessageStreamResponse(events: ReadableStream<Uint8Array>, options: UIMessageStreamOptions): Response {
  const encoder = new TextEncoder()
  const abort = new AbortController()
  let pending = ''
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const flush = () => {
    if (pending !== '' && !abort.signal.aborted) controller.enqueue(encoder.encode(pending))
    pending = ''
  }
  const write = (frame: string) => {
    if (frame === '') return
    if (pending === '') afterTurnEnd(flush)
    pending += frame
  }
  const body = new ReadableStream<Uint8Array>({
    async start(streamController) {
      controller = streamController
      const frames = uiMessageFrames(options)
      try {
        for await (const [data] of readSseData(events, abort.signal, { flushAtEnd: false })) write(frames.frame(JSON.parse(data) as RunEvent, data, '', 0))
        write(frames.end)
      } catch (error) {
        // The run goes on and is logged; only this response broke off.
        if (!abort.signal.aborted) console.error('[toolgate] translating a run for the AI SDK failed:', error)
      }
      flush()
      try {
        controller.close()
      } catch {
        // the reader left
      }
    },
    cancel() {
      // Detaches from the run; it goes on, as for any client that leaves.
      abort.abort()
    },
  })
  return new Response(body, { status: 200, headers: UI_MESSAGE_STREAM_HEADERS })
}

interface Call {
  readonly toolName: string
  readonly server: boolean
  readonly messageId: string | undefined
  /** A subagent's call: shown, never taken for one of the thread's stored messages. */
  readonly subagentRunId: string | undefined
  args: string
}

/** Turns AG-UI events into UI message chunks, one event at a time. */
export class UIMessageStreamWriter {
  readonly #options: UIMessageStreamOptions
  readonly #emit: (chunk: UIMessageChunk) => void
  #threadId = ''
  /** The model step under way: the AI SDK's `start-step`, and the stored message it becomes. */
  #step: { messageId: string | undefined; subagent?: true } | undefined
  readonly #calls = new Map<string, Call>()
  /** Calls the client's message holds, with the stored message each belongs to. */
  readonly #known: Map<string, string | undefined>

  constructor(options: UIMessageStreamOptions, emit: (chunk: UIMessageChunk) => void) {
    this.#options = options
    this.#emit = emit
    this.#known = new Map(options.knownCalls)
  }

  write(event: RunEvent): void {
    // The AI SDK knows no subagents: a subagent's text and reasoning are its own (its answer reaches
    // the chat as its agent call's output); its calls show, so an inner approval is a plain one.
    if ('subagentRunId' in event && event.subagentRunId !== undefined) {
      if (!event.type.startsWith('TOOL_CALL')) return
      // Its calls are a step of their own: the agent's call still runs, and an approval of an inner
      // call is the last step's, which the AI SDK's `lastAssistantMessageIsCompleteWithApprovalResponses` reads.
      if (event.type === 'TOOL_CALL_START' && !this.#step?.subagent) {
        this.#closeStep()
        this.#openStep().subagent = true
      }
    }
    switch (event.type) {
      case 'RUN_STARTED':
        this.#threadId = event.threadId
        return this.#emit({ type: 'start' })
      case 'TEXT_MESSAGE_START': {
        // The step's first text carries the stored message's id; later ones (after a call) do not.
        const step = this.#openStep()
        step.messageId ??= event.messageId
        return this.#emit({ type: 'text-start', id: event.messageId, providerMetadata: stepMetadata(step.messageId) })
      }
      case 'TEXT_MESSAGE_CONTENT':
        return this.#emit({ type: 'text-delta', id: event.messageId, delta: event.delta })
      case 'TEXT_MESSAGE_END':
        return this.#emit({ type: 'text-end', id: event.messageId })
      case 'REASONING_MESSAGE_START':
        this.#openStep()
        return this.#emit({ type: 'reasoning-start', id: event.messageId })
      case 'REASONING_MESSAGE_CONTENT':
        return this.#emit({ type: 'reasoning-delta', id: event.messageId, delta: event.delta })
      case 'REASONING_MESSAGE_END':
        return this.#emit({ type: 'reasoning-end', id: event.messageId })
      case 'TOOL_CALL_START': {
        const step = this.#openStep()
        const { subagentRunId } = event
        // A subagent's calls are the server's (its tools run there, whatever their side in the run's registry).
        const server = subagentRunId !== undefined || this.#options.isServerTool(event.toolCallName)
        if (subagentRunId === undefined) step.messageId ??= event.parentMessageId
        const messageId = subagentRunId === undefined ? step.messageId : undefined
        this.#calls.set(event.toolCallId, { toolName: event.toolCallName, server, messageId, subagentRunId, args: '' })
        this.#known.set(event.toolCallId, messageId)
        return this.#emit({
          type: 'tool-input-start',
          toolCallId: event.toolCallId,
          toolName: event.toolCallName,
          ...(server ? { providerExecuted: true } : {}),
          providerMetadata: stepMetadata(messageId, subagentRunId),
        })
      }
      case 'TOOL_CALL_ARGS': {
        const call = this.#calls.get(event.toolCallId)
        if (call) call.args += event.delta
        return this.#emit({ type: 'tool-input-delta', toolCallId: event.toolCallId, inputTextDelta: event.delta })
      }
      case 'TOOL_CALL_END': {
        // A browser tool's input becomes "available" (which runs the app's `onToolCall`) only once
        // the server hands the call over: it may first wait for approval.
        const call = this.#calls.get(event.toolCallId)
        if (!call?.server) return
        return this.#emit({
          type: 'tool-input-available',
          toolCallId: event.toolCallId,
          toolName: call.toolName,
          input: parseArguments(call.args),
          providerExecuted: true,
          providerMetadata: stepMetadata(call.messageId, call.subagentRunId),
        })
      }
      case 'TOOL_CALL_RESULT':
        this.#closeStep()
        return this.#result(event)
      case 'RUN_FINISHED':
        this.#closeStep()
        if (event.outcome?.type === 'interrupt') {
          for (const interrupt of event.outcome.interrupts) this.#interrupt(interrupt)
          const waiting = new Set(event.outcome.interrupts.map((interrupt) => interrupt.id))
          for (const given of this.#options.givenOutputs ?? []) if (!waiting.has(given.interruptId)) for (const chunk of heldOutputChunks(given)) this.#emit(chunk)
        }
        return this.#emit({ type: 'finish' })
      case 'RUN_ERROR':
        this.#closeStep()
        return this.#emit({ type: 'error', errorText: event.message })
      default:
        return
    }
  }

  #result(event: RunEvent & { type: 'TOOL_CALL_RESULT' }): void {
    const { toolCallId } = event
    if (!this.#known.has(toolCallId)) return
    const extras = extrasOf(event)
    const providerMetadata: AiSdkPartMetadata = { toolgate: { resultId: event.messageId } }
    if (extras.status === 'denied') return this.#emit({ type: 'tool-output-denied', toolCallId })
    // The AI SDK has no state for a call no one decided (expired, cancelled): it did not run, and its sentence says why.
    if (extras.status === 'error' || extras.status === 'expired' || extras.status === 'cancelled') return this.#emit({ type: 'tool-output-error', toolCallId, errorText: event.content, providerMetadata })
    this.#emit({ type: 'tool-output-available', toolCallId, output: 'output' in extras ? extras.output : event.content, providerMetadata })
    const attachments = Array.isArray(extras.attachments) ? (extras.attachments as ThreadAttachment[]) : []
    for (const attachment of attachments) {
      const url = attachmentUrl(attachment, this.#options.endpoint, this.#threadId)
      if (url !== undefined) this.#emit({ type: 'file', url, mediaType: attachment.mimeType })
    }
  }

  #interrupt(interrupt: AgUiInterrupt): void {
    const { id, reason, toolCallId, message } = interrupt
    if (!this.#known.has(toolCallId)) return
    const extras = extrasOf(interrupt)
    const toolName = typeof extras.toolName === 'string' ? extras.toolName : ''
    const messageId = this.#known.get(toolCallId)
    const { subagentRunId } = interrupt
    if (reason === 'tool_approval') {
      // The AI SDK's approval request has no room for the policy's reason: a server call's part
      // takes it as `toolMetadata` (a browser call's cannot be touched before it is handed over:
      // its input becoming available would run it).
      if (message !== undefined && (subagentRunId !== undefined || this.#options.isServerTool(toolName))) {
        this.#emit({
          type: 'tool-input-available',
          toolCallId,
          toolName,
          input: extras.input,
          providerExecuted: true,
          providerMetadata: stepMetadata(messageId, subagentRunId),
          toolMetadata: approvalMetadata(message),
        })
      }
      return this.#emit({ type: 'tool-approval-request', approvalId: id, toolCallId })
    }
    this.#emit({ type: 'tool-input-available', toolCallId, toolName, input: extras.input, providerMetadata: { toolgate: { ...stepMetadata(messageId, subagentRunId).toolgate, interruptId: id } } })
  }

  #openStep(): { messageId: string | undefined; subagent?: true } {
    if (!this.#step) {
      this.#step = { messageId: undefined }
      this.#emit({ type: 'start-step' })
    }
    return this.#step
  }

  #closeStep(): void {
    if (!this.#step) return
    this.#step = undefined
    this.#emit({ type: 'finish-step' })
  }
}

/** Toolgate's fields of an event or interrupt: at its top level, or under `metadata` (where strict AG-UI clients keep them). */
function extrasOf(value: object): Record<string, unknown> {
  const { metadata } = value as { metadata?: unknown }
  return { ...(isRecord(metadata) ? metadata : {}), ...(value as Record<string, unknown>) }
}

function stepMetadata(messageId: string | undefined, subagentRunId?: string): AiSdkPartMetadata {
  return { toolgate: subagentRunId !== undefined ? { subagentRunId } : messageId === undefined ? {} : { messageId } }
}

/** A call's arguments as the model wrote them: JSON, or the text itself when it is not (the run reports that call's error). */
export function parseArguments(text: string): unknown {
  if (text === '') return {}
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
