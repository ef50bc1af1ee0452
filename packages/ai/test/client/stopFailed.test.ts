import { describe, expect, it, vi } from 'vitest'
import { createChatClient, type ChatClientOptions, type ChatError, type ChatState } from '@toolgate/ai/client'
import { createChatHandler, memoryStore, type ModelChunk } from '@toolgate/ai/server'
import { gatedModel, inProcess, runEnded, texts } from './helpers.ts'

// `stop()` stops the page's reading at once and asks the server to stop the run. When that request
// never reaches it (offline, a proxy with the server down), the run goes on there, tools and all,
// while the page shows it stopped: the client says so, and keeps what the server still holds.

const replying: readonly ModelChunk[] = [{ type: 'text-delta', delta: 'Thinking about it' }]

/** The real handler behind a fetch whose stop requests `failStop` answers instead. */
function withFailingStop(handler: (request: Request) => Promise<Response>, failStop: () => Promise<Response>): NonNullable<ChatClientOptions['fetch']> {
  return (input, init) => {
    if (init.body && JSON.parse(String(init.body)).stop === true) return failStop()
    return handler(new Request(new URL(String(input), 'http://test'), init))
  }
}

function setUp(failStop: () => Promise<Response>) {
  const store = memoryStore()
  const model = gatedModel(replying)
  const handler = createChatHandler({ model, store })
  const errors: ChatError[] = []
  const client = createChatClient({
    endpoint: '/api/chat',
    fetch: withFailingStop(handler, failStop),
    scheduleNotify: (flush) => flush(),
    onError: (error) => errors.push(error),
  })
  return { store, model, handler, client, errors }
}

async function streaming(client: { send(text: string): Promise<void>; getSnapshot(): ChatState }) {
  const done = client.send('Tell me something')
  while (!texts(client.getSnapshot()).some((text) => text.startsWith('assistant: Thinking'))) await new Promise((resolve) => setTimeout(resolve, 5))
  return { done } // not the promise itself: an async function would wait for it
}

describe('a stop the server never got', () => {
  it('offline: the client says the run may still be going, and a reload shows it went on', async () => {
    const { store, model, client, errors } = setUp(() => Promise.reject(new TypeError('Failed to fetch')))
    const { done } = await streaming(client)
    client.stop()
    await done
    await vi.waitFor(() => expect(client.getSnapshot().status).toBe('error'))

    const state = client.getSnapshot()
    expect(state.error).toMatchObject({ code: 'NETWORK' })
    expect(state.error!.message).toMatch(/may still be going on the server: stopping it failed/)
    expect(errors).toEqual([state.error])

    // It did go on: the model was never aborted, and its reply is what a reload shows.
    model.release()
    await runEnded(store, state.threadId!)
    await client.load()
    expect(client.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
    expect(texts(client.getSnapshot())).toEqual(['user: Tell me something', 'assistant: Thinking about it'])
  })

  it('a proxy answering 503 for a server that is down: said with the proxy\'s code', async () => {
    const { model, client } = setUp(async () => new Response('Service Unavailable', { status: 503, headers: { 'content-type': 'text/plain' } }))
    const { done } = await streaming(client)
    client.stop()
    await done
    await vi.waitFor(() => expect(client.getSnapshot().error).toMatchObject({ code: 'UNREACHABLE', status: 503 }))
    model.release()
  })

  it('a stop the server answered leaves no error', async () => {
    const store = memoryStore()
    const model = gatedModel(replying)
    const client = createChatClient({ endpoint: '/api/chat', fetch: inProcess(createChatHandler({ model, store })), scheduleNotify: (flush) => flush() })
    const { done } = await streaming(client)
    client.stop()
    await done
    await model.aborted
    await runEnded(store, client.getSnapshot().threadId!)
    expect(client.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
  })

  it('a failure that comes after the user moved on (a new message) is not shown: that message ended the run', async () => {
    let fail!: (error: Error) => void
    const failure = new Promise<Response>((_, reject) => (fail = reject))
    const { model, client } = setUp(() => failure)
    const { done } = await streaming(client)
    client.stop()
    await done
    model.release()
    const next = client.send('Never mind')
    fail(new TypeError('Failed to fetch'))
    await next
    // Time for the failure to be read (its message is made by a chunk loaded on demand).
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(client.getSnapshot().error).toBeUndefined()
  })
})
