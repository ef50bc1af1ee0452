import { afterEach, describe, expect, it } from 'vitest'
import { HttpAgent } from '@ag-ui/client'
import type { BaseEvent } from '@ag-ui/core'
import { EventSchemas } from '@ag-ui/core/schemas'
import { type ChatHandlerOptions, type ChatModel, memoryStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { createChatClient, type ChatMessage } from '@toolgate/ai/client'
import { closeAll, startServer } from '../server/helpers/server.ts'

// A stock AG-UI client reading what a reader gets by `GET ?threadId=&runId=` + `Accept: text/event-stream`
// when the run it follows died (its instance was killed, its lease lapsed): the dead run's logged
// events, then the run that continues the turn. The client's verifier takes no `RUN_STARTED` inside
// a run that never finished, so the dead run must be ended in the stream first.

afterEach(closeAll)

/** A stock `HttpAgent` that follows a thread's run by GET instead of posting a run input. */
class Follower extends HttpAgent {
  protected override requestInit(): RequestInit {
    return { method: 'GET', headers: { accept: 'text/event-stream' }, signal: this.abortController.signal }
  }
}

const LEASE_MS = 1000
/** Who may write, when the server asks (`authorize`); any other reader may only read. */
const WRITER = { 'x-user': 'ada' }

function counting(model: ChatModel): ChatModel & { calls: number } {
  const counted = { ...model, calls: 0 } as ChatModel & { calls: number }
  counted.stream = (request) => (counted.calls++, model.stream(request))
  return counted
}

/**
 * What an instance killed mid-run leaves: the user's message waiting for a reply, the run's events
 * logged up to the kill (`logged`, after its RUN_STARTED), a lease no one renews (lapsed, or
 * lapsing `leaseLeftMs` from now: until then the thread reads as running).
 */
async function deadRun(logged: (threadId: string) => readonly object[], { leaseLeftMs = -10 * LEASE_MS, authorize }: Pick<ChatHandlerOptions, 'authorize'> & { leaseLeftMs?: number } = {}) {
  const store = memoryStore()
  const model = counting(scriptedModel([{ when: /.*/, reply: 'Hello there.' }]))
  const server = await startServer({ model, store, authorize, limits: { runLeaseMs: LEASE_MS, toolTimeoutMs: LEASE_MS / 2 } })
  const { threadId } = await server.send('hello', undefined, WRITER)
  const head = (await store.head(threadId))!
  const lapsed = Date.now() - LEASE_MS + leaseLeftMs
  const user = { role: 'user' as const, id: 'msg_waiting', content: 'hello again' }
  const activeRun = { runId: 'run_dead', startedAt: lapsed, renewedAt: lapsed, fromMessage: head.messageCount + 1 }
  expect(await store.commit({ head: { ...head, version: head.version + 1, messageCount: head.messageCount + 1, activeRun }, append: [user] })).toBe(true)
  const events = [{ type: 'RUN_STARTED', threadId, runId: 'run_dead' }, ...logged(threadId)]
  await store.events!.append('run_dead', events.map((event, i) => ({ seq: i + 1, data: JSON.stringify(event) })), false)
  model.calls = 0
  return { server, model, threadId }
}

/** Follows the dead run (as a page that read the thread running attaches) with a stock client; every event it got is checked against @ag-ui/core. */
async function follow(url: string, threadId: string) {
  const agent = new Follower({ url: `${url}?threadId=${threadId}&runId=run_dead`, threadId })
  const events: BaseEvent[] = []
  await agent.runAgent({}, {
    onEvent: ({ event }) => {
      expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true)
      events.push(event)
    },
  })
  return { agent, events, types: events.map((event) => event.type) }
}

/** What a run that died mid-text had logged: a message started, half its text. */
const MID_TEXT = [
  { type: 'TEXT_MESSAGE_START', messageId: 'msg_half', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'msg_half', delta: 'Half a rep' },
]

/** What a run that died mid-tool-call had logged: its step's text, then a call's first argument bytes. */
const MID_TOOL_CALL = [
  { type: 'TEXT_MESSAGE_START', messageId: 'msg_step', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'msg_step', delta: 'Let me look.' },
  { type: 'TEXT_MESSAGE_END', messageId: 'msg_step' },
  { type: 'TOOL_CALL_START', toolCallId: 'call_half', toolCallName: 'get_weather', parentMessageId: 'msg_step' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'call_half', delta: '{"ci' },
]

const runIds = (events: readonly BaseEvent[], type: string) => events.filter((event) => event.type === type).map((event) => (event as unknown as { runId: string }).runId)

describe('a stock AG-UI client following by GET a run whose instance died', () => {
  it('mid-text: the dead run ends (its text closed) before the run that continues the turn, which it follows to its end', async () => {
    const { server, model, threadId } = await deadRun(() => MID_TEXT)
    const { agent, events, types: eventTypes } = await follow(server.url, threadId)
    const types: string[] = eventTypes
    const deadEnd = types.indexOf('RUN_FINISHED')
    expect(types.slice(0, deadEnd + 1)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED'])
    expect(events[deadEnd - 1]).toMatchObject({ messageId: 'msg_half' })
    expect(runIds(events, 'RUN_STARTED')).toEqual(['run_dead', expect.not.stringMatching(/^run_dead$/)])
    expect(runIds(events, 'RUN_FINISHED')).toEqual(runIds(events, 'RUN_STARTED'))
    expect(types).not.toContain('RUN_ERROR')
    expect(model.calls).toBe(1)
    // Each message once: the dead run's half text, then the continued turn's reply.
    const ids = agent.messages.map((message) => message.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(agent.messages.filter((message) => message.content === 'Half a rep')).toHaveLength(1)
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello there.' })
    expect((await server.get(threadId)).messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello there.' })
    expect((await server.get(threadId)).status).toBe('idle')
  })

  it('mid-tool-call: the dead run ends (its call closed) before the run that continues the turn', async () => {
    const { server, model, threadId } = await deadRun(() => MID_TOOL_CALL)
    const { agent, events, types: eventTypes } = await follow(server.url, threadId)
    const types: string[] = eventTypes
    const deadEnd = types.indexOf('RUN_FINISHED')
    expect(types.slice(0, deadEnd + 1)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'RUN_FINISHED'])
    expect(events[deadEnd - 1]).toMatchObject({ toolCallId: 'call_half' })
    expect(types.filter((type) => type === 'TEXT_MESSAGE_END')).toHaveLength(types.filter((type) => type === 'TEXT_MESSAGE_START').length)
    expect(runIds(events, 'RUN_FINISHED')).toEqual(runIds(events, 'RUN_STARTED'))
    expect(runIds(events, 'RUN_STARTED')).toHaveLength(2)
    expect(model.calls).toBe(1)
    const ids = agent.messages.map((message) => message.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello there.' })
  })

  it('resuming mid-run (`Last-Event-ID`): what was open before the resume point is closed too, and the closing events carry no id', async () => {
    const { server, threadId } = await deadRun(() => MID_TEXT)
    const response = await fetch(`${server.url}?threadId=${threadId}`, { headers: { accept: 'text/event-stream', 'last-event-id': 'run_dead:3' } })
    const frames = (await response.text()).split('\n\n').filter((block) => block.includes('data: ')).map((block) => {
      const lines = block.split('\n')
      return { id: lines.find((line) => line.startsWith('id: '))?.slice(4), event: JSON.parse(lines.find((line) => line.startsWith('data: '))!.slice(6)) }
    })
    // Nothing of the dead run is sent again; its end is told, without an id: a reconnect resumes
    // after the dead run's last logged event (or in the continuing run), never after its end.
    expect(frames.slice(0, 2)).toEqual([
      { id: undefined, event: { type: 'TEXT_MESSAGE_END', messageId: 'msg_half' } },
      { id: undefined, event: expect.objectContaining({ type: 'RUN_FINISHED', threadId, runId: 'run_dead' }) },
    ])
    expect(frames[2]).toMatchObject({ id: expect.stringMatching(/^run_.+:1$/), event: { type: 'RUN_STARTED' } })
    expect(frames.at(-1)).toMatchObject({ id: expect.stringMatching(/:\d+$/), event: { type: 'RUN_FINISHED' } })
  })

  it('resuming past the log\'s end (it was shown events the log never got): EVENTS_LOST, without an id, and the turn still goes on', async () => {
    const { server, model, threadId } = await deadRun(() => MID_TEXT)
    const response = await fetch(`${server.url}?threadId=${threadId}`, { headers: { accept: 'text/event-stream', 'last-event-id': 'run_dead:6', ...WRITER } })
    const frames = (await response.text()).split('\n\n').filter((block) => block.includes('data: '))
    // What those events left open is unknown: no end of the dead run is made up, and no run follows inside it.
    expect(frames).toHaveLength(1)
    expect(frames[0]).not.toMatch(/^id: /m)
    expect(JSON.parse(/^data: (.*)$/m.exec(frames[0]!)![1]!)).toMatchObject({ type: 'RUN_ERROR', code: 'EVENTS_LOST' })
    expect(model.calls).toBe(1)
    let thread = await server.get(threadId)
    while (thread.status === 'running') thread = (await new Promise((resolve) => setTimeout(resolve, 20)), await server.get(threadId))
    expect(thread.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello there.' })
  })

  it('resuming past the log\'s end in the AI SDK\'s telling: the stream ends with an error chunk that says to reload, nothing else', async () => {
    const { server, threadId } = await deadRun(() => MID_TEXT)
    const response = await fetch(`${server.url}?threadId=${threadId}&format=ai-sdk&stream`, { headers: { accept: 'text/event-stream', 'last-event-id': 'run_dead:6', ...WRITER } })
    const chunks = (await response.text()).split('\n\n').filter((block) => block.startsWith('data: {')).map((block) => JSON.parse(block.slice(6)) as { type: string; errorText?: string })
    expect(chunks).toEqual([{ type: 'error', errorText: expect.stringMatching(/lost by the store; reload the thread/) }])
  })
})

describe("Toolgate's client reading the same stream", () => {
  it('a reload onto a thread whose run died mid-text follows the continuing run to its end, and shows the stored thread: the dead run\'s half text is gone', async () => {
    const { server, model, threadId } = await deadRun(() => MID_TEXT, { leaseLeftMs: LEASE_MS / 2 })
    // The thread reads as running: the client follows the run by GET, and the run is found dead
    // there (a reader waits a second of silence before it asks), its lease lapsed by then.
    const { client, shown } = await loadedPage(server.url, threadId)
    expect(model.calls).toBe(1)
    // The page did show the dead run's half text while it followed that run.
    expect(shown).toContain('Half a rep')
    const state = client.getSnapshot()
    expect(state).toMatchObject({ status: 'idle', error: undefined })
    const stored = (await server.get(threadId)).messages
    expect(stored.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello there.' })
    // The continuing run began from the stored thread, which never held the dead run's half text:
    // the page shows what the thread holds, each message once, as a page loaded afterwards does.
    expect(state.messages.map((message) => message.id)).toEqual(stored.filter((message) => message.role !== 'tool').map((message) => message.id))
    expect(texts(state.messages)).not.toContain('Half a rep')
    expect(state.messages).toEqual(await hydrated(server.url, threadId))
  })

  it('a reload onto a thread whose run died mid-tool-call: the half call and the text of its unstored step are gone too', async () => {
    const { server, model, threadId } = await deadRun(() => MID_TOOL_CALL, { leaseLeftMs: LEASE_MS / 2 })
    const client = createChatClient({ endpoint: server.url, threadId })
    await client.load()
    expect(model.calls).toBe(1)
    const state = client.getSnapshot()
    expect(state).toMatchObject({ status: 'idle', error: undefined })
    expect(state.messages.flatMap((message) => message.parts).filter((part) => part.type === 'tool-call')).toEqual([])
    expect(texts(state.messages)).not.toContain('Let me look.')
    expect(state.messages.at(-1)).toMatchObject({ role: 'assistant', parts: [{ type: 'text', text: 'Hello there.' }] })
    expect(state.messages).toEqual(await hydrated(server.url, threadId))
  })
})

describe("Toolgate's client reading a dead run nothing continues", () => {
  it('a page that may only read: the half text is gone and the thread shows its last run lost, as a reload does; nothing is written', async () => {
    const { server, model, threadId } = await deadRun(() => MID_TEXT, { leaseLeftMs: LEASE_MS / 2, authorize: (request, _threadId, { action }) => action === 'read' || request.headers.get('x-user') === WRITER['x-user'] })
    const { client, shown } = await loadedPage(server.url, threadId)
    expect(model.calls).toBe(0)
    expect(shown).toContain('Half a rep')
    const state = client.getSnapshot()
    expect(state).toMatchObject({ status: 'error', error: { code: 'RUN_LOST' } })
    expect(texts(state.messages)).not.toContain('Half a rep')
    const page = createChatClient({ endpoint: server.url, threadId })
    await page.load()
    expect(page.getSnapshot()).toMatchObject({ status: 'error', error: { code: 'RUN_LOST' } })
    expect(state.messages).toEqual(page.getSnapshot().messages)
  })
})

/** Every text part shown. */
/** A page loading the thread with Toolgate's client, and every text it showed on the way. */
async function loadedPage(url: string, threadId: string) {
  const client = createChatClient({ endpoint: url, threadId })
  const shown: string[] = []
  client.subscribe(() => shown.push(...texts(client.getSnapshot().messages)))
  await client.load()
  return { client, shown }
}

function texts(messages: readonly ChatMessage[]): string[] {
  return messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])))
}

/** What a page that loads the thread once its turn is over shows. */
async function hydrated(url: string, threadId: string): Promise<readonly ChatMessage[]> {
  const page = createChatClient({ endpoint: url, threadId })
  await page.load()
  expect(page.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
  return page.getSnapshot().messages
}
