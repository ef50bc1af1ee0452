import { describe, expect, it } from 'vitest'
import { createChatClient, type ChatState } from '@toolgate/ai/client'
import { createChatHandler, memoryStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { inProcess, record, texts } from './helpers.ts'

// The client follows a run across dropped connections, reloads and instances: the run goes on on
// the server, and the client attaches to it again where it left off.

const story = Array.from({ length: 30 }, (_, i) => `part ${i}. `).join('')
const model = () => scriptedModel([{ when: 'story', reply: story }], { delayMs: 10 })

/** A fetch whose first event stream breaks after `afterBytes`, like a network drop mid-run. */
function droppingFetch(handler: (request: Request) => Promise<Response>, afterBytes: number) {
  const base = inProcess(handler)
  let dropped = false
  const requests: string[] = []
  const fetch: typeof base = async (input, init) => {
    requests.push(`${init?.method ?? 'GET'} ${String(input).replace(/thread_[\w-]+/, 'T').replace(/run_[\w-]+/, 'R')}`)
    const response = await base(input, init)
    if (dropped || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return response
    dropped = true
    let sent = 0
    const reader = response.body!.getReader()
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read()
        if (done) return controller.close()
        sent += value.byteLength
        controller.enqueue(value)
        if (sent >= afterBytes) {
          controller.error(new TypeError('network error'))
          void reader.cancel()
        }
      },
    })
    return new Response(body, { status: response.status, headers: response.headers })
  }
  return { fetch, requests }
}

describe('ChatClient reconnects', () => {
  it('attaches again after a dropped stream, showing reconnecting, and loses and repeats nothing', async () => {
    const handler = createChatHandler({ model: model() })
    const { fetch, requests } = droppingFetch(handler, 600)
    const client = createChatClient({ endpoint: '/api/chat', fetch, scheduleNotify: (flush) => flush() })
    const states = record(client)
    await client.send('tell me a story')

    const final = client.getSnapshot()
    expect(final.error).toBeUndefined()
    expect(final.status).toBe('idle')
    expect(texts(final)).toEqual(['user: tell me a story', `assistant: ${story}`])
    expect(states.map((state: ChatState) => state.status)).toContain('reconnecting')
    expect(requests).toEqual(['POST /api/chat', expect.stringMatching(/^GET \/api\/chat\?threadId=T&runId=R&after=\d+$/)])
  })

  it('follows a run still streaming when it loads the thread, as after a reload', async () => {
    const store = memoryStore()
    const handler = createChatHandler({ model: model(), store })
    const first = createChatClient({ endpoint: '/api/chat', fetch: inProcess(handler), scheduleNotify: (flush) => flush() })
    const sent = first.send('tell me a story')
    await new Promise((resolve) => setTimeout(resolve, 60))
    const threadId = first.getSnapshot().threadId!
    expect(threadId).toBeDefined()

    // A second tab (or the reloaded page) on another instance sharing the store.
    const other = createChatHandler({ model: model(), store })
    const reloaded = createChatClient({ endpoint: '/api/chat', fetch: inProcess(other), threadId, scheduleNotify: (flush) => flush() })
    const states = record(reloaded)
    await reloaded.load()
    await sent

    expect(texts(reloaded.getSnapshot())).toEqual(['user: tell me a story', `assistant: ${story}`])
    expect(reloaded.getSnapshot().status).toBe('idle')
    // It showed the answer growing, not only at the end.
    const lengths = states.map((state) => texts(state).join('').length)
    expect(new Set(lengths).size).toBeGreaterThan(3)
  })

  it('reads the stored thread when the run ended while it was away', async () => {
    const handler = createChatHandler({ model: model() })
    const { fetch } = droppingFetch(handler, 400)
    // Every attach finds the run gone: the client falls back to the thread as stored.
    const gone: typeof fetch = async (input, init) => {
      const url = new URL(String(input), 'http://local')
      if (url.searchParams.has('runId')) {
        // The run finishes meanwhile (waited for, not timed: a loaded machine is slower).
        const threadId = url.searchParams.get('threadId')!
        while ((await (await fetch(`/api/chat?threadId=${threadId}`, {})).json()).status === 'running') await new Promise((resolve) => setTimeout(resolve, 20))
        return new Response(null, { status: 204 })
      }
      return fetch(input, init)
    }
    const client = createChatClient({ endpoint: '/api/chat', fetch: gone, scheduleNotify: (flush) => flush() })
    await client.send('tell me a story')
    expect(client.getSnapshot().error).toBeUndefined()
    expect(texts(client.getSnapshot())).toEqual(['user: tell me a story', `assistant: ${story}`])
  })

  it('keeps trying while a proxy answers 502 for the server behind it, and attaches once it is back', async () => {
    const handler = createChatHandler({ model: model() })
    const { fetch, requests } = droppingFetch(handler, 400)
    let refused = 0
    // The first two attaches meet the proxy with the server behind it down (a restart, a deploy).
    const proxied: typeof fetch = async (input, init) => {
      if (new URL(String(input), 'http://local').searchParams.has('runId') && refused < 2) {
        refused++
        return new Response('Bad Gateway', { status: 502, statusText: 'Bad Gateway' })
      }
      return fetch(input, init)
    }
    const client = createChatClient({ endpoint: '/api/chat', fetch: proxied, scheduleNotify: (flush) => flush() })
    await client.send('tell me a story')
    expect(refused).toBe(2)
    expect(client.getSnapshot().error).toBeUndefined()
    expect(texts(client.getSnapshot())).toEqual(['user: tell me a story', `assistant: ${story}`])
    expect(requests.filter((request) => request.includes('runId='))).toHaveLength(1)
  })
})
