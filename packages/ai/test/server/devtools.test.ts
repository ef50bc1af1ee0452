import { afterEach, describe, expect, it, vi } from 'vitest'
import { createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import type { DevtoolsSnapshot } from '@toolgate/ai/protocol'
import { transferDef, weatherTool } from './fixtures.ts'
import { closeAll, errorOf, startServer } from './helpers/server.ts'

afterEach(closeAll)
afterEach(() => vi.unstubAllEnvs())

const model = scriptedModel([
  { when: /weather/, call: () => ({ tool: 'get_weather', input: { city: 'Paris' } }), then: () => 'Mild.' },
  { when: /send (\d+)/, call: (m) => ({ tool: 'transfer_money', input: { to: 'Bob', amount: Number(m[1]) } }), then: ([r]) => `transfer: ${r.status}` },
])
const tools = [weatherTool, transferDef.server(() => ({ receipt: 'r' }))]

async function devtools(url: string, threadId: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}?threadId=${encodeURIComponent(threadId)}&devtools`, { headers })
}

describe('devtools route (GET ?threadId=&devtools)', () => {
  it('serves nothing unless the handler was created with devtools: true', async () => {
    const server = await startServer({ model, tools })
    const turn = await server.send('weather')
    expect(await errorOf(await devtools(server.url, turn.threadId))).toMatchObject({ status: 404, error: { code: 'DEVTOOLS_DISABLED' } })
  })

  it('shows the thread as stored: messages, runs with timestamped events, the pending approval with its expiry', async () => {
    const server = await startServer({ model, tools, devtools: true, limits: { interruptTtlMs: 60_000 } })
    const first = await server.send('weather')
    const paused = await server.send('send 500', first.threadId)
    const response = await devtools(server.url, first.threadId)
    expect(response.status).toBe(200)
    const snapshot = (await response.json()) as DevtoolsSnapshot

    expect(snapshot).toMatchObject({ threadId: first.threadId, status: 'interrupted', store: 'memory' })
    expect(snapshot.lease).toBeUndefined() // no run holds the thread while it waits
    expect(snapshot.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user'])
    expect(snapshot.runs.map((run) => run.kind)).toEqual(['message', 'message'])
    const [, pausedRun] = snapshot.runs
    expect(pausedRun!.ended).toBe(true)
    expect(pausedRun!.events.map(({ event }) => event.type)).toEqual(paused.types)
    for (const { event } of pausedRun!.events) expect(event.timestamp).toEqual(expect.any(Number))
    const [interrupt] = snapshot.step!.interrupts
    expect(interrupt).toMatchObject({ id: paused.interrupts[0]!.id, reason: 'tool_approval', toolName: 'transfer_money', askedAt: expect.any(Number), expiresAt: expect.any(String) })
    expect(Date.parse(interrupt!.expiresAt!) - interrupt!.askedAt!).toBe(60_000)
    expect(interrupt!.answer).toBeUndefined()
  })

  it('reads through authorize, like any read', async () => {
    const server = await startServer({ model, tools, devtools: true, authorize: (request) => request.headers.get('x-user') === 'ana' })
    const turn = await server.send('weather', undefined, { 'x-user': 'ana' })
    expect((await devtools(server.url, turn.threadId, { 'x-user': 'ana' })).status).toBe(200)
    expect(await errorOf(await devtools(server.url, turn.threadId, { 'x-user': 'eve' }))).toMatchObject({ status: 403, error: { code: 'FORBIDDEN' } })
  })

  it('is refused at startup when NODE_ENV is production, unless allowed explicitly', () => {
    vi.stubEnv('NODE_ENV', 'production')
    expect(() => createChatHandler({ model, devtools: true })).toThrow(/devtools.*production/)
    expect(() => createChatHandler({ model, devtools: { allowInProduction: true } })).not.toThrow()
  })

  it.each(['Production', 'PRODUCTION', 'production ', ' production\n'])('is refused for any spelling of production (NODE_ENV=%j), unless allowed explicitly', (spelling) => {
    vi.stubEnv('NODE_ENV', spelling)
    expect(() => createChatHandler({ model, devtools: true })).toThrow(/devtools.*production/)
    expect(() => createChatHandler({ model, devtools: { allowInProduction: true } })).not.toThrow()
  })
})
