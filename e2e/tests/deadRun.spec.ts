import { expect, test } from '@playwright/test'
import { createClient } from 'redis'
import { redisStore } from '../../packages/ai/src/server/stores/redis.ts'
import { REDIS_PORT, SHARED_DEMOS } from '../instances.ts'
import { lastAnswer, send, threadIdOf, untilIdle } from './helpers.ts'

// A run whose instance died mid-reply, in the demo on a shared Redis (see instances.ts): the store is
// left as a killed instance leaves it (the user's message waiting, the run's events logged up to a
// half-streamed text, a lease no one renews), and the page is reloaded onto the thread. It follows
// that run, the run is found dead once its lease lapses, and the server continues the turn in a new
// run from the stored thread, which never held the half text: the page then shows what a reload shows.

const [demo] = SHARED_DEMOS as [(typeof SHARED_DEMOS)[number]]
/** The demo's lease (`limits.runLeaseMs`, its default). */
const LEASE_MS = 60_000
/** How long the dead run's lease still runs when the page reloads: the page reads the thread as running. */
const LEASE_LEFT_MS = 5_000

test('a reload onto a run that died mid-text shows the half text while it follows that run, then the continued reply only, as a later reload does', async ({ browser }) => {
  const page = await browser.newPage({ baseURL: demo.url })
  await page.goto('/')
  await send(page, 'Hello')
  await untilIdle(page)
  const threadId = threadIdOf(page)

  const client = await createClient({ url: `redis://127.0.0.1:${REDIS_PORT}` }).connect()
  try {
    const store = redisStore({ client })
    const head = (await store.head(threadId))!
    const lapsing = Date.now() - LEASE_MS + LEASE_LEFT_MS
    const activeRun = { runId: 'run_dead', startedAt: lapsing, renewedAt: lapsing, fromMessage: head.messageCount + 1 }
    const user = { role: 'user' as const, id: 'msg_waiting', content: 'Hello again' }
    expect(await store.commit({ head: { ...head, version: head.version + 1, messageCount: head.messageCount + 1, activeRun }, append: [user] })).toBe(true)
    const events = [
      { type: 'RUN_STARTED', threadId, runId: 'run_dead' },
      { type: 'TEXT_MESSAGE_START', messageId: 'msg_half', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'msg_half', delta: 'Half a rep' },
    ]
    await store.events!.append('run_dead', events.map((event, i) => ({ seq: i + 1, data: JSON.stringify(event) })), false)
  } finally {
    await client.quit()
  }

  await page.reload()
  const assistant = page.locator('.message--assistant .message__text')
  // The page follows the dead run: its half text shows, until the turn goes on.
  await expect(assistant.filter({ hasText: 'Half a rep' })).toHaveCount(1)
  await expect(page.locator('.message--user')).toHaveCount(2)
  await expect(lastAnswer(page)).toHaveText(/^Hello! I am the scripted demo model/, { timeout: LEASE_LEFT_MS + 15_000 })
  await untilIdle(page)
  await expect(assistant.filter({ hasText: 'Half a rep' })).toHaveCount(0)
  const followed = await page.locator('.message').allTextContents()

  await page.reload()
  await expect(lastAnswer(page)).toHaveText(/^Hello! I am the scripted demo model/)
  await untilIdle(page)
  expect(await page.locator('.message').allTextContents()).toEqual(followed)
})
