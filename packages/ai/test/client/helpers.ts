import * as v from 'valibot'
import { vi } from 'vitest'
import { toolDefinition, type AnyTool } from '@toolgate/ai'
import { createChatClient, type ChatClientOptions, type ChatState, type ToolCallPart } from '@toolgate/ai/client'
import { type ChatHandlerOptions, type ChatModel, createChatHandler, type ModelChunk, type ThreadStore } from '@toolgate/ai/server'
import { type RunEvent } from '@toolgate/ai/protocol'

/** A fetch that calls a Fetch handler in-process. */
export function inProcess(handler: (request: Request) => Promise<Response>): NonNullable<ChatClientOptions['fetch']> {
  return (input, init) => handler(new Request(new URL(String(input), 'http://test'), init))
}

/** A client on the real chat handler; notifications are synchronous so every published state can be recorded. */
export function clientOn<const TTools extends readonly AnyTool[]>(
  server: ChatHandlerOptions<any>,
  options: Omit<ChatClientOptions<TTools>, 'endpoint'> = {},
) {
  const handler = createChatHandler(server)
  return createChatClient<TTools>({ endpoint: '/api/chat', fetch: inProcess(handler), scheduleNotify: (flush) => flush(), ...options })
}

/** Every state a client publishes, from now on. */
export function record<TState>(client: { subscribe(listener: () => void): () => void; getSnapshot(): TState }): TState[] {
  const states: TState[] = []
  client.subscribe(() => states.push(client.getSnapshot()))
  return states
}

/** The states a call went through, each listed once per change. */
export function callStates(states: readonly ChatState[], toolCallId: string): string[] {
  const seen: string[] = []
  for (const state of states) {
    for (const message of state.messages) {
      for (const part of message.parts) {
        if (part.type === 'tool-call' && part.toolCallId === toolCallId && seen[seen.length - 1] !== part.state) seen.push(part.state)
      }
    }
  }
  return seen
}

export function toolCalls(state: ChatState): ToolCallPart[] {
  return state.messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool-call' ? [part] : [])))
}

export function texts(state: ChatState): string[] {
  return state.messages.flatMap((message) =>
    message.parts.flatMap((part) => (part.type === 'text' ? [`${message.role}: ${part.text}`] : [])),
  )
}

/** A model that yields the chunks it is given and then waits for `release()` before finishing. */
export function gatedModel(chunks: readonly ModelChunk[]): ChatModel & { release(): void; readonly aborted: Promise<void> } {
  let release!: () => void
  let onAbort!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const aborted = new Promise<void>((resolve) => (onAbort = resolve))
  return {
    release,
    aborted,
    async *stream({ signal }) {
      signal.addEventListener('abort', onAbort, { once: true })
      yield* chunks
      await Promise.race([gate, aborted])
      yield { type: 'finish', reason: 'stop' }
    },
  }
}

/** A promise with its resolver, to hold a tool until the test lets it go. */
export function deferred<T>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

/**
 * A fetch that calls the handler in-process, records the request bodies, and keeps the response
 * to each request `hold` picks (the server has already handled it) until the test calls `release`.
 */
export function holdingFetch(handler: (request: Request) => Promise<Response>, hold: (body: any) => boolean) {
  const bodies: any[] = []
  const held: (() => void)[] = []
  const fetch: NonNullable<ChatClientOptions['fetch']> = async (input, init) => {
    const body = init.body ? JSON.parse(String(init.body)) : undefined
    bodies.push(body)
    const response = await handler(new Request(new URL(String(input), 'http://test'), init))
    if (hold(body)) await new Promise<void>((resolve) => held.push(resolve))
    return response
  }
  return { fetch, bodies, held }
}

/** Waits until no run holds the thread any more: what it stored is final. */
export async function runEnded(store: ThreadStore, threadId: string): Promise<void> {
  await vi.waitFor(async () => {
    if ((await store.head(threadId))?.activeRun) throw new Error(`a run still holds ${threadId}`)
  })
}

/** A fetch that answers every POST with these SSE bytes (as separate chunks), for protocol-level cases. */
export function sseFetch(...bodies: (readonly (string | RunEvent)[] | (() => Response))[]): NonNullable<ChatClientOptions['fetch']> & {
  readonly requests: { url: string; body: unknown }[]
} {
  const requests: { url: string; body: unknown }[] = []
  const fetch = async (input: string, init: RequestInit) => {
    requests.push({ url: String(input), body: init.body ? JSON.parse(String(init.body)) : undefined })
    const next = bodies.shift()
    if (!next) throw new Error('no more responses')
    if (typeof next === 'function') return next()
    return new Response(sseBody(next), { headers: { 'content-type': 'text/event-stream' } })
  }
  return Object.assign(fetch, { requests })
}

export function sseBody(chunks: readonly (string | RunEvent)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(typeof chunk === 'string' ? chunk : `data: ${JSON.stringify(chunk)}\n\n`))
      controller.close()
    },
  })
}

// Tools shared by the client tests.

export const weather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: v.object({ city: v.pipe(v.string(), v.minLength(2)) }),
  outputSchema: v.object({ city: v.string(), tempC: v.number() }),
  metadata: { icon: 'cloud' },
})

export const weatherServer = weather.server(async ({ city }) => ({ city, tempC: city.length }))

export const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money',
  inputSchema: v.object({ to: v.string(), amount: v.pipe(v.number(), v.minValue(1)) }),
  outputSchema: v.object({ receipt: v.string() }),
  needsApproval: (input) => (input.amount > 100 ? { reason: `Sends ${input.amount} EUR to ${input.to}` } : false),
})

export const transferServer = transfer.server(async ({ to, amount }) => ({ receipt: `${amount}-${to}` }))

export const location = toolDefinition({
  name: 'get_location',
  description: "The user's location, from the browser",
  inputSchema: v.object({ precise: v.optional(v.boolean()) }),
  outputSchema: v.object({ city: v.string() }),
})

export const share = toolDefinition({
  name: 'share_file',
  description: 'Shares a file from the browser',
  inputSchema: v.object({ file: v.string(), with: v.string() }),
  outputSchema: v.object({ link: v.string() }),
  needsApproval: true,
})
