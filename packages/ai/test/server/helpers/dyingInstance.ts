import { memoryStore, type ThreadStore } from '@toolgate/ai/server'
import type { ChatModel } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { startServer, type TestServer } from './server.ts'

/** The reply the turn ends with, told whole by the instance that continues it. */
export const STORY = Array.from({ length: 12 }, (_, i) => `part ${i}. `).join('')

/** What instance A streams of the reply before it dies: the log never gets it. */
export const HALF = 'part 0. part 1. part 2. '

const LEASE_MS = 1000

/**
 * Two instances on one store. A's run log takes the run's first batch and then stays down past its
 * retries, so A tells its live reader events the log never got; its model then stops mid-reply (a
 * frozen process). `die()` kills A: every store call it makes from then on hangs, its sockets close,
 * and its lease lapses (`LEASE_MS`). B, healthy, continues the turn for a reader who may write.
 */
export async function dyingInstance(): Promise<{ a: TestServer; b: TestServer; store: ThreadStore; die(): Promise<void> }> {
  const store = memoryStore()
  const log = store.events!
  let dead = false
  const never = new Promise<never>(() => {})
  const alive = <T>(call: () => Promise<T>): Promise<T> => (dead ? never : call())
  const dying: ThreadStore = {
    head: (threadId) => alive(() => store.head(threadId)),
    messages: (threadId, from, to) => alive(() => store.messages(threadId, from, to)),
    decisions: (threadId) => alive(() => store.decisions(threadId)),
    commit: (commit) => alive(() => store.commit(commit)),
    events: {
      // The batch with the run's first event lands; every later one fails, however often it is tried.
      append: (runId, logged, final, threadId) =>
        alive(async () => {
          if (!logged.some((event) => event.seq === 1)) throw new Error('injected: the log is down')
          return log.append(runId, logged, final, threadId)
        }),
      read: (runId, after, limit, threadId) => alive(() => log.read(runId, after, limit, threadId)),
      wait: (runId, after, timeoutMs, signal, threadId) => alive(() => log.wait(runId, after, timeoutMs, signal, threadId)),
    },
  }
  const halfway: ChatModel = {
    async *stream({ signal }) {
      // Its text comes in a turn after the run's first events, so in a batch of its own.
      await new Promise((resolve) => setImmediate(resolve))
      for (const part of HALF.match(/part \d+\. /g)!) yield { type: 'text-delta', delta: part }
      // Frozen: what follows is never told (the instance is killed first).
      await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))
    },
  }
  const limits = { runLeaseMs: LEASE_MS, toolTimeoutMs: LEASE_MS / 2 }
  const a = await startServer({ model: halfway, store: dying, limits })
  const b = await startServer({ model: scriptedModel([{ when: /.*/, reply: STORY }]), store, limits })
  const die = async () => {
    dead = true
    await a.close()
  }
  return { a, b, store, die }
}
