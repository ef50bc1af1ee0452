import { request as httpRequest } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { memoryStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { type ThreadSnapshot } from '@toolgate/ai/protocol'
import { locationDef, weatherDef, weatherTool } from './fixtures.ts'
import { stored } from './helpers/store.ts'
import { closeAll, errorOf, startServer } from './helpers/server.ts'

afterEach(closeAll)

const model = scriptedModel([{ when: 'hello', reply: 'hi' }])

describe('request limits and shapes', () => {
  it('refuses malformed JSON with 400 and the reason', async () => {
    const server = await startServer({ model })
    const { status, error } = await errorOf(await server.post('{"message": "hi"'))
    expect(status).toBe(400)
    expect(error.code).toBe('INVALID_JSON')
    expect(error.message).toMatch(/^The body is not valid JSON: .+/)
  })

  it.each([
    [[1, 2], '(root)'],
    [{}, '(root)'],
    [{ message: '' }, 'message'],
    [{ message: 'hi', resume: [] }, '(root)'],
    [{ threadId: 4, message: 'hi' }, 'threadId'],
    [{ resume: [{ interruptId: 'i', approved: true }] }, 'threadId'],
    [{ threadId: 't', resume: [] }, 'resume'],
    [{ threadId: 't', resume: [{ interruptId: 'i', approved: 'yes' }] }, 'resume[0].approved'],
    [{ threadId: 't', resume: [{ interruptId: 'i', approved: true, output: 1 }] }, 'resume[0]'],
    [{ threadId: 't', resume: [{ interruptId: 'i', approved: false, editedArgs: {} }] }, 'resume[0].editedArgs'],
    [{ threadId: 't', resume: [{ interruptId: 'i', error: 3 }] }, 'resume[0].error'],
    [{ threadId: 't', resume: [{ interruptId: 'i', output: 1 }, { interruptId: 'i', output: 2 }] }, 'resume[1].interruptId'],
  ])('refuses %j with 400 at %s', async (body, path) => {
    const server = await startServer({ model })
    expect(await errorOf(await server.post(body))).toEqual({
      status: 400,
      error: { code: 'INVALID_REQUEST', message: expect.any(String), path },
    })
  })

  it('refuses a body over the limit with 413', async () => {
    const server = await startServer({ model, limits: { maxBodyBytes: 1000 } })
    const response = await server.post({ message: 'x'.repeat(2000) })
    expect(await errorOf(response)).toMatchObject({ status: 413, error: { code: 'PAYLOAD_TOO_LARGE' } })
  })

  it('refuses a streamed (chunked) body once it passes the limit', async () => {
    const server = await startServer({ model, limits: { maxBodyBytes: 1000 } })
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(server.url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        let text = ''
        res.setEncoding('utf8').on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body: text }))
      })
      req.on('error', reject)
      req.write(`{"message":"${'x'.repeat(600)}`)
      req.write('x'.repeat(600))
      req.end('"}')
    })
    expect(status).toBe(413)
    expect(JSON.parse(body).error.code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('answers a refusal before reading a large body, and keeps the connection usable', async () => {
    const server = await startServer({ model, limits: { maxBodyBytes: 1000 } })
    for (let i = 0; i < 2; i++) {
      const tooLarge = await server.post({ message: 'x'.repeat(3_000_000) })
      expect((await errorOf(tooLarge)).status).toBe(413)
      const wrongType = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'y'.repeat(3_000_000) })
      expect((await errorOf(wrongType)).status).toBe(415)
      expect((await server.send('hello')).text).toBe('hi')
    }
  })

  it('a client that leaves halfway through a small body starts nothing, and the server goes on', async () => {
    const { connect } = await import('node:net')
    const store = memoryStore()
    const server = await startServer({ model, store })
    const { port } = new URL(server.url)
    const body = JSON.stringify({ threadId: 'half-sent', message: 'hello' })
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`POST /chat HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 20)}`)
        setTimeout(() => socket.destroy(), 50)
      })
      socket.on('close', () => resolve())
      socket.on('error', reject)
    })
    expect((await server.send('hello')).text).toBe('hi')
    expect(await store.head('half-sent')).toBeUndefined()
  })

  it('accepts the default 1 MB', async () => {
    const server = await startServer({ model, limits: { maxMessageBytes: 1024 * 1024 } })
    expect((await server.post({ message: `hello ${'x'.repeat(900_000)}` })).status).toBe(200)
    expect((await errorOf(await server.post({ message: 'x'.repeat(1024 * 1024) }))).status).toBe(413)
  })

  it('requires a JSON content type (415) and POST or GET (405)', async () => {
    const server = await startServer({ model })
    const text = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"message":"hello"}' })
    expect((await errorOf(text)).error.code).toBe('UNSUPPORTED_MEDIA_TYPE')
    const put = await fetch(server.url, { method: 'PUT' })
    expect(await errorOf(put)).toMatchObject({ status: 405, error: { code: 'METHOD_NOT_ALLOWED' } })
    expect(put.headers.get('allow')).toBe('GET, POST')
    expect((await errorOf(await fetch(server.url))).error).toMatchObject({ code: 'INVALID_REQUEST', path: 'threadId' })
  })
})

describe('limits.maxThreadMessages', () => {
  const weatherModel = scriptedModel([
    { when: 'hello', reply: 'hi' },
    { when: 'one city', call: () => ({ tool: 'get_weather', input: { city: 'Paris' } }), then: ([r]) => r.content },
    {
      when: 'two cities',
      call: () => [
        { tool: 'get_weather', input: { city: 'Paris' } },
        { tool: 'get_weather', input: { city: 'Oslo' } },
      ],
    },
  ])

  it('refuses a message without room for it and a reply (409 THREAD_FULL), changing nothing', async () => {
    const store = memoryStore()
    const server = await startServer({ model: weatherModel, store, limits: { maxThreadMessages: 5 } })
    const first = await server.send('hello')
    expect((await server.send('hello', first.threadId)).text).toBe('hi') // 4 messages: one left, no room for a reply
    const before = (await stored(store, first.threadId))!

    const refused = await server.post({ threadId: first.threadId, message: 'hello' })
    expect(await errorOf(refused)).toEqual({
      status: 409,
      error: { code: 'THREAD_FULL', message: 'The thread holds its limit of 5 messages; start a new thread', path: 'threadId' },
    })
    expect(await stored(store, first.threadId)).toEqual(before)
    expect((await server.send('hello')).text).toBe('hi') // a new thread starts empty
  })

  it('ends a run that would grow past it with RUN_ERROR, leaving a consistent thread', async () => {
    const store = memoryStore()
    const errors: unknown[] = []
    const server = await startServer({ model: weatherModel, tools: [weatherTool], store, limits: { maxThreadMessages: 3 }, onError: (e) => errors.push(e) })
    // The message, the call and its result fit; the model's answer after them does not.
    const turn = await server.send('one city')
    expect(turn.events.at(-1)).toEqual({ type: 'RUN_ERROR', code: 'THREAD_FULL', message: 'The thread reached its limit of 3 messages; start a new thread' })
    expect(turn.results.map((r) => r.metadata.status)).toEqual(['success'])
    const thread = (await stored(store, turn.threadId))!
    expect(thread.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
    expect(thread.head.activeRun).toBeUndefined()
    expect(thread.head.step).toBeUndefined()
    expect(await server.get(turn.threadId)).toMatchObject({ status: 'idle', interrupts: [] })
    expect(errors).toHaveLength(1)
    expect((await errorOf(await server.post({ threadId: turn.threadId, message: 'hello' }))).error.code).toBe('THREAD_FULL')
  })

  it('does not store a model step whose calls could not all get a result', async () => {
    const store = memoryStore()
    const ran: string[] = []
    const tool = weatherDef.server(async ({ city }) => (ran.push(city), { city, tempC: 1 }))
    const server = await startServer({ model: weatherModel, tools: [tool], store, limits: { maxThreadMessages: 3 }, onError: () => {} })
    const turn = await server.send('two cities')
    expect(turn.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'THREAD_FULL' })
    expect(turn.results).toEqual([])
    expect(ran).toEqual([])
    const thread = (await stored(store, turn.threadId))!
    expect(thread.messages.map((m) => m.role)).toEqual(['user'])
    expect(thread.head.activeRun).toBeUndefined()
  })

  it('must be an integer of at least 2', async () => {
    const { createChatHandler } = await import('@toolgate/ai/server')
    expect(() => createChatHandler({ model: weatherModel, limits: { maxThreadMessages: 1 } })).toThrow(/maxThreadMessages/)
  })
})

describe('byte limits', () => {
  const big = 'x'.repeat(1000)
  const models = scriptedModel([
    { when: 'hello', reply: 'hi' },
    { when: 'weather', call: () => ({ tool: 'get_weather', input: { city: 'Paris' } }), then: ([r]) => `${r.status}: ${r.content}` },
    { when: 'where', call: () => ({ tool: 'get_location', input: {} }), then: ([r]) => `${r.status}` },
  ], { tools: [weatherDef, locationDef] })

  it('refuses a message over maxMessageBytes with 413 naming the path, storing nothing', async () => {
    const store = memoryStore()
    const server = await startServer({ model: models, store, limits: { maxMessageBytes: 500 } })
    const first = await server.send('hello')
    const refused = await server.post({ threadId: first.threadId, message: `hello ${big}` })
    expect(await errorOf(refused)).toEqual({
      status: 413,
      error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/^This message is \d+ bytes as JSON, more than the limit of 500$/), path: 'message' },
    })
    expect((await stored(store, first.threadId))!.messages).toHaveLength(2)
  })

  it('keeps the stored messages\' size in the head, over a tool turn, a later turn and an answered call', async () => {
    const store = memoryStore()
    const server = await startServer({ model: models, store, tools: [weatherTool, locationDef] })
    const sizeOf = async (threadId: string) => {
      const thread = (await stored(store, threadId))!
      return { counted: thread.head.bytes, stored: thread.messages.reduce((sum, message) => sum + Buffer.byteLength(JSON.stringify(message), 'utf8'), 0) }
    }
    const first = await server.send('weather')
    expect(first.text).toBe('success: {"city":"Paris","tempC":18}')
    const afterTool = await sizeOf(first.threadId)
    expect(afterTool.counted).toBe(afterTool.stored)
    await server.send(`hello ${big}`, first.threadId)
    const afterMessage = await sizeOf(first.threadId)
    expect(afterMessage.counted).toBe(afterMessage.stored)
    expect(afterMessage.counted).toBeGreaterThan(afterTool.counted + 1000)
    const asked = await server.send('where am I', first.threadId)
    const answered = await server.resume(first.threadId, [{ interruptId: asked.interrupts[0]!.id, output: { city: 'Paris' } }])
    expect(answered.text).toBe('success')
    const afterAnswer = await sizeOf(first.threadId)
    expect(afterAnswer.counted).toBe(afterAnswer.stored)
  })

  it('refuses a message that would take the thread past maxThreadBytes (409 THREAD_FULL)', async () => {
    const store = memoryStore()
    const server = await startServer({ model: models, store, limits: { maxThreadBytes: 3000, maxMessageBytes: 1100 } })
    const first = await server.send(`hello ${big}`)
    await server.send(`hello ${big}`, first.threadId)
    const before = (await stored(store, first.threadId))!
    expect(await errorOf(await server.post({ threadId: first.threadId, message: `hello ${big}` }))).toEqual({
      status: 409,
      error: { code: 'THREAD_FULL', message: 'The thread holds its limit of 3000 bytes; start a new thread', path: 'threadId' },
    })
    expect(await stored(store, first.threadId)).toEqual(before)
    expect(before.head.bytes).toBeGreaterThan(2000)
  })

  it('replaces a server tool output over maxMessageBytes with an error the model reads', async () => {
    let ran = 0
    const tool = weatherDef.server(async ({ city }) => (ran++, { city: city + big, tempC: 1 }))
    const server = await startServer({ model: models, tools: [tool], limits: { maxMessageBytes: 500 } })
    const turn = await server.send('weather')
    expect(ran).toBe(1)
    expect(turn.results[0]).toMatchObject({ metadata: { status: 'error' }, content: expect.stringMatching(/^Tool "get_weather" ran, but its output is \d+ bytes, more than the limit of 500; it was not kept$/) })
    expect(turn.text).toMatch(/^error: Tool "get_weather" ran/)
  })

  it('refuses a client result over maxMessageBytes with 413 naming the path; the interrupt stays open', async () => {
    const server = await startServer({ model: models, tools: [locationDef], limits: { maxMessageBytes: 500 } })
    const first = await server.send('where am I')
    const interruptId = first.interrupts[0]!.id
    const refused = await server.post({ threadId: first.threadId, resume: [{ interruptId, output: { city: big } }] })
    expect(await errorOf(refused)).toMatchObject({ status: 413, error: { code: 'PAYLOAD_TOO_LARGE', path: 'resume[0].output' } })
    const answered = await server.resume(first.threadId, [{ interruptId, output: { city: 'Paris' } }])
    expect(answered.text).toBe('success')
  })

  it('ends a run that reaches maxThreadBytes before its next model call', async () => {
    const store = memoryStore()
    const tool = weatherDef.server(async ({ city }) => ({ city: city + big, tempC: 1 }))
    const server = await startServer({ model: models, tools: [tool], store, limits: { maxThreadBytes: 1200, maxMessageBytes: 1200 }, onError: () => {} })
    const turn = await server.send('weather')
    expect(turn.results.map((r) => r.metadata.status)).toEqual(['success'])
    expect(turn.events.at(-1)).toEqual({ type: 'RUN_ERROR', code: 'THREAD_FULL', message: 'The thread reached its limit of 1200 bytes; start a new thread' })
    const thread = (await stored(store, turn.threadId))!
    expect(thread.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
    expect(thread.head.activeRun).toBeUndefined()
  })

  it('memoryStore({ maxBytes }) evicts the least recently used threads, and refuses what cannot fit (507)', async () => {
    const store = memoryStore({ maxBytes: 4000 })
    const server = await startServer({ model: models, store })
    const a = await server.send(`hello ${big}`)
    const b = await server.send(`hello ${big}`)
    const c = await server.send(`hello ${big}`)
    await server.get(a.threadId) // a is now more recent than b
    const d = await server.send(`hello ${big}`)
    expect(await store.head(b.threadId)).toBeUndefined()
    for (const thread of [a, c, d]) expect(await store.head(thread.threadId)).toBeDefined()
    const huge = await server.post({ message: `hello ${'y'.repeat(5000)}` })
    expect(await errorOf(huge)).toMatchObject({ status: 507, error: { code: 'STORE_FULL' } })
  })

  it('GET returns a window of a long thread: the last N messages, then pages before them', async () => {
    const server = await startServer({ model: models })
    const first = await server.send('hello 0')
    for (let i = 1; i < 5; i++) await server.send(`hello ${i}`, first.threadId) // 10 messages
    const whole = await server.get(first.threadId)
    expect(whole.window).toBeUndefined()
    expect(whole.messages).toHaveLength(10)

    const read = async (query: string): Promise<ThreadSnapshot> => (await fetch(`${server.url}?threadId=${first.threadId}&${query}`)).json()
    const last = await read('limit=3')
    expect(last.window).toEqual({ from: 7, total: 10 })
    expect(last.messages).toEqual(whole.messages.slice(7))
    const page = await read('limit=4&before=7')
    expect(page.window).toEqual({ from: 3, total: 10 })
    expect(page.messages).toEqual(whole.messages.slice(3, 7))
    const start = await read('limit=4&before=2')
    expect(start.messages).toEqual(whole.messages.slice(0, 2))

    const bad = await fetch(`${server.url}?threadId=${first.threadId}&limit=-1`)
    expect(await errorOf(bad)).toMatchObject({ status: 400, error: { code: 'INVALID_REQUEST', path: 'limit' } })
  })

  it('checks the limits when the handler is created', async () => {
    const { createChatHandler } = await import('@toolgate/ai/server')
    expect(() => createChatHandler({ model, limits: { maxMessageBytes: 10, maxThreadBytes: 5 } })).toThrow(/limits.maxMessageBytes/)
    expect(() => memoryStore({ maxBytes: 0 })).toThrow(/maxBytes/)
  })
})

describe('toNodeHandler behind an Express-style body parser', () => {
  it('takes the body the parser already read from req.body', async () => {
    const { createServer } = await import('node:http')
    const { createChatHandler, toNodeHandler } = await import('@toolgate/ai/server')
    const handle = toNodeHandler(createChatHandler({ model }))
    const server = createServer((req, res) => {
      let text = ''
      req.setEncoding('utf8').on('data', (chunk) => (text += chunk))
      req.on('end', () => {
        ;(req as { body?: unknown }).body = JSON.parse(text)
        void handle(req, res)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const port = (server.address() as { port: number }).port
      const response = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello' }),
      })
      expect(response.status).toBe(200)
      expect(await response.text()).toContain('"delta":"hi"')
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})
