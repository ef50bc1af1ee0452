import { afterEach, describe, expect, it, vi } from 'vitest'
import { type ChatModel, memoryStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { weatherTool } from './fixtures.ts'
import { closeAll, errorOf, startServer } from './helpers/server.ts'

afterEach(closeAll)

// Resumable streams: a run outlives its request. A client that drops reads the rest of the run
// (from any instance sharing the store) with `Last-Event-ID`; only `stop` ends a run early.

interface Frame {
  readonly id: string | undefined
  readonly event: { type: string; [key: string]: unknown }
}

/** Reads SSE frames with their ids; `until` stops early (the caller then leaves the stream). */
async function readFrames(response: Response, until?: (frames: Frame[]) => boolean): Promise<Frame[]> {
  const frames: Frame[] = []
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += value
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const lines = buffer.slice(0, end).split('\n')
        buffer = buffer.slice(end + 2)
        const id = lines.find((line) => line.startsWith('id: '))?.slice(4)
        const data = lines.find((line) => line.startsWith('data: '))?.slice(6)
        if (data !== undefined) frames.push({ id, event: JSON.parse(data) })
        if (until?.(frames)) return frames
      }
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
  return frames
}

const story = Array.from({ length: 40 }, (_, i) => `part ${i}. `).join('')
const slowModel = (): ChatModel => scriptedModel([{ when: 'story', reply: story }, { when: 'weather', call: () => ({ tool: 'get_weather', input: { city: 'Oslo' } }), then: ([r]) => r.content }], { delayMs: 15 })

async function startRun(url: string, message: string): Promise<{ response: Response; controller: AbortController }> {
  const controller = new AbortController()
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }), signal: controller.signal })
  return { response, controller }
}

function attach(url: string, threadId: string, headers: Record<string, string> = {}, query = ''): Promise<Response> {
  return fetch(`${url}?threadId=${threadId}${query}`, { headers: { accept: 'text/event-stream', ...headers } })
}

describe('resumable streams', () => {
  it('numbers every event of a run as <runId>:<seq>, from 1 without gaps', async () => {
    const server = await startServer({ model: slowModel(), tools: [weatherTool] })
    const { response } = await startRun(server.url, 'weather')
    const frames = await readFrames(response)
    const runId = frames[0]!.event.runId as string
    expect(frames.map((frame) => frame.id)).toEqual(frames.map((_, i) => `${runId}:${i + 1}`))
    expect(frames.at(-1)!.event.type).toBe('RUN_FINISHED')
  })

  it('keeps running when the client drops; Last-Event-ID gets the rest, none lost or repeated', async () => {
    const server = await startServer({ model: slowModel() })
    const { response, controller } = await startRun(server.url, 'story')
    const before = await readFrames(response, (frames) => frames.length >= 6)
    controller.abort()
    const threadId = before[0]!.event.threadId as string
    const last = before.at(-1)!.id!

    const rest = await readFrames(await attach(server.url, threadId, { 'last-event-id': last }))
    const all = [...before, ...rest]
    const runId = before[0]!.event.runId as string
    expect(all.map((frame) => frame.id)).toEqual(all.map((_, i) => `${runId}:${i + 1}`))
    expect(all.at(-1)!.event.type).toBe('RUN_FINISHED')
    const text = all.flatMap((frame) => (frame.event.type === 'TEXT_MESSAGE_CONTENT' ? [frame.event.delta] : [])).join('')
    expect(text).toBe(story)
    // The run went on without its client: the thread holds the whole answer.
    expect((await server.get(threadId)).messages.at(-1)).toMatchObject({ role: 'assistant', content: story })
  })

  it('serves the rest of a run from another instance sharing the store', async () => {
    const store = memoryStore()
    const a = await startServer({ model: slowModel(), store })
    const b = await startServer({ model: slowModel(), store })
    const { response, controller } = await startRun(a.url, 'story')
    const before = await readFrames(response, (frames) => frames.length >= 4)
    controller.abort()
    const threadId = before[0]!.event.threadId as string
    const runId = before[0]!.event.runId as string

    const snapshot = await b.get(threadId)
    expect(snapshot).toMatchObject({ status: 'running', runId, messages: [{ role: 'user', content: 'story' }], interrupts: [] })
    const rest = await readFrames(await attach(b.url, threadId, {}, `&runId=${runId}&after=4`))
    expect(rest[0]!.id).toBe(`${runId}:5`)
    expect(rest.at(-1)!.event.type).toBe('RUN_FINISHED')
    // Attaching without a position replays the active run from its start (here: it ended, so 204).
    expect((await attach(b.url, threadId)).status).toBe(204)
  })

  it('attaches to the active run from its first event when no position is given', async () => {
    const server = await startServer({ model: slowModel() })
    const { response, controller } = await startRun(server.url, 'story')
    const first = await readFrames(response, (frames) => frames.length >= 2)
    controller.abort()
    const frames = await readFrames(await attach(server.url, first[0]!.event.threadId as string))
    expect(frames[0]).toEqual(first[0])
    expect(frames.at(-1)!.event.type).toBe('RUN_FINISHED')
  })

  it('answers 204 without a run, 404 RUN_NOT_FOUND for a run it keeps nothing of, 400 for a malformed position', async () => {
    const server = await startServer({ model: slowModel() })
    const done = await server.send('story')
    expect((await attach(server.url, done.threadId)).status).toBe(204)
    expect(await errorOf(await attach(server.url, done.threadId, { 'last-event-id': 'run_unknown:3' }))).toMatchObject({
      status: 404,
      error: { code: 'RUN_NOT_FOUND' },
    })
    expect(await errorOf(await attach(server.url, done.threadId, { 'last-event-id': 'garbage' }))).toMatchObject({
      status: 400,
      error: { code: 'INVALID_REQUEST', path: 'Last-Event-ID' },
    })
    // A run of another thread is not readable through this one.
    const other = await server.send('story')
    const otherRun = other.events[0]!.type === 'RUN_STARTED' ? other.events[0]!.runId : ''
    expect((await attach(server.url, done.threadId, {}, `&runId=${otherRun}&after=0`)).status).toBe(404)
    expect((await attach(server.url, other.threadId, {}, `&runId=${otherRun}&after=0`)).status).toBe(200)
    // Nor from a later position, where the run's first event (which names its thread) is not in what is read.
    expect(await errorOf(await attach(server.url, done.threadId, {}, `&runId=${otherRun}&after=2`))).toMatchObject({ status: 404, error: { code: 'RUN_NOT_FOUND' } })
    expect((await attach(server.url, done.threadId, { 'last-event-id': `${otherRun}:1` })).status).toBe(404)
    expect((await attach(server.url, done.threadId, {}, `&runId=${otherRun}&after=${other.events.length}`)).status).toBe(404)
    expect((await attach(server.url, other.threadId, { 'last-event-id': `${otherRun}:2` })).status).toBe(200)
  })

  it('checks read access before attaching', async () => {
    const server = await startServer({ model: slowModel(), authorize: (request) => request.headers.get('x-user') === 'ada' })
    const turn = await server.send('story', undefined, { 'x-user': 'ada' })
    expect((await attach(server.url, turn.threadId, { 'x-user': 'eve' }, '&runId=run_x&after=0')).status).toBe(403)
  })
})

describe('stop', () => {
  it('stops a run held by another instance, within a second', async () => {
    const store = memoryStore()
    const a = await startServer({ model: slowModel(), store })
    const b = await startServer({ model: slowModel(), store })
    const { response, controller } = await startRun(a.url, 'story')
    const before = await readFrames(response, (frames) => frames.length >= 3)
    controller.abort()
    const threadId = before[0]!.event.threadId as string
    const stop = await b.post({ threadId, stop: true })
    expect(await stop.json()).toEqual({ threadId, stopped: true })
    await vi.waitFor(async () => expect((await b.get(threadId)).status).toBe('idle'), { timeout: 3000 })
    const answer = (await b.get(threadId)).messages.at(-1)!
    expect(answer.role).toBe('assistant')
    expect(answer.content.length).toBeLessThan(story.length)
    const rest = await readFrames(await attach(b.url, threadId, { 'last-event-id': before.at(-1)!.id! }))
    expect(rest.at(-1)!.event.type).toBe('RUN_FINISHED')
  })

  it('answers stopped: false when nothing runs, and refuses a malformed stop', async () => {
    const server = await startServer({ model: slowModel() })
    const turn = await server.send('story')
    expect(await (await server.post({ threadId: turn.threadId, stop: true })).json()).toEqual({ threadId: turn.threadId, stopped: false })
    expect(await errorOf(await server.post({ threadId: turn.threadId, stop: 'yes' }))).toMatchObject({ status: 400, error: { path: 'stop' } })
  })
})
