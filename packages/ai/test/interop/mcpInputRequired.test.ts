import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { createClient } from 'redis'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { createMcpHandler, createRequestStateCodec, inputRequired, inputResponse, McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import { memoryStore, toNodeHandler, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { redisStore } from '@toolgate/ai/server/redis'
import { postgresStore } from '@toolgate/ai/server/postgres'
import pg from 'pg'
import { mcpToolDefinitions } from '@toolgate/ai/interop/mcp'
import type { ToolApp } from '@toolgate/ai'
import { closeAll, startServer, type TestServer } from '../server/helpers/server.ts'
import { startRedis, type RedisServer } from '../services/redis.ts'
import { startPostgres, type PostgresServer } from '../services/postgres.ts'

// An MCP server at 2026-07-28 whose tool answers `input_required` (built with the stock
// `@modelcontextprotocol/server` 2.4, served over HTTP), imported into a chat: the request waits in
// the thread as an approval, survives a new handler instance on the same store (memory, Redis,
// PostgreSQL), and the answer
// retries the call with the server's own state, once.

afterEach(closeAll)
let prefixes = 0

/** The restaurant's MCP server: books a table once the person says for how many. */
async function bookingServer(options: { sealed?: boolean } = {}) {
  // Sealed: the state is HMAC-signed (the SDK's codec); a server restarted with a new key refuses the old state as a JSON-RPC error.
  let codec = createRequestStateCodec<string>({ key: crypto.randomUUID() + crypto.randomUUID() })
  const issued = new Map<string, { restaurant: string; seats?: number }>()
  const counts = { calls: 0, executions: 0 }
  const seen: { running?: readonly string[] } = {}
  let beforeExecute: (() => Promise<void>) | undefined
  const seats = z.object({ seats: z.number().int().min(1).max(12), note: z.string().optional() })
  const factory = () => {
    const server = new McpServer({ name: 'bistro', version: '1.0.0' }, options.sealed ? { requestState: { verify: (state, ctx) => codec.verify(state, ctx) } } : {})
    const seal = (id: string) => (options.sealed ? codec.mint(id) : id)
    server.registerTool(
      'book_table',
      { description: 'Books a table', inputSchema: z.object({ restaurant: z.string() }), _meta: { ui: { resourceUri: 'ui://bistro/booking' } } },
      async ({ restaurant }, ctx) => {
        counts.calls++
        const state = ctx.mcpReq.requestState<string>()
        if (state === undefined) {
          const id = crypto.randomUUID()
          issued.set(id, { restaurant })
          return inputRequired({
            inputRequests: { party: inputRequired.elicit({ message: `How many seats at ${restaurant}?`, requestedSchema: seats }) },
            requestState: await seal(id),
          })
        }
        const asked = issued.get(state)
        if (!asked) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown or expired request state')
        issued.delete(state)
        const answer = inputResponse(ctx.mcpReq.inputResponses, asked.seats === undefined ? 'party' : 'phone')
        if (answer.kind !== 'elicit' || answer.action !== 'accept') return { content: [{ type: 'text', text: `Not booked: the person chose ${answer.kind === 'elicit' ? answer.action : 'nothing'}` }] }
        const seatsWanted = asked.seats ?? Number(answer.content!.seats)
        if (asked.seats === undefined && seatsWanted >= 8) {
          // A large party: a second round asks for a phone number, with state of its own.
          const id = crypto.randomUUID()
          issued.set(id, { restaurant, seats: seatsWanted })
          return inputRequired({ inputRequests: { phone: inputRequired.elicit({ message: `A phone number for ${seatsWanted} people?`, requestedSchema: z.object({ phone: z.string() }) }) }, requestState: await seal(id) })
        }
        await beforeExecute?.()
        counts.executions++
        const phone = asked.seats === undefined ? '' : ` (call ${answer.content!.phone})`
        return { content: [{ type: 'text', text: `Booked ${seatsWanted} seats at ${restaurant}${phone}` }] }
      },
    )
    server.registerTool('find_files', { description: 'Finds files in the client\'s roots', inputSchema: z.object({}) }, async () => {
      counts.calls++
      return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } })
    })
    server.registerResource('booking', 'ui://bistro/booking', { mimeType: 'text/html;profile=mcp-app' }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/html;profile=mcp-app', text: '<p>book</p>', _meta: { ui: { csp: { connectDomains: ['https://api.bistro.test'], extra: 1 }, prefersBorder: true, permissions: { geolocation: {} } } } }],
    }))
    return server
  }
  const handler = createMcpHandler(factory)
  const http = createServer(toNodeHandler((request) => handler.fetch(request)))
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    counts,
    seen,
    /** The states it handed out and still knows. */
    states: () => [...issued.keys()],
    /** The server signs its state with a new key from now on (a restart without the old key). */
    rotateKey: () => (codec = createRequestStateCodec<string>({ key: crypto.randomUUID() + crypto.randomUUID() })),
    /** The server forgets every request it asked (a restart, an expiry). */
    forget: () => issued.clear(),
    onExecute: (hook: () => Promise<void>) => (beforeExecute = hook),
    close: async () => {
      await handler.close()
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    },
  }
}

type Booking = Awaited<ReturnType<typeof bookingServer>>

async function connect(url: string, fetch?: typeof globalThis.fetch) {
  const client = new Client({ name: 'toolgate', version: '1.0.0' }, { capabilities: { elicitation: { form: {} }, roots: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {}))
  return client
}

/** One chat instance: its own MCP client and handler, on a store it may share with others. */
async function instance(booking: Booking, store: ThreadStore, limits?: { interruptTtlMs: number }, fetch?: typeof globalThis.fetch): Promise<TestServer> {
  const tools = await mcpToolDefinitions(await connect(booking.url, fetch))
  const model = scriptedModel(
    [
      { when: 'book', call: () => ({ tool: 'book_table', input: { restaurant: 'Chez Nous' } }), then: ([result]) => `${result!.status}: ${result!.content}` },
      { when: 'files', call: () => ({ tool: 'find_files', input: {} }), then: ([result]) => `${result!.status}: ${result!.content}` },
    ],
    { tools },
  )
  return startServer({ model, tools, store, devtools: true, ...(limits ? { limits } : {}) })
}

async function asked(chat: TestServer) {
  const turn = await chat.send('book a table')
  expect(turn.finished?.outcome.type, JSON.stringify(turn.results)).toBe('interrupt')
  expect(turn.interrupts).toHaveLength(1)
  return { threadId: turn.threadId, interrupt: turn.interrupts[0]!, turn }
}

describe.each([['memory'], ['redis'], ['postgres']] as const)('an imported tool that answers input_required (%s store)', (name) => {
  let booking: Booking
  /** The stores of one test's instances: each a new instance's view of one shared store. */
  let storeOf: () => ThreadStore | Promise<ThreadStore>
  beforeEach(() => {
    if (name === 'memory') {
      const store = memoryStore()
      storeOf = () => store
    } else if (name === 'redis') {
      const prefix = `mcp-input-${prefixes++}:`
      storeOf = () => redisStoreOn(prefix)
    } else {
      const table = `mcpinput${prefixes++}`
      let made = false
      storeOf = async () => {
        const pool = new pg.Pool({ connectionString: postgres.connectionString, max: 4 })
        closers.push(() => pool.end())
        const store = postgresStore({ pool, table })
        if (!made) await store.ensureSchema()
        made = true
        return store
      }
    }
  })
  afterEach(async () => {
    await booking?.close()
  })
  const fresh = async () => storeOf()

  it('waits in the thread as an approval whose form is the request, and completes once on a second instance', async () => {
    booking = await bookingServer()
    const first = await instance(booking, await fresh())
    const { threadId, interrupt, turn } = await asked(first)
    expect(interrupt).toMatchObject({ reason: 'tool_approval', toolName: 'book_table', message: 'How many seats at Chez Nous?', input: {} })
    const form = (interrupt.responseSchema as { $defs: { input: { properties: Record<string, unknown>; required: string[] } } }).$defs.input
    expect(Object.keys(form.properties)).toEqual(['seats', 'note'])
    expect(form.required).toEqual(['seats'])
    expect(interrupt.metadata).not.toHaveProperty('grantable')
    expect(booking.counts).toEqual({ calls: 1, executions: 0 })
    // The server's state stays on the server: no stream or snapshot carries it.
    const snapshot = await first.get(threadId)
    const devtools = await (await fetch(`${first.url}?threadId=${threadId}&devtools`)).json()
    expect(devtools.step.interrupts[0].inputRequest.state).toBe('[kept on the server]')
    const [state] = booking.states()
    expect(state).toBeDefined()
    expect(JSON.stringify([turn.events, snapshot, devtools])).not.toContain(state)
    expect(snapshot.interrupts?.[0]?.id).toBe(interrupt.id)

    // Restart: a new handler and MCP client on the same store.
    await first.close()
    const second = await instance(booking, await fresh())
    const running: string[][] = []
    booking.onExecute(async () => {
      running.push([...((await (await fresh()).head(threadId))?.step?.running ?? [])])
    })
    const done = await second.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { seats: 4 } }])
    expect(done.results.map((result) => JSON.parse(result.content))).toEqual(['Booked 4 seats at Chez Nous'])
    expect(done.text).toBe('success: "Booked 4 seats at Chez Nous"')
    expect(booking.counts).toEqual({ calls: 2, executions: 1 })
    // The retry ran only once the call was stored as running: a crash before our commit reports it, never runs it again.
    expect(running).toEqual([[interrupt.toolCallId]])

    // The same answer again is refused, and runs nothing.
    const again = await second.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { seats: 4 } }])
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ error: { code: 'INTERRUPT_ALREADY_ANSWERED' } })
    expect(booking.counts.executions).toBe(1)
    const stored = await second.get(threadId)
    expect(stored.messages.filter((message) => message.role === 'tool')).toHaveLength(1)
    // The call's MCP App, as a host reads it through the chat: from the MCP server, with its _meta.ui.
    const app = await (await fetch(`${second.url}?threadId=${threadId}&mcpApp=${interrupt.toolCallId}`)).json()
    expect(app).toEqual({
      contents: [{ uri: 'ui://bistro/booking', mimeType: 'text/html;profile=mcp-app', text: '<p>book</p>', _meta: { ui: { csp: { connectDomains: ['https://api.bistro.test'] }, permissions: { geolocation: {} }, prefersBorder: true } } }],
    })
  })

  it('refuses answers that do not fill the form, and answers from another thread, typed, keeping the request open', async () => {
    booking = await bookingServer()
    const chat = await instance(booking, await fresh())
    const { threadId, interrupt } = await asked(chat)
    const other = await asked(chat)
    for (const editedArgs of [{ seats: 'four' }, { seats: 40 }, { tables: 2, seats: 2 }, {}]) {
      const refused = await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs }])
      expect(refused.status, JSON.stringify(editedArgs)).toBe(422)
      expect(refused.body).toMatchObject({ error: { code: 'INVALID_EDITED_ARGS' } })
    }
    // Approving without filling the required field is no answer either.
    expect((await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true }])).body).toMatchObject({ error: { code: 'INVALID_EDITED_ARGS' } })
    // A grant would allow later calls: an answer to one request cannot.
    expect((await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { seats: 2 }, grant: { scope: 'thread' } } as never])).body).toMatchObject({ error: { code: 'ANSWER_MISMATCH' } })
    // Another thread's interrupt is not this thread's.
    const forged = await chat.resume(threadId, [{ interruptId: other.interrupt.id, approved: true, editedArgs: { seats: 2 } }])
    expect(forged.status).toBe(404)
    expect(forged.body).toMatchObject({ error: { code: 'INTERRUPT_NOT_FOUND' } })
    expect(booking.counts).toEqual({ calls: 2, executions: 0 })

    const done = await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { seats: 2, note: 'window' } }])
    expect(done.results.map((result) => JSON.parse(result.content))).toEqual(['Booked 2 seats at Chez Nous'])
    expect(booking.counts.executions).toBe(1)
  })

  it('asks again when the server needs a second answer, and completes once', async () => {
    booking = await bookingServer()
    const chat = await instance(booking, await fresh())
    const { threadId, interrupt } = await asked(chat)
    const second = await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { seats: 9 } }])
    expect(second.finished?.outcome.type).toBe('interrupt')
    expect(second.results).toEqual([])
    const [phone] = second.interrupts
    expect(phone).toMatchObject({ toolCallId: interrupt.toolCallId, message: 'A phone number for 9 people?' })
    expect(phone!.id).not.toBe(interrupt.id)
    expect(booking.counts).toEqual({ calls: 2, executions: 0 })
    const done = await chat.resume(threadId, [{ interruptId: phone!.id, approved: true, editedArgs: { phone: '+33 1 23 45 67 89' } }])
    expect(done.results.map((result) => JSON.parse(result.content))).toEqual(['Booked 9 seats at Chez Nous (call +33 1 23 45 67 89)'])
    expect(booking.counts).toEqual({ calls: 3, executions: 1 })
    // The first request's answer is spent.
    expect((await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { seats: 9 } }])).body).toMatchObject({ error: { code: 'INTERRUPT_ALREADY_ANSWERED' } })
  })

  it('sends nothing to the server when the person moves on, or answers too late', async () => {
    booking = await bookingServer()
    const chat = await instance(booking, await fresh(), { interruptTtlMs: 60_000 })
    const { threadId, interrupt } = await asked(chat)
    expect(interrupt.expiresAt).toBeDefined()
    const next = await chat.send('hello', threadId)
    expect(next.status).toBe(200)
    const stored = await chat.get(threadId)
    expect(stored.messages.find((message) => message.role === 'tool')).toMatchObject({ toolCallId: interrupt.toolCallId, status: 'cancelled' })
    expect(booking.counts).toEqual({ calls: 1, executions: 0 })

    const late = await asked(chat)
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(Date.parse(late.interrupt.expiresAt!) + 1)
      const refused = await chat.resume(late.threadId, [{ interruptId: late.interrupt.id, approved: true, editedArgs: { seats: 2 } }])
      expect(refused.body).toMatchObject({ error: { code: 'INTERRUPT_EXPIRED' } })
    } finally {
      vi.useRealTimers()
    }
    expect(booking.counts).toEqual({ calls: 2, executions: 0 })
  })

  it('fails the call, saying what, when the server asks for something no person answers (roots)', async () => {
    booking = await bookingServer()
    const chat = await instance(booking, await fresh())
    const turn = await chat.send('find files')
    expect(turn.finished?.outcome.type).toBe('success')
    expect(turn.results[0]).toMatchObject({ metadata: { status: 'error' } })
    expect(turn.results[0]!.content).toBe('Tool "find_files" failed: The MCP server asked for `roots/list` before tool "find_files" can finish, which the import cannot ask a person for; the call did not complete')
  })

  it('sends a denial as decline, for the server to answer', async () => {
    booking = await bookingServer()
    const chat = await instance(booking, await fresh())
    const { threadId, interrupt } = await asked(chat)
    const done = await chat.resume(threadId, [{ interruptId: interrupt.id, approved: false, reason: 'not tonight' }])
    expect(done.results.map((result) => [JSON.parse(result.content), result.metadata?.status])).toEqual([['Not booked: the person chose decline', 'success']])
    expect(booking.counts).toEqual({ calls: 2, executions: 0 })
  })

  it('ends with an error the model reads when the server forgot its request', async () => {
    booking = await bookingServer()
    const chat = await instance(booking, await fresh())
    const { threadId, interrupt } = await asked(chat)
    booking.forget()
    const done = await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { seats: 2 } }])
    expect(done.results).toHaveLength(1)
    expect(done.results[0]).toMatchObject({ metadata: { status: 'error' } })
    expect(done.results[0]!.content).toBe('Tool "book_table" failed: Unknown or expired request state')
    expect(done.text).toMatch(/^error: /)
    expect(booking.counts.executions).toBe(0)
  })

  it('says the call may have taken effect when the answer reached the server and its result did not come back, and sends it once', async () => {
    booking = await bookingServer()
    let calls = 0
    // The connection drops after the server has the answer: the retry's response never arrives.
    const dropping: typeof globalThis.fetch = async (input, init) => {
      const response = await fetch(input, init)
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"') && ++calls === 2) {
        await response.text()
        throw new TypeError('fetch failed')
      }
      return response
    }
    const chat = await instance(booking, await fresh(), undefined, dropping)
    const { threadId, interrupt } = await asked(chat)
    const done = await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { seats: 3 } }])
    expect(done.results[0]).toMatchObject({ metadata: { status: 'error' } })
    expect(done.results[0]!.content).toMatch(/^Tool "book_table" failed: The answer to the MCP server's request for input was sent, but no result came back \(.*\); the call may have taken effect$/)
    expect(booking.counts).toEqual({ calls: 2, executions: 1 })
  })

  it('ends with the server\'s refusal when it no longer accepts its own state (signed with a key it lost)', async () => {
    booking = await bookingServer({ sealed: true })
    const chat = await instance(booking, await fresh())
    const { threadId, interrupt } = await asked(chat)
    booking.rotateKey()
    const done = await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { seats: 2 } }])
    expect(done.results[0]).toMatchObject({ metadata: { status: 'error' } })
    expect(done.results[0]!.content).toMatch(/^Tool "book_table" failed: The MCP server refused the answer to its request for input \(.+\); the call did not complete$/)
    expect(booking.counts).toEqual({ calls: 1, executions: 0 })
  })
})

let redis: RedisServer
let postgres: PostgresServer
const redisClients: { quit(): Promise<unknown> }[] = []
const closers: (() => Promise<unknown>)[] = []
beforeAll(async () => {
  ;[redis, postgres] = await Promise.all([startRedis(), startPostgres()])
}, 60_000)
afterAll(async () => {
  for (const client of redisClients) await client.quit().catch(() => {})
  for (const close of closers) await close().catch(() => {})
  await redis?.stop()
  await postgres?.stop()
})
/** One instance's store: its own connections, on the prefix the test's instances share. */
async function redisStoreOn(prefix: string): Promise<ThreadStore> {
  const client = await createClient({ url: redis.url }).connect()
  const subscriber = await client.duplicate().connect()
  redisClients.push(client, subscriber)
  return redisStore({ client, subscriber, prefix })
}

describe('the imported tool keeps its MCP App', () => {
  it('reads the resource from its server, with _meta.ui mapped', async () => {
    const booking = await bookingServer()
    try {
      const [tool] = await mcpToolDefinitions(await connect(booking.url))
      expect(tool!.app).toMatchObject({ uri: 'ui://bistro/booking', visibility: ['model', 'app'] })
      expect(await (tool!.app as ToolApp).read()).toEqual({ html: '<p>book</p>', csp: { connectDomains: ['https://api.bistro.test'] }, permissions: { geolocation: {} }, prefersBorder: true })
    } finally {
      await booking.close()
    }
  })
})

