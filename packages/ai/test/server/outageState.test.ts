import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import { createChatClient } from '@toolgate/ai/client'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { redisStore } from '@toolgate/ai/server/redis'
import { startRedis, type RedisServer } from '../services/redis.ts'
import { faultyStore } from './faultyStore.ts'
import { closeAll, startServer } from './helpers/server.ts'

// Issue 26, item 11: after a store outage the thread says what happened. A run whose last writes
// fail (its release too, for longer than its first retries) ends with RUN_ERROR STORE_ERROR, lets
// the thread go once the store answers again (not when its lease lapses), and a reloaded page
// reads the failure in the snapshot instead of attaching to the dead run and replaying its error.

let redis: RedisServer
beforeAll(async () => {
  redis = await startRedis()
}, 60_000)
afterEach(closeAll)
afterAll(() => redis?.stop())

const model = scriptedModel([{ when: /.*/, reply: 'fine' }])

describe('the thread after a store outage', () => {
  it('is idle again once the store answers, and its snapshot names the failed run and its error', async () => {
    const client = await createClient({ url: redis.url }).connect()
    try {
      const store = faultyStore(redisStore({ client, prefix: 'outage-state:' }))
      // A lease far longer than the test: only the run's own release may let the thread go.
      const server = await startServer({ model, store, limits: { runLeaseMs: 120_000, toolTimeoutMs: 1000 }, onError: () => {} })
      const first = await server.send('hello')
      expect(first.finished).toBeDefined()

      // The run's release fails, and so do its next four attempts: past the retries before its
      // reader is told, into the ones after.
      store.failNext(5, (commit) => commit.head.activeRun === undefined)
      const failed = await server.send('again', first.threadId)
      const error = failed.events.at(-1)
      expect(error).toMatchObject({ type: 'RUN_ERROR', code: 'STORE_ERROR' })
      const runId = failed.events[0]!.type === 'RUN_STARTED' ? failed.events[0]!.runId : ''

      let snapshot = await server.get(first.threadId)
      for (let i = 0; i < 400 && snapshot.status === 'running'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25))
        snapshot = await server.get(first.threadId)
      }
      expect(snapshot.status).toBe('idle')
      expect(snapshot.lastRunError).toEqual({ runId, code: 'STORE_ERROR', message: (error as { message: string }).message })
      expect(snapshot.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])

      // A reloaded page that attaches finds no run to replay (204), not the failed run's error again,
      // and a ChatClient that loads the thread shows the failure, once: sending clears it.
      const attach = await fetch(`${server.url}?threadId=${first.threadId}`, { headers: { accept: 'text/event-stream' } })
      expect(attach.status).toBe(204)
      const chat = createChatClient({ endpoint: server.url, threadId: first.threadId })
      await chat.load()
      expect(chat.getSnapshot()).toMatchObject({ status: 'error', error: { code: 'STORE_ERROR' } })
      expect(chat.getSnapshot().messages).toHaveLength(4)

      // The next message runs, and the failure is no longer news.
      await chat.send('once more')
      expect(chat.getSnapshot().error).toBeUndefined()
      expect(chat.getSnapshot().messages.at(-1)).toMatchObject({ role: 'assistant' })
      expect((await server.get(first.threadId)).lastRunError).toBeUndefined()
    } finally {
      await client.quit()
    }
  }, 60_000)
})
