import { request as httpRequest } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { scriptedModel } from '@toolgate/ai/server'
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

  it('accepts the default 1 MB', async () => {
    const server = await startServer({ model })
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
