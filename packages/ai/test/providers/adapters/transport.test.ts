import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { anthropicModel, openAIChatModel } from '@toolgate/ai/providers'
import type { ModelChunk } from '@toolgate/ai/server'
import { collect, request, text } from './helpers.ts'

// How a provider's request travels on Node: `node:http` with a keep-alive agent (`#post-events`,
// `postEvents.node.ts`), the answer parsed from the socket. A real HTTP server here counts the
// connections and sees them close; aimock (the other adapter tests) cannot say which socket a
// request came on.

type Answer = (req: IncomingMessage, res: ServerResponse) => void
let answer: Answer = () => {}
const connections: Socket[] = []
const closed: Socket[] = []
const server = createServer((req, res) => {
  let body = ''
  req.on('data', (chunk) => (body += chunk))
  req.on('end', () => {
    ;(req as IncomingMessage & { body: string }).body = body
    answer(req, res)
  })
})
server.on('connection', (socket) => {
  connections.push(socket)
  socket.on('close', () => closed.push(socket))
})
let baseURL = ''
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterEach(async () => {
  server.closeAllConnections()
  await until(() => closed.length === connections.length)
  connections.length = 0
  closed.length = 0
})
afterAll(() => new Promise((resolve) => server.close(resolve)))

const sse = (events: readonly unknown[]) => events.map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`).join('')
const delta = (content: string) => ({ choices: [{ index: 0, delta: { content } }] })
const finish = { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }

/** OpenAI's whole answer: text in pieces, the finish, `[DONE]`, written in pieces too. */
function openAIAnswer(words: readonly string[]): Answer {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    const body = sse([...words.map(delta), finish, '[DONE]'])
    // Cut anywhere, even inside a multi-byte character: the parser must join them.
    const bytes = Buffer.from(body)
    const cut = Math.floor(bytes.length / 2) + 1
    res.write(bytes.subarray(0, cut))
    setImmediate(() => res.end(bytes.subarray(cut)))
  }
}

const openAI = (options: Partial<Parameters<typeof openAIChatModel>[0]> = {}) => openAIChatModel({ model: 'gpt-test', apiKey: 'sk-test', baseURL, maxRetries: 0, ...options })
const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5))
}

describe('the provider transport on Node', () => {
  it('keeps the connection: a turn’s calls and the next turn’s go on one socket, though OpenAI’s stream is left at `[DONE]`', async () => {
    answer = openAIAnswer(['Grüße ', 'aus ', 'Köln'])
    const model = openAI()
    for (let call = 0; call < 3; call++) expect(text(await collect(model))).toBe('Grüße aus Köln')
    expect(connections).toHaveLength(1)
    expect(closed).toHaveLength(0)
  })

  it('closes the socket of a call aborted mid-stream, and the next call opens another', async () => {
    let written = 0
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(sse([delta('first ')]))
      written++
      // …and nothing more: the model is still thinking when the user stops.
    }
    const controller = new AbortController()
    const chunks: ModelChunk[] = []
    const error = await (async () => {
      for await (const chunk of openAI().stream(request({ signal: controller.signal }))) {
        chunks.push(chunk)
        controller.abort()
      }
    })().catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'AbortError' })
    expect(chunks).toEqual([{ type: 'text-delta', delta: 'first ' }])
    expect(written).toBe(1)
    await until(() => closed.length === 1)
    expect(closed[0]).toBe(connections[0])

    answer = openAIAnswer(['again'])
    expect(text(await collect(openAI()))).toBe('again')
    expect(connections).toHaveLength(2)
  })

  it('sends a call again at once, on a new socket, when the server closed the kept one as it was reused', async () => {
    const reply = openAIAnswer(['fresh'])
    const seen = new Set<Socket>()
    answer = (req, res) => {
      // The second request on a kept socket: the server drops it, as one whose idle timeout just lapsed.
      if (seen.has(req.socket)) return void req.socket.destroy()
      seen.add(req.socket)
      reply(req, res)
    }
    const model = openAI({ maxRetries: 0 })
    expect(text(await collect(model))).toBe('fresh')
    expect(text(await collect(model))).toBe('fresh')
    expect(connections).toHaveLength(2)
  })

  it('times out a stalled answer as PROVIDER_TIMEOUT and closes its socket', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(sse([delta('slow ')]))
    }
    const error = await collect(openAI({ timeout: 150 })).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'PROVIDER_TIMEOUT', provider: 'OpenAI' })
    await until(() => closed.length === 1)
  })

  it('reads an error answer’s status, body and retry-after from the socket', async () => {
    answer = (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '120', 'x-request-id': 'req_9' })
      res.end(JSON.stringify({ error: { message: 'Slow down', type: 'rate_limit_error' } }))
    }
    const error = await collect(openAI()).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'PROVIDER_HTTP_ERROR', status: 429, type: 'rate_limit_error', requestId: 'req_9', retryAfterMs: 120_000, message: 'OpenAI answered 429: Slow down (request req_9)' })
  })

  it('sends the request as the fetch path does: the headers, the JSON body, to the URL', async () => {
    let seen: IncomingMessage & { body?: string } = undefined as never
    const reply = openAIAnswer(['ok'])
    answer = (req, res) => {
      seen = req
      reply(req, res)
    }
    await collect(openAI({ headers: { 'X-Trace': 't1' } }))
    expect(seen.method).toBe('POST')
    expect(seen.url).toBe('/v1/chat/completions')
    expect(seen.headers).toMatchObject({ authorization: 'Bearer sk-test', 'content-type': 'application/json', accept: 'text/event-stream', 'x-trace': 't1' })
    expect(JSON.parse(seen.body!)).toMatchObject({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hello' }] })
  })

  it('still goes through the app’s own fetch when it gives one', async () => {
    answer = openAIAnswer(['via fetch'])
    const urls: string[] = []
    const model = openAI({ fetch: (url, init) => (urls.push(url), fetch(url, init)) })
    expect(text(await collect(model))).toBe('via fetch')
    expect(urls).toEqual([`${baseURL}/chat/completions`])
  })

  it('keeps to fetch when the app routed it elsewhere (setGlobalDispatcher: a proxy, a MockAgent)', async () => {
    const key = Symbol.for('undici.globalDispatcher.1')
    const global = globalThis as unknown as Record<symbol, unknown> & { fetch: typeof fetch }
    const [dispatcher, original] = [global[key], global.fetch]
    const urls: string[] = []
    global[key] = new (class ProxyAgent {})()
    // The routed fetch answers itself (this fake dispatcher routes nowhere).
    global.fetch = (async (url: string) => (urls.push(url), new Response(sse([delta('proxied'), finish, '[DONE]'])))) as typeof fetch
    try {
      expect(text(await collect(openAI()))).toBe('proxied')
      expect(urls).toEqual([`${baseURL}/chat/completions`])
    } finally {
      global[key] = dispatcher
      global.fetch = original
    }
  })

  it('counts a last event the provider cut off before its blank line (Anthropic)', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(
        [
          `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'm', usage: { input_tokens: 3, output_tokens: 1 } } })}\n\n`,
          `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`,
          `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } })}\n\n`,
          `event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } })}\n\n`,
          `event: message_stop\ndata: ${JSON.stringify({ type: 'message_stop' })}`,
        ].join(''),
      )
    }
    const chunks = await collect(anthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: baseURL.replace(/\/v1$/, ''), maxRetries: 0 }))
    expect(text(chunks)).toBe('Hi')
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' })
  })
})
