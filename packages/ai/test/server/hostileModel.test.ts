import { afterEach, describe, expect, it, vi } from 'vitest'
import { EventSchemas } from '@ag-ui/core/schemas'
import type { ChatModel, ModelRequest } from '@toolgate/ai/server'
import { transferDef, weatherDef } from './fixtures.ts'
import { closeAll, startServer } from './helpers/server.ts'

afterEach(closeAll)

// Adversarial: a model (or a buggy adapter) that yields what the contract does not allow, and
// arguments built to overflow the stack of whatever walks them.

/** A model that yields the given chunks, one list per model call, unchecked by any type. */
function hostileModel(...steps: unknown[][]): ChatModel & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  return {
    requests,
    async *stream(request) {
      requests.push(request)
      const chunks = steps[requests.length - 1] ?? [{ type: 'text-delta', delta: 'done' }, { type: 'finish', reason: 'stop' }]
      for (const chunk of chunks) yield chunk as never
    },
  }
}

function nested(depth: number): string {
  return `{"city":${'['.repeat(depth)}${']'.repeat(depth)}}`
}

function toolCall(args: string): unknown[] {
  return [
    { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'get_weather' },
    { type: 'tool-call-delta', toolCallId: 'call_1', delta: args },
    { type: 'tool-call-end', toolCallId: 'call_1' },
    { type: 'finish', reason: 'tool_calls' },
  ]
}

describe('malformed model chunks', () => {
  it.each([
    ['a number as a text delta', { type: 'text-delta', delta: 123 }, '`delta` of a "text-delta" chunk must be a string'],
    ['a reasoning delta without its text', { type: 'reasoning-delta' }, '`delta` of a "reasoning-delta" chunk must be a string'],
    ['an argument delta without its call id', { type: 'tool-call-delta', delta: '{' }, '`toolCallId` of a "tool-call-delta" chunk must be a string'],
    ['a number as an argument delta', { type: 'tool-call-delta', toolCallId: 'c1', delta: 1 }, '`delta` of a "tool-call-delta" chunk must be a string'],
    ['an unknown chunk type', { type: 'image-delta', data: 'x' }, 'unknown chunk type "image-delta"'],
    ['a tool call without a name', { type: 'tool-call-start', toolCallId: 'c1', toolName: '' }, '`toolName` of a "tool-call-start" chunk must be a non-empty string'],
    ['null', null, 'not an object'],
    ['an unknown finish reason', { type: 'finish', reason: 'done' }, 'unknown finish reason "done"'],
  ])('ends the run with a safe RUN_ERROR on %s, and reports the chunk', async (_, chunk, problem) => {
    const onError = vi.fn()
    const model = hostileModel([{ type: 'text-delta', delta: 'ok' }, chunk, { type: 'text-delta', delta: 'never' }])
    const server = await startServer({ model, onError })
    const turn = await server.send('hi')

    expect(turn.events.at(-1)).toEqual({ type: 'RUN_ERROR', code: 'MODEL_ERROR', message: 'The model failed; see the server log' })
    for (const event of turn.events) expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true)
    expect(turn.text).toBe('ok')
    const { messages } = await server.get(turn.threadId)
    expect(messages.map((m) => [m.role, m.content])).toEqual([['user', 'hi'], ['assistant', 'ok']])

    expect(onError).toHaveBeenCalledTimes(1)
    const [error, scope] = onError.mock.calls[0]!
    expect(scope).toMatchObject({ source: 'run', threadId: turn.threadId })
    expect(error.cause).toMatchObject({ code: 'MALFORMED_MODEL_CHUNK', message: `The model yielded a malformed chunk: ${problem}`, chunk })
  })
})

describe('deeply nested JSON', () => {
  it.each([5_000, 100_000])('refuses model arguments nested %i deep before the tool runs, and the turn goes on', async (depth) => {
    const execute = vi.fn(async ({ city }: { city: string }) => ({ city, tempC: 1 }))
    const model = hostileModel(toolCall(nested(depth)))
    const server = await startServer({ model, tools: [weatherDef.server(execute)] })
    const turn = await server.send('weather')

    expect(execute).not.toHaveBeenCalled()
    expect(turn.results[0]).toMatchObject({
      metadata: { status: 'error' },
      content: 'The arguments of tool "get_weather" are nested deeper than the limit of 64 levels; send one JSON object.',
    })
    expect(turn.finished?.outcome).toEqual({ type: 'success' })
    expect(model.requests[1]!.messages.find((m) => m.role === 'tool')).toMatchObject({ status: 'error', content: expect.stringContaining('limit of 64 levels') })
    expect((await server.get(turn.threadId)).status).toBe('idle')
  })

  it('refuses an answer nested 5,000 deep with a 400 naming the limit; the interrupt stays answerable', async () => {
    const execute = vi.fn(async () => ({ receipt: 'r-1' }))
    const model = hostileModel([
      { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'transfer_money' },
      { type: 'tool-call-delta', toolCallId: 'call_1', delta: '{"to":"Bob","amount":500}' },
      { type: 'tool-call-end', toolCallId: 'call_1' },
      { type: 'finish', reason: 'tool_calls' },
    ])
    const server = await startServer({ model, tools: [transferDef.server(execute)] })
    const first = await server.send('pay Bob')
    const interruptId = first.interrupts[0]!.id

    const deep = `{"threadId":"${first.threadId}","resume":[{"interruptId":"${interruptId}","approved":true,"editedArgs":{"to":${'['.repeat(5000)}${']'.repeat(5000)},"amount":500}}]}`
    const refused = await server.post(deep)
    expect(refused.status).toBe(400)
    expect(await refused.json()).toEqual({ error: { code: 'JSON_TOO_DEEP', message: 'The body nests deeper than the limit of 64 levels' } })
    expect(execute).not.toHaveBeenCalled()

    const approved = await server.resume(first.threadId, [{ interruptId, approved: true }])
    expect(approved.finished?.outcome).toEqual({ type: 'success' })
    expect(execute).toHaveBeenCalledTimes(1)
  })

  it('accepts brackets inside strings: only structure counts', async () => {
    const execute = vi.fn(async ({ city }: { city: string }) => ({ city, tempC: 1 }))
    const model = hostileModel(toolCall(JSON.stringify({ city: '['.repeat(200) + '"\\' })))
    const server = await startServer({ model, tools: [weatherDef.server(execute)] })
    const turn = await server.send('weather')
    expect(turn.results[0]!.metadata.status).toBe('success')
    expect(execute).toHaveBeenCalledWith({ city: '['.repeat(200) + '"\\' }, expect.anything())
  })
})
