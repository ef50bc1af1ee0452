import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { InvalidOptionError, toolDefinition } from '@toolgate/ai'
import { type ChatMiddleware, type ChatModel, createChatHandler, MiddlewareError, type ModelRequest, refuseToolCall } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { closeAll, startServer } from './helpers/server.ts'

afterEach(closeAll)

const lookup = toolDefinition({
  name: 'lookup_customer',
  description: 'Looks a customer up',
  inputSchema: v.object({ email: v.pipe(v.string(), v.email()) }),
  outputSchema: v.object({ email: v.string(), apiToken: v.string() }),
})

function setup(middleware: readonly ChatMiddleware[]) {
  const requests: ModelRequest[] = []
  const ran: unknown[] = []
  const errors: unknown[] = []
  const inner = scriptedModel([
    { when: /find (\S+)/, call: (m) => ({ tool: 'lookup_customer', input: { email: m[1]! } }), then: ([r]) => `Result: ${r.content}` },
    { when: /hello/, reply: 'Hello there, friend.' },
  ])
  const model: ChatModel = { stream: (request) => (requests.push(request), inner.stream(request)) }
  const tool = lookup.server(({ email }) => (ran.push(email), { email, apiToken: 'sk-live-123' }))
  const start = () => startServer({ model, tools: [tool], middleware, onError: (error) => void errors.push(error) })
  return { requests, ran, errors, start }
}

describe('middleware', () => {
  it('runs model request hooks in registration order; undefined keeps the value', async () => {
    const seen: string[] = []
    const { requests, start } = setup([
      { name: 'first', modelRequest: ({ messages }) => (seen.push(`first:${messages.length}`), { messages: [...messages, { role: 'user', id: 'm-hint', content: 'Be brief.' }] }) },
      { name: 'second', modelRequest: ({ messages }) => void seen.push(`second:${messages.length}`) },
      { name: 'third', modelRequest: ({ tools }) => (seen.push(`third:${tools.length}`), { tools: [] }) },
    ])
    const server = await start()
    await server.send('hello')
    expect(seen).toEqual(['first:1', 'second:2', 'third:1'])
    expect(requests[0]!.messages.map((message) => message.content)).toEqual(['hello', 'Be brief.'])
    expect(requests[0]!.tools).toEqual([])
  })

  it('replaces a completed model response before it is stored', async () => {
    const { start } = setup([{ modelResponse: (message) => ({ ...message, content: message.content.replace('friend', '[name]') }) }])
    const server = await start()
    const turn = await server.send('hello')
    const { messages } = await server.get(turn.threadId)
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello there, [name].' })
  })

  it('rewrites tool input (validated again) and refuses calls', async () => {
    const rewrite = setup([{ toolInput: ({ input }) => ({ email: (input as { email: string }).email.toLowerCase() }) }])
    const server = await rewrite.start()
    await server.send('find ADA@Example.com')
    expect(rewrite.ran).toEqual(['ada@example.com'])

    const refuse = setup([
      { toolInput: ({ input }) => ((input as { email: string }).email.endsWith('@blocked.test') ? refuseToolCall('This customer may not be looked up.') : undefined) },
    ])
    const other = await refuse.start()
    const turn = await other.send('find eve@blocked.test')
    expect(refuse.ran).toEqual([])
    expect(turn.results[0]).toMatchObject({ content: 'This customer may not be looked up.' })
    expect(turn.text).toBe('Result: This customer may not be looked up.')
  })

  it('redacts tool output before it is streamed, stored and read by the model', async () => {
    const redact: ChatMiddleware = {
      name: 'redact-secrets',
      toolOutput: ({ output }) => JSON.parse(JSON.stringify(output).replace(/sk-live-[\w-]+/g, '[redacted]')),
    }
    const { requests, start } = setup([redact])
    const server = await start()
    const turn = await server.send('find ada@example.com')
    expect(turn.results[0]!.content).toBe('{"email":"ada@example.com","apiToken":"[redacted]"}')
    expect(JSON.stringify(await server.get(turn.threadId))).not.toContain('sk-live')
    expect(JSON.stringify(requests.at(-1)!.messages)).not.toContain('sk-live')
  })

  it('ends the run with a safe RUN_ERROR when a hook throws, before the model is called', async () => {
    const { requests, errors, start } = setup([{ name: 'audit', modelRequest: () => { throw new Error('audit db at 10.0.0.7 is down') } }])
    const server = await start()
    const turn = await server.send('hello')
    expect(requests).toEqual([])
    expect(turn.events.at(-1)).toEqual({ type: 'RUN_ERROR', code: 'INTERNAL', message: 'The chat run failed; see the server log' })
    expect(errors[0]).toBeInstanceOf(MiddlewareError)
    expect(errors[0]).toMatchObject({ hook: 'modelRequest', message: 'Middleware "audit" failed in `modelRequest`: audit db at 10.0.0.7 is down' })
    expect(await server.get(turn.threadId)).toMatchObject({ status: 'idle' })
  })

  it('ends the run when a replacement fails the schema; the output is withheld, never leaked', async () => {
    const { requests, errors, start } = setup([{ name: 'bad', toolOutput: () => ({ email: 42 }) }])
    const server = await start()
    const turn = await server.send('find ada@example.com')
    expect(turn.results[0]).toMatchObject({ content: 'The result of tool "lookup_customer" was withheld: the server failed to process it' })
    expect(turn.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'INTERNAL' })
    expect((errors[0] as MiddlewareError).message).toMatch(/^Middleware "bad" failed in `toolOutput`: its replacement fails the tool's schema/)
    expect(requests).toHaveLength(1) // the model never saw the step's result
    const { messages, status } = await server.get(turn.threadId)
    expect(status).toBe('idle')
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool'])
    expect(JSON.stringify(messages)).not.toContain('sk-live')

    const input = setup([{ toolInput: () => ({ email: 'not an email' }) }])
    const other = await input.start()
    const failed = await other.send('find ada@example.com')
    expect(input.ran).toEqual([])
    expect(failed.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'INTERNAL' })
    expect(input.errors[0]).toMatchObject({ hook: 'toolInput' })
  })

  it('checks the option at startup', () => {
    const model = scriptedModel([])
    expect(() => createChatHandler({ model, middleware: {} as never })).toThrow(InvalidOptionError)
    expect(() => createChatHandler({ model, middleware: [{ toolOutput: 'x' as never }] })).toThrow('createChatHandler: `middleware[0].toolOutput` must be a function')
  })
})
