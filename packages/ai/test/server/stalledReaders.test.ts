import { get } from 'node:http'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import type { ChatModel, ModelChunk, ThreadStore } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'
import { startRedis, type RedisServer } from '../services/redis.ts'
import { closeAll, startServer } from './helpers/server.ts'

// Issue 26, item 5 on a real Redis: a reader that reattaches to a long run and then never reads
// must not make the server keep reading the run's log (60 such readers grew the heap by 180 MB
// and climbing). Replays go a page at a time, each only once the reader took the last.

type RunEventLog = NonNullable<ThreadStore['events']>

let redis: RedisServer
beforeAll(async () => {
  redis = await startRedis()
}, 60_000)
afterEach(closeAll)
afterAll(() => redis?.stop())

/** 20 MB of events: 10,000 deltas of 2 KB, far more than a socket's buffers hold. */
const DELTAS = 10_000
const chunk = 'x'.repeat(2048)
const model: ChatModel = {
  name: 'long',
  async *stream(): AsyncGenerator<ModelChunk> {
    for (let i = 0; i < DELTAS; i++) yield { type: 'text-delta', delta: chunk }
    yield { type: 'finish', reason: 'stop' }
  },
}

/** The store, counting the events each read of the log fetched. */
function counted(store: ThreadStore) {
  const log = store.events!
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
  return { store: { ...store, head: store.head.bind(store), messages: store.messages.bind(store), commit: store.commit.bind(store), decisions: store.decisions.bind(store), events } as ThreadStore, reads }
}

describe('replays on Redis under backpressure', () => {
  it('stop reading the log for readers that never read, while a reader that reads gets the whole run', async () => {
    const client = await createClient({ url: redis.url }).connect()
    try {
      const { store, reads } = counted(redisStore({ client, prefix: 'stalled:' }))
      const server = await startServer({ model, store })
      const text = await (await server.post({ message: 'go' })).text()
      const first = text.slice(0, text.indexOf('\n\n'))
      const runId = /^id: (run_[\w-]+):1$/m.exec(first)![1]!
      const threadId = JSON.parse(/^data: (.*)$/m.exec(first)![1]!).threadId as string
      const total = text.split('\n\n').filter((block) => block.startsWith('id: ')).length
      expect(total).toBeGreaterThan(DELTAS)

      // Ten readers that reattach from the start, take the headers and then never read a byte.
      const stalled = await Promise.all(
        Array.from({ length: 10 }, () =>
          new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
            const request = get(`${server.url}?threadId=${threadId}`, { headers: { accept: 'text/event-stream', 'last-event-id': `${runId}:1` } }, (response) => {
              response.pause()
              resolve(response)
            })
            request.on('error', reject)
          }),
        ),
      )
      expect(stalled.map((response) => response.statusCode)).toEqual(Array(10).fill(200))

      // Meanwhile one reader reads the whole run, page by page.
      const replayed = await (await fetch(`${server.url}?threadId=${threadId}`, { headers: { accept: 'text/event-stream', 'last-event-id': `${runId}:1` } })).text()
      expect(replayed.split('\n\n').filter((block) => block.startsWith('id: '))).toHaveLength(total - 1)

      // By the time it has, the ten stalled readers fetched what the socket's buffers and the
      // stream's queue hold (a few MB each), not the run ten times over.
      const byStalled = reads.reduce((sum, count) => sum + count, 0) - (total - 1)
      expect(reads.filter((count) => count > 500)).toEqual([])
      expect(byStalled).toBeLessThan((10 * total) / 2)
      for (const response of stalled) response.destroy()
    } finally {
      await client.quit()
    }
  }, 60_000)
})
