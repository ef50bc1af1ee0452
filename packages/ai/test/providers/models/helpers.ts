import { LLMock } from '@copilotkit/aimock'
import { afterAll, beforeAll, beforeEach } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, toolJsonSchema, type AnyTool } from '@toolgate/ai'
import type { ThreadMessage, ChatModel, ModelChunk, ModelTool } from '@toolgate/ai/server'

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
