import { afterEach, describe, expect, it } from 'vitest'
import { memoryStore, type ChatModel, type ModelChunk } from '@toolgate/ai/server'
import { closeAll, startServer } from './helpers/server.ts'

// Issue 26, item 4: a flood of anonymous runs must not evict a live run's event log from the
// memory store (its reader would lose events without knowing); limits refuse new work instead.

afterEach(closeAll)

/** A model that streams `parts` deltas for "long" (pausing after the first ten until `release`), and one delta otherwise. */
function gatedModel(parts: number) {
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const model: ChatModel = {
    name: 'gated',
    async *stream(request): AsyncGenerator<ModelChunk> {
      const last = request.messages.at(-1)
      if (last?.role !== 'user' || !last.content.includes('long')) {
        yield { type: 'text-delta', delta: 'short' }
        yield { type: 'finish', reason: 'stop' }
        return
      }
      for (let i = 0; i < parts; i++) {
        if (i === 10) await gate
        yield { type: 'text-delta', delta: `p${i} ` }
      }
      yield { type: 'finish', reason: 'stop' }
    },
  }
  return { model, release }
}

/** Reads SSE blocks until `stop` says so, then leaves; returns the ids and event types read. */
async function readUntil(response: Response, stop: (type: string) => boolean, controller?: AbortController) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  const read: { id: string | undefined; type: string; threadId?: string }[] = []
  let buffer = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    buffer += value
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const data = /^data: (.*)$/m.exec(block)?.[1]
      if (data === undefined) continue
      const { type, threadId } = JSON.parse(data) as { type: string; threadId?: string }
      read.push({ id: /^id: (.*)$/m.exec(block)?.[1], type, threadId })
      if (stop(type)) {
        controller?.abort()
        await reader.cancel().catch(() => {})
        return read
      }
    }
  }
  return read
}

describe('the memory store under a flood of runs', () => {
  it('keeps a live run’s event log: its reader reconnects and gets every event and RUN_FINISHED', async () => {
    const { model, release } = gatedModel(300)
    const server = await startServer({ model, store: memoryStore({ maxEndedRunLogs: 20 }) })
    const controller = new AbortController()
    const first = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'long' }), signal: controller.signal })
    let deltas = 0
    const seen = await readUntil(first, (type) => type === 'TEXT_MESSAGE_CONTENT' && ++deltas === 5, controller)
    const threadId = seen[0]!.threadId!
    const lastId = seen.at(-1)!.id!
    const [runId] = lastId.split(':')

    // Many anonymous turns, each a new thread whose run ends at once: far more than the logs kept.
    for (let i = 0; i < 60; i += 20) {
      const turns = await Promise.all(Array.from({ length: 20 }, () => server.send('hi')))
      expect(turns.map((turn) => turn.finished?.type)).toEqual(Array(20).fill('RUN_FINISHED'))
    }

    release()
    const replay = await fetch(`${server.url}?threadId=${encodeURIComponent(threadId)}`, { headers: { accept: 'text/event-stream', 'last-event-id': lastId } })
    expect(replay.status).toBe(200)
    const rest = await readUntil(replay, () => false)
    const after = Number(lastId.split(':')[1])
    expect(rest.map((event) => event.id)).toEqual(Array.from({ length: rest.length }, (_, i) => `${runId}:${after + i + 1}`))
    expect(rest.filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')).toHaveLength(300 - 5)
    expect(rest.at(-1)?.type).toBe('RUN_FINISHED')
  })

  it('refuses a run beyond maxRuns with 429 TOO_MANY_RUNS and Retry-After, and takes new work once a run ended', async () => {
    const { model, release } = gatedModel(20)
    const server = await startServer({ model, store: memoryStore({ maxRuns: 1 }) })
    const first = await server.post({ message: 'long' })
    let deltas = 0
    const seen = await readUntil(first, (type) => type === 'TEXT_MESSAGE_CONTENT' && ++deltas === 5)

    const refused = await server.post({ message: 'hi' })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(await refused.json()).toMatchObject({ error: { code: 'TOO_MANY_RUNS' } })
    // An answer or a message on the busy thread itself is still a 409, not a limit.
    expect((await server.post({ threadId: seen[0]!.threadId, message: 'again' })).status).toBe(409)

    release()
    const replay = await fetch(`${server.url}?threadId=${encodeURIComponent(seen[0]!.threadId!)}`, { headers: { accept: 'text/event-stream', 'last-event-id': seen.at(-1)!.id! } })
    expect((await readUntil(replay, () => false)).at(-1)?.type).toBe('RUN_FINISHED')
    const next = await server.send('hi')
    expect(next.finished?.type).toBe('RUN_FINISHED')
    expect((await server.send('hi', seen[0]!.threadId)).finished?.type).toBe('RUN_FINISHED')
  })
})
