import { afterEach, describe, expect, it } from 'vitest'
import { memoryStore, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'

type RunEventLog = NonNullable<ThreadStore['events']>
import { closeAll, startServer } from './helpers/server.ts'
import { dyingInstance, HALF, STORY } from './helpers/dyingInstance.ts'

// The run's event log on a store that fails: a blip costs a reader nothing (the writes are tried
// again), and a log that lost events for good is never replayed with a silent gap: the reader is
// told, with EVENTS_LOST, to read the thread instead.

afterEach(closeAll)

const story = Array.from({ length: 30 }, (_, i) => `part ${i}. `).join('')
const model = scriptedModel([{ when: /.*/, reply: story }], { delayMs: 5 })

/** A store whose event log fails its next `failures` appends. */
function withFailingLog(failures: number): ThreadStore {
  const store = memoryStore()
  const log = store.events!
  let left = failures
  const events: RunEventLog = {
    append: async (runId, logged, final) => {
      // The batch with the run's first event lands (a reader is told the run exists); later ones fail.
      if (left > 0 && !logged.some((event) => event.seq === 1)) {
        left -= 1
        throw new Error('injected: the store is restarting')
      }
      return log.append(runId, logged, final)
    },
    read: (runId, after) => log.read(runId, after),
    wait: (runId, after, timeoutMs, signal) => log.wait(runId, after, timeoutMs, signal),
  }
  return { ...store, head: store.head.bind(store), messages: store.messages.bind(store), commit: store.commit.bind(store), decisions: store.decisions.bind(store), events }
}

/**
 * A store whose event log answers its writes after the run's first batch only once the thread is
 * next committed (the run's release): a write on its way, as an instance has while it streams. `acknowledged`
 * is the highest seq the log has answered for.
 */
function withSlowLog() {
  const store = memoryStore()
  const log = store.events!
  const state = { acknowledged: 0 }
  let open = () => {}
  let waiting = false
  let opened = false
  const events: RunEventLog = {
    append: async (runId, logged, final) => {
      if (!opened && logged.some((event) => event.seq > 1)) {
        waiting = true
        await new Promise<void>((resolve) => (open = resolve))
      }
      await log.append(runId, logged, final)
      state.acknowledged = Math.max(state.acknowledged, ...logged.map((event) => event.seq))
    },
    read: (runId, after) => log.read(runId, after),
    wait: (runId, after, timeoutMs, signal) => log.wait(runId, after, timeoutMs, signal),
  }
  const commit: ThreadStore['commit'] = (...args) => {
    if (waiting && !opened) {
      opened = true
      open()
    }
    return store.commit(...args)
  }
  return { state, store: { ...store, head: store.head.bind(store), messages: store.messages.bind(store), commit, decisions: store.decisions.bind(store), events } as ThreadStore }
}

async function replay(url: string, threadId: string, lastEventId: string) {
  const response = await fetch(`${url}?threadId=${threadId}`, { headers: { accept: 'text/event-stream', 'last-event-id': lastEventId } })
  const text = await response.text()
  return text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => ({ id: /^id: (.*)$/m.exec(block)?.[1], event: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as { type: string; code?: string } }))
}

describe('a run event log on a failing store', () => {
  it('tells the live reader an event only once the log holds it: an instance that dies leaves no reader ahead of its log', async () => {
    const { state, store } = withSlowLog()
    const server = await startServer({ model, store })
    const response = await server.post({ message: 'tell me' })
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    const ahead: number[] = []
    let text = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += value
      for (const match of value.matchAll(/^id: run_[\w-]+:(\d+)$/gm)) if (Number(match[1]) > state.acknowledged) ahead.push(Number(match[1]))
    }
    expect(ahead).toEqual([])
    expect(text).toContain('RUN_FINISHED')
  })

  it('loses nothing to a blip: a reattaching reader gets every event after its last, in order, to the end', async () => {
    const server = await startServer({ model, store: withFailingLog(2) })
    const response = await server.post({ message: 'tell me' })
    const live = (await response.text()).split('\n\n').filter((block) => block.startsWith('id: '))
    const runId = /^id: (run_[\w-]+):1$/m.exec(live[0]!)![1]!
    const threadId = JSON.parse(/^data: (.*)$/m.exec(live[0]!)![1]!).threadId as string
    const frames = await replay(server.url, threadId, `${runId}:1`)
    expect(frames.map((frame) => frame.id)).toEqual(live.slice(1).map((_, i) => `${runId}:${i + 2}`))
    expect(frames.at(-1)!.event.type).toBe('RUN_FINISHED')
  })

  it('tells a reader when events are gone for good, instead of skipping them', async () => {
    const server = await startServer({ model, store: withFailingLog(6) })
    const response = await server.post({ message: 'tell me' })
    const live = (await response.text()).split('\n\n').filter((block) => block.startsWith('id: '))
    const runId = /^id: (run_[\w-]+):1$/m.exec(live[0]!)![1]!
    const threadId = JSON.parse(/^data: (.*)$/m.exec(live[0]!)![1]!).threadId as string
    // Let the final write, after the failed ones, land.
    await new Promise((resolve) => setTimeout(resolve, 3000))
    const frames = await replay(server.url, threadId, `${runId}:1`)
    expect(frames.at(-1)!.event).toMatchObject({ type: 'RUN_ERROR', code: 'EVENTS_LOST' })
    expect(frames.at(-1)!.id).toBeUndefined()
    const ids = frames.flatMap((frame) => (frame.id ? [Number(frame.id.split(':')[1])] : []))
    expect(ids).toEqual(ids.map((_, i) => i + 2)) // what it was given has no gap
  })

  it('tells a reader who was shown events the log never got, when that run\'s instance dies, that they are lost, and the turn goes on', async () => {
    const { a, b, store, die } = await dyingInstance()
    const live = (await a.post({ message: 'tell a story' })).body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ''
    while (!text.includes(HALF.match(/part \d+\. /g)!.at(-1)!)) text += (await live.read()).value ?? ''
    const ids = [...text.matchAll(/^id: (run_[\w-]+):(\d+)$/gm)]
    const [, runId, last] = ids.at(-1)!
    const threadId = JSON.parse(/^data: (.*)$/m.exec(text)![1]!).threadId as string
    await die()
    // The reader reconnects after the last event it was shown; the log holds fewer.
    expect((await store.events!.read(runId!, 0))?.events.length).toBeLessThan(Number(last))
    const frames = await replay(b.url, threadId, `${runId}:${last}`)
    expect(frames.map((frame) => frame.event.type)).toEqual(['RUN_ERROR'])
    expect(frames[0]).toEqual({ id: undefined, event: expect.objectContaining({ type: 'RUN_ERROR', code: 'EVENTS_LOST' }) })
    // The reader's read continued the turn all the same: the thread ends with the reply, whole.
    let thread = await b.get(threadId)
    while (thread.status === 'running') thread = (await new Promise((resolve) => setTimeout(resolve, 20)), await b.get(threadId))
    expect(thread.messages.map((message) => [message.role, 'content' in message ? message.content : ''])).toEqual([
      ['user', 'tell a story'],
      ['assistant', STORY],
    ])
  }, 30_000)
})
