import { LLMock } from '@copilotkit/aimock'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, toolJsonSchema, type AnyTool } from '@toolgate/ai'
import type { ChatModel, ModelChunk, ModelTool } from '@toolgate/ai/server'
import type { ThreadMessage } from '@toolgate/ai/protocol'
import { startServer } from '../../server/helpers/server.ts'

/** One aimock server per test file on 127.0.0.1, with fixtures and journal cleared between tests. */
export function useAimock(): { readonly mock: LLMock; readonly url: string } {
  const mock = new LLMock({ port: 0, host: '127.0.0.1' })
  beforeAll(async () => {
    await mock.start()
  })
  afterAll(() => mock.stop())
  beforeEach(() => {
    mock.clearFixtures()
    mock.clearRequests()
    mock.resetMatchCounts()
  })
  return {
    mock,
    get url() {
      return mock.url
    },
  }
}

/** The tools the adapter tests declare: a plain one, and one whose name no provider accepts as is. */
export const weather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: v.object({ city: v.string(), unit: v.optional(v.picklist(['c', 'f'])) }),
})
export const adminList = toolDefinition({
  name: 'admin.tools.list',
  description: 'Lists the admin tools',
  inputSchema: v.object({ prefix: v.optional(v.string()), limit: v.number() }),
})

/** A tool as the runtime declares it to a model. */
export function modelTool(tool: AnyTool): ModelTool {
  return { name: tool.name, description: tool.description, inputSchema: toolJsonSchema(tool)! }
}

export interface StreamOptions {
  readonly messages?: readonly ThreadMessage[]
  readonly tools?: readonly ModelTool[]
  readonly signal?: AbortSignal
}

/** Streams one model call to its end. */
export async function collect(model: ChatModel, options: StreamOptions = {}): Promise<ModelChunk[]> {
  const chunks: ModelChunk[] = []
  for await (const chunk of model.stream(request(options))) chunks.push(chunk)
  return chunks
}

export function request(options: StreamOptions) {
  return {
    messages: options.messages ?? [user('hello')],
    tools: options.tools ?? [],
    signal: options.signal ?? new AbortController().signal,
  }
}

export function user(content: string): ThreadMessage {
  return { role: 'user', id: `u_${content.length}`, content }
}

export function text(chunks: readonly ModelChunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : '')).join('')
}

/** Each call's name and its whole argument text, in the order the calls started. */
export function calls(chunks: readonly ModelChunk[]): { id: string; name: string; args: string; deltas: number; ended: boolean }[] {
  const byId = new Map<string, { id: string; name: string; args: string; deltas: number; ended: boolean }>()
  for (const chunk of chunks) {
    if (chunk.type === 'tool-call-start') byId.set(chunk.toolCallId, { id: chunk.toolCallId, name: chunk.toolName, args: '', deltas: 0, ended: false })
    const call = 'toolCallId' in chunk ? byId.get(chunk.toolCallId) : undefined
    if (!call) continue
    if (chunk.type === 'tool-call-delta') {
      call.args += chunk.delta
      call.deltas += 1
    }
    if (chunk.type === 'tool-call-end') call.ended = true
  }
  return [...byId.values()]
}

/** A `fetch` that passes every request on and keeps what was sent (aimock journals bodies in OpenAI's shape). */
export function recordingFetch() {
  const sent: { url: string; headers: Record<string, string>; body: any; signal: AbortSignal | null | undefined }[] = []
  const fetcher = (input: string, init: RequestInit) => {
    sent.push({ url: input, headers: { ...(init.headers as Record<string, string>) }, body: JSON.parse(String(init.body)), signal: init.signal })
    return fetch(input, init)
  }
  return { sent, fetch: fetcher }
}

/** The request bodies aimock received, as sent (its own routing field left out). */
export function journaledBodies(mock: LLMock): any[] {
  return mock.getRequests().map((entry) => {
    const { _endpointType, ...body } = entry.body as Record<string, unknown>
    return body
  })
}

/**
 * The two tools the adapter and bridge scenarios use, recording what really ran: `get_weather`
 * (a server tool) and `send_email` (a server tool that asks for approval).
 */
export function recordingTools() {
  const weatherRan: unknown[] = []
  const emailsSent: unknown[] = []
  const weather = toolDefinition({
    name: 'get_weather',
    description: 'Current weather in a city',
    inputSchema: v.object({ city: v.string() }),
    outputSchema: v.object({ tempC: v.number() }),
  }).server(async ({ city }) => {
    weatherRan.push(city)
    return { tempC: city.length }
  })
  const email = toolDefinition({
    name: 'send_email',
    description: 'Sends an email',
    inputSchema: v.object({ to: v.string(), body: v.optional(v.string()) }),
    outputSchema: v.object({ sent: v.boolean() }),
    needsApproval: true,
  }).server(async (input) => {
    emailsSent.push(input)
    return { sent: true }
  })
  return { weatherRan, emailsSent, list: [weather, email] }
}

/**
 * The turns every model must complete through createChatHandler, native adapter or bridge alike:
 * a server tool, an approval and its resume, malformed arguments handed back to the model, and a
 * 429 retried by Toolgate's policy. Call inside a `describe`, with the file's aimock.
 */
export function itCompletesTheCoreTurns(mock: LLMock, model: () => ChatModel): void {
  it('runs a full turn with a server tool', async () => {
    mock.addFixture({ match: { userMessage: 'weather in Oslo', hasToolResult: false }, response: { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] } })
    mock.addFixture({ match: { userMessage: 'weather in Oslo', hasToolResult: true }, response: { content: 'It is 4 degrees.' } })
    const { weatherRan, list } = recordingTools()
    const server = await startServer({ model: model(), tools: list })
    const turn = await server.send('weather in Oslo')
    expect(turn.finished?.outcome).toEqual({ type: 'success' })
    expect(turn.results.map((result) => result.content)).toEqual(['{"tempC":4}'])
    expect(turn.text).toBe('It is 4 degrees.')
    expect(weatherRan).toEqual(['Oslo'])
  })

  it('pauses for an approval and resumes once approved', async () => {
    mock.addFixture({ match: { userMessage: 'email bob', hasToolResult: false }, response: { toolCalls: [{ id: 'call_e', name: 'send_email', arguments: '{"to":"bob@x.test","body":"hi"}' }] } })
    mock.addFixture({ match: { userMessage: 'email bob', hasToolResult: true }, response: { content: 'Sent.' } })
    const { emailsSent, list } = recordingTools()
    const server = await startServer({ model: model(), tools: list })
    const first = await server.send('email bob')
    expect(first.finished?.outcome.type).toBe('interrupt')
    expect(first.interrupts).toEqual([expect.objectContaining({ reason: 'tool_approval', toolName: 'send_email', input: { to: 'bob@x.test', body: 'hi' } })])
    expect(emailsSent).toEqual([])

    const second = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: true }])
    expect(second.results[0]).toMatchObject({ content: '{"sent":true}' })
    expect(second.text).toBe('Sent.')
    expect(emailsSent).toEqual([{ to: 'bob@x.test', body: 'hi' }])
  })

  it('hands malformed arguments back to the model as a validation error, and the turn continues', async () => {
    mock.addFixture({ match: { userMessage: 'bad args', hasToolResult: false }, response: { toolCalls: [{ id: 'call_m', name: 'get_weather', arguments: '{"city":42}' }] } })
    mock.addFixture({ match: { userMessage: 'bad args', hasToolResult: true }, response: { content: 'Let me fix that.' } })
    const { weatherRan, list } = recordingTools()
    const server = await startServer({ model: model(), tools: list })
    const turn = await server.send('bad args')
    expect(turn.finished?.outcome).toEqual({ type: 'success' })
    expect(turn.results[0]!.content).toMatch(/city/)
    expect(turn.text).toBe('Let me fix that.')
    expect(weatherRan).toEqual([])
  })

  it('retries a 429 with Toolgate’s policy and completes the turn', async () => {
    mock.nextRequestError(429, { message: 'Rate limited', type: 'rate_limit_error' })
    mock.onMessage('hello', { content: 'Hi!' })
    const server = await startServer({ model: model(), tools: recordingTools().list })
    const turn = await server.send('hello')
    expect(turn.text).toBe('Hi!')
    expect(mock.getRequests().map((entry) => entry.response.status)).toEqual([429, 200])
  })
}
