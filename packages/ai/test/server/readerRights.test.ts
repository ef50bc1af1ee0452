import { afterEach, describe, expect, it } from 'vitest'
import { type ChatModel, memoryStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { stored } from './helpers/store.ts'
import { closeAll, startServer } from './helpers/server.ts'

// What a user who may only read a thread can make the server do: nothing that writes. Taking over
// a run whose instance died is a write. And whether a thread exists is not told to someone who
// may not access it: an unknown thread and another user's thread are refused alike, on every route.

afterEach(closeAll)

const LEASE_MS = 1000
const ada = { 'x-user': 'ada' }
const viewer = { 'x-user': 'viewer' }
const eve = { 'x-user': 'eve' }

/** Ada owns every thread she creates; the viewer may read them; no one else may do anything. */
function authorize(request: Request, _threadId: string, { action }: { action: string }): boolean {
  const user = request.headers.get('x-user')
  return user === 'ada' || (user === 'viewer' && action === 'read')
}

function counting(model: ChatModel): ChatModel & { calls: number } {
  const counted = { ...model, calls: 0 } as ChatModel & { calls: number }
  counted.stream = (request) => (counted.calls++, model.stream(request))
  return counted
}

async function readAll(response: Response): Promise<{ id?: string; event: { type: string; [key: string]: unknown } }[]> {
  const frames: { id?: string; event: { type: string; [key: string]: unknown } }[] = []
  for (const block of (await response.text()).split('\n\n')) {
    const lines = block.split('\n')
    const data = lines.find((line) => line.startsWith('data: '))?.slice(6)
    if (data !== undefined) frames.push({ id: lines.find((line) => line.startsWith('id: '))?.slice(4), event: JSON.parse(data) })
  }
  return frames
}

/** What an instance killed mid-run leaves: the run's first event logged, its lease lapsed, the user's message waiting for a reply. */
async function deadRun() {
  const store = memoryStore()
  const model = counting(scriptedModel([{ when: /.*/, reply: 'hi' }]))
  const server = await startServer({ model, store, authorize, limits: { runLeaseMs: LEASE_MS, toolTimeoutMs: LEASE_MS / 2 } })
  const { threadId } = await server.send('hello', undefined, ada)
  const head = (await store.head(threadId))!
  const lapsed = Date.now() - 10 * LEASE_MS
  const user = { role: 'user' as const, id: 'msg_dead', content: 'hello again' }
  const activeRun = { runId: 'run_dead', startedAt: lapsed, renewedAt: lapsed, fromMessage: head.messageCount + 1 }
  expect(await store.commit({ head: { ...head, version: head.version + 1, messageCount: head.messageCount + 1, activeRun }, append: [user] })).toBe(true)
  await store.events!.append('run_dead', [{ seq: 1, data: JSON.stringify({ type: 'RUN_STARTED', threadId, runId: 'run_dead' }) }], false)
  model.calls = 0
  return { server, store, model, threadId }
}

function attach(url: string, threadId: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${url}?threadId=${threadId}`, { headers: { accept: 'text/event-stream', 'last-event-id': 'run_dead:1', ...headers } })
}

describe('a reader attached to a dead run', () => {
  it('does not continue the turn without write access, and is told a writer must', async () => {
    const { server, store, model, threadId } = await deadRun()
    const before = (await stored(store, threadId))!
    const response = await attach(server.url, threadId, viewer)
    expect(response.status).toBe(200)
    const frames = await readAll(response)
    expect(frames.at(-1)!.event).toMatchObject({ type: 'RUN_ERROR', code: 'RUN_LOST', message: expect.stringMatching(/may write/) })
    expect(model.calls).toBe(0)
    const after = (await stored(store, threadId))!
    expect(after.head.version).toBe(before.head.version)
    expect(after.messages).toEqual(before.messages)
  })

  it('is continued for a reader who may write', async () => {
    const { server, store, model, threadId } = await deadRun()
    const frames = await readAll(await attach(server.url, threadId, ada))
    expect(frames.map((frame) => frame.event.type)).toContain('RUN_FINISHED')
    expect(model.calls).toBe(1)
    expect((await stored(store, threadId))!.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'hi' })
  })
})

describe('a thread one may not access', () => {
  it('is refused exactly as an unknown one, on every route', async () => {
    const store = memoryStore()
    const server = await startServer({ model: scriptedModel([{ when: /.*/, reply: 'hi' }]), store, authorize })
    const { threadId } = await server.send('hello', undefined, ada)
    const unknown = 'thread_unknown'
    const routes = (id: string) => [
      fetch(`${server.url}?threadId=${id}`, { headers: eve }),
      fetch(`${server.url}?threadId=${id}&limit=1`, { headers: eve }),
      fetch(`${server.url}?threadId=${id}&watch=1`, { headers: eve }),
      fetch(`${server.url}?threadId=${id}&attachmentId=att_1`, { headers: eve }),
      fetch(`${server.url}?threadId=${id}`, { headers: { accept: 'text/event-stream', ...eve } }),
      server.post({ threadId: id, message: 'hi' }, eve),
      server.post({ threadId: id, resume: [{ interruptId: 'int_1', approved: true }] }, eve),
      server.post({ threadId: id, stop: true }, eve),
    ]
    const answers = async (id: string) => Promise.all((await Promise.all(routes(id))).map(async (response) => ({ status: response.status, body: (await response.text()).replaceAll(id, '<id>') })))
    const known = await answers(threadId)
    expect(known.map((answer) => answer.status)).toEqual(Array(8).fill(403))
    expect(await answers(unknown)).toEqual(known)
  })
})
