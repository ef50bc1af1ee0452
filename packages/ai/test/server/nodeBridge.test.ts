import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { createChatClient } from '@toolgate/ai/client'
import { type ChatHandler, type ChatModel, createChatHandler, type ModelChunk, toNodeHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { readSse } from './helpers/sse.ts'

// toNodeHandler runs a chat handler without a Fetch Request or a response stream: these check
// that what the app sees of the request, and what the client gets, are what the Fetch contract gives.

const model = scriptedModel([{ when: 'hello', reply: 'hi there, how are you' }])
const servers: Server[] = []

async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/chat?x=1`
}

afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    server.close()
  }
})

async function eventsOf(response: Response): Promise<{ type: string }[]> {
  const events: { type: string }[] = []
  for await (const event of readSse(response)) events.push(event as { type: string })
  return events
}

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

describe('toNodeHandler', () => {
  it("hands the chat handler's authorize and context hooks a real Request: cloned, re-read, passed on", async () => {
    const seen: Record<string, unknown>[] = []
    const inspect = async (request: Request) => {
      const copy = new Request(request, { headers: { 'x-copied': 'yes' } })
      seen.push({
        isRequest: request instanceof Request,
        method: request.method,
        url: request.url,
        user: request.headers.get('x-user'),
        copiedUrl: copy.url,
        copiedHeader: copy.headers.get('x-copied'),
        aborted: request.signal.aborted,
      })
    }
    const handler = createChatHandler({
      model,
      authorize: async (request) => (await inspect(request), true),
      context: async (request) => (await inspect(request), { user: request.headers.get('x-user') }),
    })
    const url = await serve(toNodeHandler(handler))
    const response = await postJson(url, { message: 'hello' }, { 'x-user': 'ada' })
    expect(response.status).toBe(200)
    const events = await eventsOf(response)
    expect(events.at(-1)?.type).toBe('RUN_FINISHED')
    expect(seen.length).toBeGreaterThanOrEqual(2)
    for (const view of seen) {
      expect(view).toEqual({ isRequest: true, method: 'POST', url, user: 'ada', copiedUrl: url, copiedHeader: 'yes', aborted: false })
    }
  })

  it('settles the request whose client left halfway through a small body: the handler is not left waiting for the rest', async () => {
    const { connect } = await import('node:net')
    const handle = toNodeHandler(createChatHandler({ model }))
    const settled: Promise<void>[] = []
    const url = new URL(await serve((req, res) => void settled.push(handle(req, res))))
    const body = JSON.stringify({ message: 'hello' })
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(url.port), '127.0.0.1', () => {
        socket.write(`POST /chat HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`)
        // Destroyed once the server has the request (its handler runs): the body stays half sent.
        const waitForHandler = () => (settled.length > 0 ? socket.destroy() : setImmediate(waitForHandler))
        waitForHandler()
      })
      socket.on('close', () => resolve())
      socket.on('error', reject)
    })
    await expect(settled[0]).resolves.toBeUndefined()
  })

  it('answers 500 for a response Node cannot write (a header value it refuses), and settles: the app\'s server never sees a rejection', async () => {
    const errors: unknown[] = []
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args))
    try {
      // Fetch's Headers take a control character in a value; Node's `setHeader` throws on it.
      const handle = toNodeHandler((async () => new Response('ok', { headers: { 'x-note': 'a\u0001b' } })) as ChatHandler)
      const settled: Promise<void>[] = []
      // node:http drops what its listener returns, as here: a rejection would be unhandled (which ends the process by default).
      const url = await serve((req, res) => void settled.push(handle(req, res)))
      const responding = postJson(url, { message: 'hello' }).then((response) => response, (error: unknown) => error)
      await vi.waitFor(() => expect(settled).toHaveLength(1))
      expect(await settled[0]!.then(() => 'settled', (error: unknown) => error)).toBe('settled')
      const response = (await responding) as Response
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({ error: { code: 'INTERNAL', message: 'The chat handler failed; see the server log' } })
      expect(errors).toHaveLength(1)
    } finally {
      spy.mockRestore()
    }
  })

  it('answers 500 for a handler that throws or rejects, and settles', async () => {
    const errors: unknown[] = []
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args))
    try {
      for (const handler of [
        (() => {
          throw new Error('thrown')
        }) as unknown as ChatHandler,
        (async () => {
          throw new Error('rejected')
        }) as ChatHandler,
      ]) {
        const handle = toNodeHandler(handler)
        const settled: Promise<void>[] = []
        const url = await serve((req, res) => void settled.push(handle(req, res)))
        const response = await postJson(url, { message: 'hello' })
        expect(response.status).toBe(500)
        expect(await response.json()).toEqual({ error: { code: 'INTERNAL', message: 'The chat handler failed; see the server log' } })
        await expect(settled[0]).resolves.toBeUndefined()
      }
      expect(errors).toHaveLength(2)
    } finally {
      spy.mockRestore()
    }
  })

  it("settles a chat turn's request once its response is finished, not before", async () => {
    const handle = toNodeHandler(createChatHandler({ model }))
    const finishedWhenSettled: boolean[] = []
    const url = await serve((req, res) => void handle(req, res).then(() => finishedWhenSettled.push(res.writableFinished)))
    const events = await eventsOf(await postJson(url, { message: 'hello' }))
    expect(events.at(-1)?.type).toBe('RUN_FINISHED')
    await vi.waitFor(() => expect(finishedWhenSettled).toEqual([true]))
  })

  it('hands any other Fetch handler a real Request with its body, headers and URL', async () => {
    const handler: ChatHandler = async (request) => {
      const clone = new Request(request)
      const body = (await clone.json()) as { n: number }
      return Response.json({ n: body.n + 1, url: request.url, type: request.headers.get('content-type'), used: request.bodyUsed })
    }
    const url = await serve(toNodeHandler(handler))
    const response = await postJson(url, { n: 41 })
    // A real Request gives its body to the copy made from it.
    expect(await response.json()).toEqual({ n: 42, url, type: 'application/json', used: true })
  })

  it("streams a chat handler's run whole when an app wraps the handler and its response body", async () => {
    const chat = createChatHandler({ model })
    const wrapped: ChatHandler = async (request) => {
      const response = await chat(request)
      const headers = new Headers(response.headers)
      headers.set('x-wrapped', '1')
      return new Response(response.body!.pipeThrough(new TransformStream()), { status: response.status, headers })
    }
    const direct = await serve(toNodeHandler(chat))
    const viaWrapper = await serve(toNodeHandler(wrapped))
    const plain = await postJson(direct, { message: 'hello' })
    const throughWrapper = await postJson(viaWrapper, { message: 'hello' })
    expect(throughWrapper.headers.get('x-wrapped')).toBe('1')
    for (const response of [plain, throughWrapper]) expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const types = (await eventsOf(plain)).map((event) => event.type)
    expect((await eventsOf(throughWrapper)).map((event) => event.type)).toEqual(types)
    expect(types).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START', ...types.slice(2, -2).map(() => 'TEXT_MESSAGE_CONTENT'), 'TEXT_MESSAGE_END', 'RUN_FINISHED'])
    expect(types.length).toBeGreaterThan(5)
  })

  it('reads a chat response in-process as a Fetch stream, a slow reader getting every frame', async () => {
    const chat = createChatHandler({ model: scriptedModel([{ when: 'hello', reply: 'one two three four five' }], { delayMs: 1 }) })
    const response = await chat(new Request('http://local/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hello' }) }))
    const reader = response.body!.getReader()
    let text = ''
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      text += new TextDecoder().decode(read.value)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    const deltas = [...text.matchAll(/"delta":"([^"]*)"/g)].map((match) => match[1]).join('')
    expect(deltas).toBe('one two three four five')
    expect(text.trimEnd().endsWith('}')).toBe(true)
    expect(text).toContain('"RUN_FINISHED"')
  })
})

describe('what a run writes to the response under toNodeHandler', () => {
  /** Each `res.write` and `res.end` a request's response gets, with the text it carried. */
  function recordingWrites(listener: RequestListener, onWrite: (text: string) => void): RequestListener {
    return (req, res) => {
      const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean
      const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => ServerResponse
      res.write = ((chunk: unknown, ...rest: unknown[]) => (onWrite(String(chunk)), write(chunk, ...rest))) as typeof res.write
      res.end = ((chunk?: unknown, ...rest: unknown[]) => (onWrite(typeof chunk === 'function' || chunk === undefined ? '' : String(chunk)), end(chunk, ...rest))) as typeof res.end
      return listener(req, res)
    }
  }

  it('writes a turn whose events all come in one event-loop turn at once: every frame in one write, with the end', async () => {
    // The memory store and this model answer in microtasks: the whole turn (a tool call, its result, the answer) is one event-loop turn.
    const weather = toolDefinition({ name: 'get_weather', description: 'Weather', inputSchema: v.object({ city: v.string() }), outputSchema: v.object({ tempC: v.number() }) }).server(({ city }) => ({ tempC: city.length }))
    const toolModel = scriptedModel([{ when: /weather in (\w+)/, call: (m) => ({ tool: 'get_weather', input: { city: m[1] } }), then: () => 'It is mild.' }], { tools: [weather] })
    const writes: string[] = []
    const url = await serve(recordingWrites(toNodeHandler(createChatHandler({ model: toolModel, tools: [weather] })), (text) => writes.push(text)))
    const response = await postJson(url, { message: 'weather in Paris' })
    const types = (await eventsOf(response)).map((event) => event.type)
    expect(types).toEqual(['RUN_STARTED', 'TOOL_CALL_START', ...types.slice(2, types.indexOf('TOOL_CALL_END')).map(() => 'TOOL_CALL_ARGS'), 'TOOL_CALL_END', 'TOOL_CALL_RESULT', 'TEXT_MESSAGE_START', ...types.slice(types.indexOf('TEXT_MESSAGE_START') + 1, -2).map(() => 'TEXT_MESSAGE_CONTENT'), 'TEXT_MESSAGE_END', 'RUN_FINISHED'])
    expect(writes).toHaveLength(1)
    expect([...writes[0]!.matchAll(/^data: /gm)]).toHaveLength(types.length)
  })

  it('writes a delta the model makes in a later event-loop turn in that turn, before the model makes the next', async () => {
    const DELTAS = 20
    let made = 0
    const streaming: ChatModel = {
      async *stream(): AsyncGenerator<ModelChunk> {
        for (let i = 0; i < DELTAS; i++) {
          await new Promise((resolve) => setImmediate(resolve))
          made++
          yield { type: 'text-delta', delta: `d${i} ` }
        }
        yield { type: 'finish', reason: 'stop' }
      },
    }
    /** Per write: the deltas it carried, and how many the model had made when it went out. */
    const writes: { deltas: number[]; made: number }[] = []
    const url = await serve(recordingWrites(toNodeHandler(createChatHandler({ model: streaming })), (text) => writes.push({ deltas: [...text.matchAll(/"delta":"d(\d+) "/g)].map((match) => Number(match[1])), made })))
    const events = await eventsOf(await postJson(url, { message: 'go' }))
    expect(events.filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')).toHaveLength(DELTAS)
    const carrying = writes.filter((write) => write.deltas.length > 0)
    // One write per delta, each gone out before the model made the next: none held back to join a later one.
    expect(carrying.map((write) => write.deltas)).toEqual(Array.from({ length: DELTAS }, (_, i) => [i]))
    for (const [i, write] of carrying.entries()) expect(write.made).toBe(i + 1)
  })
})

describe("a dialect's run through toNodeHandler", () => {
  // The AI SDK's and TanStack's answers are told where the run writes its frames (straight to the
  // socket under toNodeHandler); in-process the same telling goes through a Fetch body.
  const dialects = [
    {
      name: "the AI SDK's UI message stream",
      url: '',
      body: { id: 'c1', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }], trigger: 'submit-message' },
    },
    {
      name: "TanStack's AG-UI stream",
      url: '&client=tanstack',
      body: { threadId: 't-tanstack', runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'hello' }], tools: [], context: [], state: {}, forwardedProps: {} },
    },
  ]
  for (const dialect of dialects) {
    it(`tells ${dialect.name} the same as a Fetch handler in-process`, async () => {
      const chat = createChatHandler({ model })
      const overNode = await postJson((await serve(toNodeHandler(chat))) + dialect.url, dialect.body)
      const inProcess = await chat(
        new Request(`http://local/chat?x=1${dialect.url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...dialect.body, threadId: dialect.url ? 't-tanstack-2' : undefined }) }),
      )
      const shapes = async (response: Response) => {
        expect(response.status).toBe(200)
        const text = await response.text()
        return {
          headers: [...response.headers].filter(([name]) => name === 'content-type' || name.startsWith('x-')).sort(),
          frames: [...text.matchAll(/^data: (.*)$/gm)].map(([, data]) => (data === '[DONE]' ? data : (JSON.parse(data!) as { type: string }).type)),
          text: [...text.matchAll(/"(?:delta|text|textDelta)":"([^"]*)"/g)].map((match) => match[1]).join(''),
        }
      }
      const node = await shapes(overNode)
      expect(await shapes(inProcess)).toEqual(node)
      expect(node.text).toBe('hi there, how are you')
      if (dialect.url) expect(node.frames).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START', ...node.frames.slice(2, -2).map(() => 'TEXT_MESSAGE_CONTENT'), 'TEXT_MESSAGE_END', 'RUN_FINISHED'])
      else {
        expect(node.headers).toContainEqual(['x-vercel-ai-ui-message-stream', 'v1'])
        expect(node.frames.slice(0, 2)).toEqual(['start', 'start-step'])
        expect(node.frames.slice(-2)).toEqual(['finish', '[DONE]'])
      }
    })
  }
})

describe('toNodeHandler mounted where the client does not post', () => {
  // The app's own router, as Express would route: the chat handler under /chat, 404 elsewhere.
  async function routed(): Promise<string> {
    const chat = toNodeHandler(createChatHandler({ model }))
    const url = await serve((req, res) => (req.url?.startsWith('/chat') ? void chat(req, res) : void res.writeHead(404).end('Not Found')))
    return new URL(url).origin
  }

  function warnings(): { codes: string[]; messages: string[]; stop: () => void } {
    const seen = { codes: [] as string[], messages: [] as string[] }
    const listener = (warning: Error & { code?: string }) => {
      seen.codes.push(warning.code ?? '')
      seen.messages.push(warning.message)
    }
    process.on('warning', listener)
    return { ...seen, stop: () => void process.off('warning', listener) }
  }

  // First: once warned, a process is not warned again.
  it("is not warned about a 404 of the handler's own, nor about a wrong path once the handler is reached", async () => {
    const seen = warnings()
    const origin = await routed()
    const client = createChatClient({ endpoint: `${origin}/chat`, scheduleNotify: (flush) => flush() })
    // The handler's own 404 (a thread it does not have), with the client's very headers.
    const own = await fetch(`${origin}/chat`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json' }, body: JSON.stringify({ threadId: 'none', resume: [{ interruptId: 'int_x', approved: true }] }) })
    expect(own.status).toBe(404)
    await client.send('hello')
    expect(client.getSnapshot().error).toBeUndefined()
    await createChatClient({ endpoint: `${origin}/api/chat`, scheduleNotify: (flush) => flush() }).send('hello')
    await new Promise((resolve) => setTimeout(resolve, 50)) // warnings are emitted on the next tick
    seen.stop()
    expect(seen.codes).not.toContain('TOOLGATE_CHAT_NOT_REACHED')
  })

  it('warns once, naming the path, when a Toolgate client posts where no handler is mounted and the handler was never reached', async () => {
    const seen = warnings()
    const origin = await routed()
    const client = createChatClient({ endpoint: `${origin}/api/chat`, scheduleNotify: (flush) => flush() })
    await client.send('hello')
    expect(client.getSnapshot().error?.message).toContain('404')
    await vi.waitFor(() => expect(seen.codes).toContain('TOOLGATE_CHAT_NOT_REACHED'))
    expect(seen.messages.find((message) => message.includes('/api/chat'))).toBe(
      "A Toolgate chat client's POST to /api/chat got 404 and never reached the chat handler (toNodeHandler): mount the handler at /api/chat, or set the client's `endpoint` to the path it is mounted on.",
    )
    await createChatClient({ endpoint: `${origin}/api/chat`, scheduleNotify: (flush) => flush() }).send('hello')
    await new Promise((resolve) => setTimeout(resolve, 50))
    seen.stop()
    expect(seen.codes.filter((code) => code === 'TOOLGATE_CHAT_NOT_REACHED')).toHaveLength(1)
  })
})
