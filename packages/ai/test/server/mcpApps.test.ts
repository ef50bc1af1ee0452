import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import type { ChatModel } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { closeAll, errorOf, readTurn, startServer, type TestServer } from './helpers/server.ts'
import { locationDef } from './fixtures.ts'

// An MCP App hosted in the chat: the run tells which calls render one (AG-UI's ACTIVITY_SNAPSHOT),
// the endpoint serves a call's app from its tool, and the app's own `tools/call` goes through the
// thread: approved by a person when the tool asks, recorded, refused when forged.

afterEach(closeAll)

const ROOMS_HTML = '<!doctype html><p>rooms</p>'

const roomsDef = toolDefinition({
  name: 'show_rooms',
  description: 'Shows the free rooms in an app',
  inputSchema: v.object({ day: v.string() }),
  outputSchema: v.object({ rooms: v.array(v.string()) }),
  app: { uri: 'ui://rooms/view.html', html: ROOMS_HTML, csp: { connectDomains: ['https://rooms.example'] }, prefersBorder: true },
})

const bookDef = toolDefinition({
  name: 'book_room',
  description: 'Books a room',
  inputSchema: v.object({ room: v.string() }),
  outputSchema: v.object({ booked: v.string() }),
  needsApproval: true,
})

/** A tool whose app is the model's alone: no app may call it. */
const auditDef = toolDefinition({
  name: 'audit_log',
  description: 'Reads the audit log',
  app: { uri: 'ui://audit/view.html', html: '<p>audit</p>', visibility: ['model'] },
})

function counting(model: ChatModel): ChatModel & { calls: number } {
  const counted = { ...model, calls: 0 } as ChatModel & { calls: number }
  counted.stream = (request) => (counted.calls++, model.stream(request))
  return counted
}

const ada = { 'x-user': 'ada' }
const eve = { 'x-user': 'eve' }

async function setup() {
  const booked: string[] = []
  const owners = new Map<string, string | null>()
  const model = counting(scriptedModel([{ when: /rooms/i, call: () => ({ tool: 'show_rooms', input: { day: 'monday' } }), then: () => 'Here they are.' }], { tools: [roomsDef] }))
  const server = await startServer({
    model,
    tools: [
      roomsDef.server(async () => ({ rooms: ['Blue', 'Red'] })),
      bookDef.server(async ({ room }) => (booked.push(room), { booked: room })),
      auditDef.server(async () => 'nothing'),
      locationDef,
    ],
    // Each user owns the threads they made.
    authorize: (request, threadId, { action }) => {
      const user = request.headers.get('x-user')
      if (action === 'create') owners.set(threadId, user)
      return owners.get(threadId) === user
    },
  })
  return { server, model, booked }
}

async function roomsTurn(server: TestServer) {
  const turn = await readTurn(await server.post({ message: 'show me the rooms' }, ada))
  expect(turn.status).toBe(200)
  const call = turn.events.find((event) => event.type === 'TOOL_CALL_START')!
  return { turn, threadId: turn.threadId, callId: call.type === 'TOOL_CALL_START' ? call.toolCallId : '' }
}

function appCall(server: TestServer, threadId: string, toolCallId: string, name: string, args: Record<string, unknown>, headers: Record<string, string> = ada) {
  return server.post({ threadId, appCall: { toolCallId, name, arguments: args } }, headers)
}

function readApp(server: TestServer, threadId: string, toolCallId: string, headers = ada) {
  return fetch(`${server.url}?threadId=${threadId}&mcpApp=${encodeURIComponent(toolCallId)}`, { headers })
}

describe('MCP Apps in a chat', () => {
  it("tells an app tool's call with AG-UI's mcp-apps activity after its result", async () => {
    const { server } = await setup()
    const { turn, callId } = await roomsTurn(server)
    const at = turn.types.indexOf('ACTIVITY_SNAPSHOT')
    expect(turn.types[at - 1]).toBe('TOOL_CALL_RESULT')
    expect(turn.events[at]).toEqual({
      type: 'ACTIVITY_SNAPSHOT',
      messageId: `mcp-app:${callId}`,
      activityType: 'mcp-apps',
      replace: true,
      content: {
        toolCallId: callId,
        toolName: 'show_rooms',
        resourceUri: 'ui://rooms/view.html',
        serverHash: 'toolgate',
        serverId: callId,
        result: { content: [{ type: 'text', text: '{"rooms":["Blue","Red"]}' }], structuredContent: { rooms: ['Blue', 'Red'] } },
        toolInput: { day: 'monday' },
      },
    })
  })

  it("serves a call's app from its tool, to a reader of the thread only", async () => {
    const { server } = await setup()
    const { threadId, callId } = await roomsTurn(server)
    const response = await readApp(server, threadId, callId)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      contents: [{ uri: 'ui://rooms/view.html', mimeType: 'text/html;profile=mcp-app', text: ROOMS_HTML, _meta: { ui: { csp: { connectDomains: ['https://rooms.example'] }, prefersBorder: true } } }],
    })
    // An unknown call, a URI instead of a call, another user: refused with their codes.
    expect(await errorOf(await readApp(server, threadId, 'call_forged'))).toMatchObject({ status: 404, error: { code: 'MCP_APP_NOT_FOUND' } })
    expect(await errorOf(await readApp(server, threadId, 'ui://rooms/view.html'))).toMatchObject({ status: 404, error: { code: 'MCP_APP_NOT_FOUND' } })
    expect(await errorOf(await readApp(server, threadId, callId, eve))).toMatchObject({ status: 403, error: { code: 'FORBIDDEN' } })
  })

  it("runs an app's call of a gated tool only once a person approves it, records it, and does not call the model", async () => {
    const { server, model, booked } = await setup()
    const { threadId, callId } = await roomsTurn(server)
    model.calls = 0
    const paused = await readTurn(await appCall(server, threadId, callId, 'book_room', { room: 'Blue' }))
    expect(paused.status).toBe(200)
    expect(paused.types).toEqual(['RUN_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'RUN_FINISHED'])
    const [interrupt] = paused.interrupts
    expect(interrupt).toMatchObject({ reason: 'tool_approval', toolName: 'book_room', input: { room: 'Blue' } })
    expect(booked).toEqual([])
    expect(await server.get(threadId, ada)).toMatchObject({ status: 'interrupted', interrupts: [{ id: interrupt!.id }] })
    // A second call while the first waits is refused: the app's calls never mix into a waiting step.
    expect(await errorOf(await appCall(server, threadId, callId, 'book_room', { room: 'Red' }))).toMatchObject({ status: 409, error: { code: 'THREAD_BUSY' } })

    const approved = await server.resume(threadId, [{ interruptId: interrupt!.id, approved: true }], ada)
    expect(approved.types).toEqual(['RUN_STARTED', 'TOOL_CALL_RESULT', 'RUN_FINISHED'])
    expect(approved.results[0]).toMatchObject({ toolCallId: interrupt!.toolCallId, content: '{"booked":"Blue"}' })
    expect(booked).toEqual(['Blue'])
    expect(model.calls).toBe(0)
    const thread = await server.get(threadId, ada)
    expect(thread.status).toBe('idle')
    expect(thread.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: interrupt!.toolCallId, status: 'success', decision: { decision: 'approved', channel: 'chat' } })
  })

  it('runs an ungated call at once and ends the run with its result', async () => {
    const { server, model } = await setup()
    const { threadId, callId } = await roomsTurn(server)
    model.calls = 0
    const turn = await readTurn(await appCall(server, threadId, callId, 'show_rooms', { day: 'tuesday' }))
    expect(turn.results.map((result) => result.content)).toEqual(['{"rooms":["Blue","Red"]}'])
    expect(turn.finished?.outcome).toEqual({ type: 'success' })
    expect(model.calls).toBe(0)
  })

  it('refuses a forged call: another thread, a tool apps may not see, a browser tool, another user', async () => {
    const { server, booked } = await setup()
    const { threadId, callId } = await roomsTurn(server)
    const other = await roomsTurn(server)
    // The view of another thread's call cannot act in this one.
    expect(await errorOf(await appCall(server, threadId, other.callId, 'book_room', { room: 'Blue' }))).toMatchObject({ status: 404, error: { code: 'MCP_APP_NOT_FOUND' } })
    expect(await errorOf(await appCall(server, threadId, 'call_forged', 'book_room', { room: 'Blue' }))).toMatchObject({ status: 404, error: { code: 'MCP_APP_NOT_FOUND' } })
    for (const name of ['audit_log', 'get_location', 'no_such_tool']) {
      expect(await errorOf(await appCall(server, threadId, callId, name, {}))).toMatchObject({ status: 403, error: { code: 'TOOL_NOT_FOR_APPS' } })
    }
    expect(await errorOf(await appCall(server, threadId, callId, 'book_room', { room: 'Blue' }, eve))).toMatchObject({ status: 403, error: { code: 'FORBIDDEN' } })
    expect(await errorOf(await server.post({ threadId, appCall: { toolCallId: callId, name: 'book_room', arguments: 'Blue' } }, ada))).toMatchObject({ status: 400, error: { code: 'INVALID_REQUEST', path: 'appCall.arguments' } })
    expect(booked).toEqual([])
    expect((await server.get(threadId, ada)).status).toBe('idle')
  })

  it("answers CopilotKit's proxied requests of a call's view: its own app only, its tools/call through the thread", async () => {
    const { server, booked } = await setup()
    const { threadId, callId } = await roomsTurn(server)
    const proxied = async (serverId: string, method: string, params: unknown) => {
      const turn = await readTurn(await server.post({ threadId, runId: 'run_proxy', messages: [], forwardedProps: { __proxiedMCPRequest: { serverHash: 'toolgate', serverId, method, params } } }, ada))
      expect(turn.types).toEqual(['RUN_STARTED', 'RUN_FINISHED'])
      return (turn.finished as { result?: unknown }).result
    }
    expect(await proxied(callId, 'resources/read', { uri: 'ui://rooms/view.html' })).toMatchObject({ contents: [{ uri: 'ui://rooms/view.html', text: ROOMS_HTML }] })
    // Another app's URI through this call's view, a forged call: refused, as MCP tells a failure.
    expect(await proxied(callId, 'resources/read', { uri: 'ui://audit/view.html' })).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('MCP_APP_NOT_FOUND') }] })
    expect(await proxied('call_forged', 'tools/call', { name: 'show_rooms', arguments: { day: 'friday' } })).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('MCP_APP_NOT_FOUND') }] })
    expect(await proxied(callId, 'tools/call', { name: 'show_rooms', arguments: { day: 'friday' } })).toEqual({ content: [{ type: 'text', text: '{"rooms":["Blue","Red"]}' }], structuredContent: { rooms: ['Blue', 'Red'] } })
    // A gated call waits for a person in the chat; the view is told so, and nothing ran.
    expect(await proxied(callId, 'tools/call', { name: 'book_room', arguments: { room: 'Blue' } })).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('approval') }] })
    expect(booked).toEqual([])
    expect(await server.get(threadId, ada)).toMatchObject({ status: 'interrupted', interrupts: [{ toolName: 'book_room' }] })
  })

  it("keeps a tool only apps may call from the model: not declared to it, and its call refused; the app's call runs", async () => {
    const refreshDef = toolDefinition({
      name: 'refresh_rooms',
      description: 'Reloads the rooms (for the view only)',
      outputSchema: v.object({ rooms: v.array(v.string()) }),
      app: { uri: 'ui://rooms/refresh.html', html: '<p>refresh</p>', visibility: ['app'] },
    })
    const declared: string[][] = []
    const scripted = scriptedModel([
      { when: /sneak/i, call: () => ({ tool: 'refresh_rooms', input: {} }), then: ([result]) => `${result?.status}: ${result?.content}` },
      { when: /rooms/i, call: () => ({ tool: 'show_rooms', input: { day: 'monday' } }), then: () => 'Here they are.' },
    ], { tools: [roomsDef, refreshDef] })
    const model: ChatModel = { ...scripted, stream: (request) => (declared.push((request.tools ?? []).map((tool) => tool.name)), scripted.stream(request)) }
    const refreshed: unknown[] = []
    const server = await startServer({ model, tools: [roomsDef.server(async () => ({ rooms: ['Blue'] })), refreshDef.server(async () => (refreshed.push(1), { rooms: ['Blue', 'Green'] }))] })
    const { threadId, callId } = await roomsTurn(server)
    expect(declared[0]).toEqual(['show_rooms'])
    const sneaky = await readTurn(await server.post({ threadId, message: 'sneak a refresh' }))
    expect(sneaky.text).toMatch(/^error: Unknown tool "refresh_rooms"\. Available tools: show_rooms\.$/)
    expect(refreshed).toEqual([])
    const fromApp = await readTurn(await appCall(server, threadId, callId, 'refresh_rooms', {}, {}))
    expect(fromApp.results.map((result) => result.content)).toEqual(['{"rooms":["Blue","Green"]}'])
    expect(refreshed).toEqual([1])
  })

  it("holds an app's call to a message's size, as a user's message is", async () => {
    const model = scriptedModel([{ when: /rooms/i, call: () => ({ tool: 'show_rooms', input: { day: 'monday' } }), then: () => 'Here they are.' }], { tools: [roomsDef] })
    const server = await startServer({ model, tools: [roomsDef.server(async () => ({ rooms: ['Blue'] }))], limits: { maxMessageBytes: 2000 } })
    const { threadId, callId } = await roomsTurn(server)
    const refused = await errorOf(await appCall(server, threadId, callId, 'show_rooms', { day: 'x'.repeat(3000) }))
    expect(refused).toMatchObject({ status: 413, error: { code: 'PAYLOAD_TOO_LARGE', path: 'appCall.arguments' } })
    expect((await server.get(threadId)).status).toBe('idle')
  })
})

