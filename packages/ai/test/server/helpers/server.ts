import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect } from 'vitest'
import { EventSchemas } from '@ag-ui/core/schemas'
import { type ChatHandlerOptions, createChatHandler, toNodeHandler } from '@toolgate/ai/server'
import { type AgUiInterrupt, type ErrorBody, type ResumeAccepted, type ResumeAnswer, type RunEvent, type ThreadMessage, type ThreadSnapshot, type ToolInterrupt } from '@toolgate/ai/protocol'
import type { RunFinishedEvent, ToolCallResultEvent } from '../../../src/protocol/events.ts'
import { readSse } from './sse.ts'

/** A finished request: its events, and what tests usually look at. */
export interface Turn {
  readonly status: number
  readonly events: RunEvent[]
  readonly threadId: string
  readonly finished: RunFinishedEvent | undefined
  readonly interrupts: readonly ToolInterrupt[]
  /** All assistant text of the run. */
  readonly text: string
  readonly results: ToolCallResultEvent[]
  readonly types: string[]
  /** The JSON body when the response is not a stream (202 accepted, or a refusal). */
  readonly body?: ResumeAccepted | ErrorBody
}

export interface TestServer {
  readonly url: string
  post(body: unknown, headers?: Record<string, string>): Promise<Response>
  /** Sends a message and reads the whole event stream. */
  send(message: string, threadId?: string, headers?: Record<string, string>): Promise<Turn>
  /** Answers interrupts; a stream when the batch completes, else the 202 body. */
  resume(threadId: string, answers: ResumeAnswer[], headers?: Record<string, string>): Promise<Turn>
  get(threadId: string, headers?: Record<string, string>): Promise<ThreadSnapshot>
  close(): Promise<void>
}

const servers = new Set<Server>()

/** A real node:http server on 127.0.0.1 with an ephemeral port, serving the chat handler. */
export async function startServer(options: ChatHandlerOptions<any>): Promise<TestServer> {
  const server = createServer(toNodeHandler(createChatHandler(options)))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.add(server)
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })

  return {
    url,
    post,
    send: async (message, threadId, headers) => readTurn(await post(threadId ? { threadId, message } : { message }, headers)),
    resume: async (threadId, answers, headers) => readTurn(await post({ threadId, resume: answers }, headers)),
    get: async (threadId, headers = {}) => {
      const response = await fetch(`${url}?threadId=${encodeURIComponent(threadId)}`, { headers })
      expect(response.status, JSON.stringify(await response.clone().json())).toBe(200)
      return (await response.json()) as ThreadSnapshot
    },
    close: () => closeServer(server),
  }
}

export function closeServer(server: Server): Promise<void> {
  servers.delete(server)
  server.closeAllConnections()
  return new Promise((resolve) => server.close(() => resolve()))
}

export async function closeAll(): Promise<void> {
  await Promise.all([...servers].map(closeServer))
}

/** Reads a stream to its end, checking each event against AG-UI's published schemas. */
export async function readTurn(response: Response): Promise<Turn> {
  const type = response.headers.get('content-type') ?? ''
  if (!type.startsWith('text/event-stream')) {
    const body = (await response.json()) as ResumeAccepted | ErrorBody
    return {
      status: response.status,
      events: [],
      threadId: 'threadId' in body ? body.threadId : '',
      finished: undefined,
      interrupts: 'interrupts' in body ? body.interrupts : [],
      text: '',
      results: [],
      types: [],
      body,
    }
  }
  const events: RunEvent[] = []
  for await (const data of readSse(response)) events.push(checkEvent(data))
  checkSequence(events)
  const started = events.find((event) => event.type === 'RUN_STARTED')
  const finished = events.find((event): event is RunFinishedEvent => event.type === 'RUN_FINISHED')
  return {
    status: response.status,
    events,
    threadId: started?.type === 'RUN_STARTED' ? started.threadId : '',
    finished,
    interrupts: finished?.outcome.type === 'interrupt' ? finished.outcome.interrupts.map(fromMetadata) : [],
    text: events.map((event) => (event.type === 'TEXT_MESSAGE_CONTENT' ? event.delta : '')).join(''),
    results: events.filter((event): event is ToolCallResultEvent => event.type === 'TOOL_CALL_RESULT'),
    types: events.map((event) => event.type),
  }
}

/** Valid under @ag-ui/core's schema, and kept whole by it (nothing of ours is stripped). */
export function checkEvent(data: unknown): RunEvent {
  const parsed = EventSchemas.safeParse(data)
  expect(parsed.success, `not an AG-UI event: ${JSON.stringify(data)}\n${parsed.error}`).toBe(true)
  expect(parsed.data).toEqual(data)
  return data as RunEvent
}

/** The order AG-UI expects: one run, text and tool calls opened before use and closed once. */
export function checkSequence(events: readonly RunEvent[]): void {
  expect(events[0]?.type).toBe('RUN_STARTED')
  expect(['RUN_FINISHED', 'RUN_ERROR']).toContain(events.at(-1)?.type)
  const openText = new Set<string>()
  const openCalls = new Set<string>()
  for (const event of events.slice(1, -1)) {
    expect(['RUN_STARTED', 'RUN_FINISHED', 'RUN_ERROR']).not.toContain(event.type)
    switch (event.type) {
      case 'TEXT_MESSAGE_START':
        expect(openText.size).toBe(0)
        openText.add(event.messageId)
        break
      case 'TEXT_MESSAGE_CONTENT':
        expect(openText.has(event.messageId)).toBe(true)
        break
      case 'TEXT_MESSAGE_END':
        expect(openText.delete(event.messageId)).toBe(true)
        break
      case 'TOOL_CALL_START':
        expect(openText.size).toBe(0)
        openCalls.add(event.toolCallId)
        break
      case 'TOOL_CALL_ARGS':
        expect(openCalls.has(event.toolCallId)).toBe(true)
        break
      case 'TOOL_CALL_END':
        expect(openCalls.delete(event.toolCallId)).toBe(true)
        break
      case 'TOOL_CALL_RESULT':
        expect(openCalls.has(event.toolCallId)).toBe(false)
        break
    }
  }
  expect(openText.size).toBe(0)
  expect(openCalls.size).toBe(0)
}

/** What a reload shows (calls with their arguments, results) is what the stream showed. */
export function expectReloadToMatchStream(messages: readonly ThreadMessage[], events: readonly RunEvent[]): void {
  const streamed = new Map<string, { id: string; name: string; arguments: string }>()
  for (const event of events) {
    if (event.type === 'TOOL_CALL_START') streamed.set(event.toolCallId, { id: event.toolCallId, name: event.toolCallName, arguments: '' })
    if (event.type === 'TOOL_CALL_ARGS') streamed.get(event.toolCallId)!.arguments += event.delta
  }
  const stored = messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) : []))
  expect(stored).toEqual([...streamed.values()])
  const results = events.flatMap((e) => (e.type === 'TOOL_CALL_RESULT' ? [{ id: e.messageId, toolCallId: e.toolCallId, status: e.metadata.status, content: e.content }] : []))
  const storedResults = messages.flatMap((m) => (m.role === 'tool' ? [{ id: m.id, toolCallId: m.toolCallId, status: m.status, content: m.content }] : []))
  // Results stream as calls finish and are stored in call order.
  const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)
  expect(storedResults.sort(byId)).toEqual(results.sort(byId))
}

/** Reads the error body of a refused request. */
export async function errorOf(response: Response): Promise<{ status: number; error: ErrorBody['error'] }> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  const body = (await response.json()) as ErrorBody
  return { status: response.status, error: body.error }
}

/** A promise and its resolver, for tools that wait on the test. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

/** The stream carries an interrupt's tool name and input in `metadata` (AG-UI 1.0); JSON answers carry them at the top. */
function fromMetadata(interrupt: AgUiInterrupt): ToolInterrupt {
  const { toolName, input } = interrupt.metadata!
  return { ...interrupt, toolName, input }
}
