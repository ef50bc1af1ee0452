import { afterEach, expect, it } from 'vitest'
import { createChatClient, type ChatClientOptions } from '@toolgate/ai/client'
import { memoryStore, type ThreadStore } from '@toolgate/ai/server'
import { closeAll, startServer } from '../server/helpers/server.ts'
import { dyingInstance, HALF, STORY } from '../server/helpers/dyingInstance.ts'
import { deferred, gatedModel, texts } from './helpers.ts'

// A page that reattaches to a run whose log lost events (the server ends its stream with EVENTS_LOST)
// shows what a reload shows once the run ends, without an error, and without following that run's
// log again (it would hit the same gap, and again).

afterEach(closeAll)

/** A store whose run log lost event 2 of every run for good; `gapLogged` once an event after it is logged. */
function logLosingEvent2() {
  const store = memoryStore()
  const log = store.events!
  const gapLogged = deferred<void>()
  const events: NonNullable<ThreadStore['events']> = {
    ...log,
    append: async (runId, logged, final) => {
      await log.append(runId, logged.filter((event) => event.seq !== 2), final)
      if (logged.some((event) => event.seq > 2)) gapLogged.resolve()
    },
  }
  return { store: { ...store, events } satisfies ThreadStore, gapLogged: gapLogged.promise }
}

/** A run streaming on a store whose log lost its event 2, and a page reloaded mid-run, once it waits for the run's end (or ended). */
async function reloadMidRun() {
  const { store, gapLogged } = logLosingEvent2()
  const model = gatedModel([{ type: 'text-delta', delta: 'one ' }, { type: 'text-delta', delta: 'two ' }, { type: 'text-delta', delta: 'three' }])
  const server = await startServer({ model, store })
  const writer = createChatClient({ endpoint: server.url, scheduleNotify: (flush) => flush() })
  const streaming = new Promise<void>((resolve) => writer.subscribe(() => writer.getSnapshot().threadId && texts(writer.getSnapshot()).length === 2 && resolve()))
  const sent = writer.send('count')
  await Promise.all([gapLogged, streaming])
  const threadId = writer.getSnapshot().threadId!

  // The reload's requests are counted; it waits once it watches the thread past its first version.
  const requests: string[] = []
  const waiting = deferred<void>()
  const fetch: NonNullable<ChatClientOptions['fetch']> = (input, init) => {
    requests.push(`${init?.method ?? 'GET'} ${String(input).replace(server.url, '')}`)
    if (/watch=[1-9]/.test(String(input))) waiting.resolve()
    return globalThis.fetch(input, init)
  }
  const reloaded = createChatClient({ endpoint: server.url, fetch, threadId, scheduleNotify: (flush) => flush() })
  const errors: unknown[] = []
  reloaded.subscribe(() => reloaded.getSnapshot().error && errors.push(reloaded.getSnapshot().error))
  const loading = reloaded.load()
  await Promise.race([waiting.promise, loading])
  const reload = async () => {
    const fresh = createChatClient({ endpoint: server.url, threadId })
    await fresh.load()
    return fresh.getSnapshot()
  }
  return { model, sent, reloaded, loading, errors, requests, reload }
}

it('a reloaded page whose run log has a gap shows the stored thread, then the run\'s reply once it ends: no error, no loop', async () => {
  const { model, sent, reloaded, loading, errors, requests, reload } = await reloadMidRun()
  expect(reloaded.getSnapshot()).toMatchObject({ status: 'streaming', error: undefined })
  expect(texts(reloaded.getSnapshot())).toEqual(['user: count']) // the stored thread, while the run goes on
  model.release()
  await Promise.all([loading, sent])

  const fresh = await reload()
  expect(fresh.status).toBe('idle')
  expect(texts(fresh)).toEqual(['user: count', 'assistant: one two three'])
  expect(reloaded.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
  expect(reloaded.getSnapshot().messages).toEqual(fresh.messages)
  expect(errors).toEqual([])
  // The thread, the run's log (up to its gap), then the thread once more per commit: the run is not followed again.
  expect(requests.filter((request) => request.includes('runId=')).length).toBe(1)
  expect(requests.length).toBeLessThanOrEqual(8)
})

it('stop() while the page waits for a run whose log has a gap stops that run on the server', async () => {
  const { sent, reloaded, loading, errors, requests, reload } = await reloadMidRun()
  expect(reloaded.getSnapshot()).toMatchObject({ status: 'streaming', error: undefined })
  reloaded.stop()
  expect(requests.at(-1)).toBe('POST ') // the stop, sent at once
  await Promise.all([loading, sent]) // the writer's run ends: stopped, since the model was never released
  const fresh = await reload()
  expect(fresh.status).toBe('idle')
  expect(reloaded.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
  expect(errors).toEqual([])
})

it('a page shown events the log never got, when their run\'s instance dies, drops the half reply and shows the turn as a reload does', async () => {
  const { a, b, die } = await dyingInstance()
  // One address for both, as behind a load balancer: A until it dies, then B.
  let behind = a
  const fetch: NonNullable<ChatClientOptions['fetch']> = (input, init) => globalThis.fetch(String(input).replace('http://chat/', behind.url), init)
  const client = createChatClient({ endpoint: 'http://chat/', fetch, scheduleNotify: (flush) => flush() })
  const errors: unknown[] = []
  const halfShown = new Promise<void>((resolve) =>
    client.subscribe(() => {
      if (client.getSnapshot().error) errors.push(client.getSnapshot().error)
      if (texts(client.getSnapshot()).includes(`assistant: ${HALF}`)) resolve()
    }),
  )
  const sent = client.send('tell a story')
  await halfShown
  behind = b
  await die()
  await sent

  const live = client.getSnapshot()
  expect(live).toMatchObject({ status: 'idle', error: undefined })
  expect(texts(live)).toEqual(['user: tell a story', `assistant: ${STORY}`])
  const reloaded = createChatClient({ endpoint: b.url, threadId: live.threadId! })
  await reloaded.load()
  expect(reloaded.getSnapshot().messages).toEqual(live.messages)
  expect(errors).toEqual([])
}, 30_000)
