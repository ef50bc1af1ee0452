import { afterEach, describe, expect, it } from 'vitest'
import { memoryStore, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'

type RunEventLog = NonNullable<ThreadStore['events']>
import { closeAll, startServer } from './helpers/server.ts'

// Replays read the log a page at a time, and a GET naming another thread's run is answered 404
// from that run's first event, never by reading its whole log.

afterEach(closeAll)

const story = Array.from({ length: 1200 }, (_, i) => `w${i} `)
const model = scriptedModel([{ when: /.*/, reply: story.join('') }])

function countingStore(): { store: ThreadStore; reads: number[] } {
  const inner = memoryStore()
  const log = inner.events!
  const reads: number[] = []
  const events: RunEventLog = {
    append: (runId, logged, final) => log.append(runId, logged, final),
    read: async (runId, after, limit) => {
      const read = await log.read(runId, after, limit)
      reads.push(read?.events.length ?? 0)
      return read
    },
    wait: (runId, after, timeoutMs, signal) => log.wait(runId, after, timeoutMs, signal),
  }
  return { store: { head: inner.head.bind(inner), messages: inner.messages.bind(inner), commit: inner.commit.bind(inner), decisions: inner.decisions.bind(inner), events }, reads }
}

async function runOf(url: string, message: string) {
  const text = await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) })).text()
  const first = text.split('\n\n')[0]!
  return { runId: /^id: (run_[\w-]+):1$/m.exec(first)![1]!, threadId: JSON.parse(/^data: (.*)$/m.exec(first)![1]!).threadId as string, count: text.split('\n\n').filter((b) => b.startsWith('id: ')).length }
}

describe('replay reads', () => {
  it('answer a run of another thread 404 after reading one event of its log', async () => {
    const { store, reads } = countingStore()
    const server = await startServer({ model, store })
    const big = await runOf(server.url, 'long')
    const mine = await runOf(server.url, 'short')
    expect(big.count).toBeGreaterThan(1000)
    reads.length = 0
    const response = await fetch(`${server.url}?threadId=${mine.threadId}`, { headers: { accept: 'text/event-stream', 'last-event-id': `${big.runId}:0` } })
    expect(response.status).toBe(404)
    expect(reads).toEqual([1])
  })

  it('replay a long run in bounded pages, every event once and in order', async () => {
    const { store, reads } = countingStore()
    const server = await startServer({ model, store })
    const big = await runOf(server.url, 'long')
    reads.length = 0
    const text = await (await fetch(`${server.url}?threadId=${big.threadId}`, { headers: { accept: 'text/event-stream', 'last-event-id': `${big.runId}:1` } })).text()
    const ids = text.split('\n\n').flatMap((block) => (/^id: run_[\w-]+:(\d+)$/m.exec(block) ? [Number(/^id: run_[\w-]+:(\d+)$/m.exec(block)![1])] : []))
    expect(ids).toEqual(Array.from({ length: big.count - 1 }, (_, i) => i + 2))
    expect(Math.max(...reads)).toBeLessThanOrEqual(500)
    expect(reads.length).toBeGreaterThan(2)
  })
})
