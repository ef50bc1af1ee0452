import { expect, test } from '@playwright/test'
import { SHARED_DEMOS } from '../instances.ts'
import { lastAnswer, send, threadIdOf, untilIdle } from './helpers.ts'

// Two demo processes share one Redis (see instances.ts): a thread started on one is followed live,
// reloaded, approved and continued on the other, as behind a load balancer.

const [first, second] = SHARED_DEMOS as [(typeof SHARED_DEMOS)[number], (typeof SHARED_DEMOS)[number]]

test('two instances on one Redis serve the same thread: followed live, approved and continued on either', async ({ browser }) => {
  const a = await browser.newPage({ baseURL: first.url })
  const b = await browser.newPage({ baseURL: second.url })
  await a.goto('/')
  await send(a, 'Tell me a story')
  await expect(lastAnswer(a)).toContainText('Chapter 2')
  const threadId = threadIdOf(a)

  // B opens the thread while A's run streams: it attaches to the run through the shared event log
  // and follows it to the end, woken by A's writes.
  await b.goto(`/?thread=${encodeURIComponent(threadId)}`)
  await expect(b.locator('.message--user')).toHaveText(/Tell me a story/)
  await expect(b.locator('.app')).toHaveAttribute('data-status', /streaming|reconnecting/)
  await expect(a.locator('.app')).toHaveAttribute('data-status', 'idle', { timeout: 30_000 })
  await untilIdle(b)
  const story = await lastAnswer(a).textContent()
  expect(story).toContain('Chapter 3')
  await expect(lastAnswer(b)).toHaveText(story!)

  // B asks for an approval; A, reloaded, shows it and approves; the tool runs once, on A.
  await send(b, 'Email bob@example.com about the roadmap')
  await expect(b.getByRole('dialog')).toBeVisible()
  await a.reload()
  const dialog = a.getByRole('dialog')
  await expect(dialog).toContainText('bob@example.com is outside the company domain')
  await dialog.getByRole('button', { name: 'Approve' }).click()
  const sent = 'Sent the email to bob@example.com with the subject "the roadmap".'
  await expect(lastAnswer(a)).toHaveText(sent)
  const outboxes = await Promise.all([a, b].map(async (page) => (await page.request.get('/api/outbox')).json() as Promise<{ subject: string }[]>))
  expect(outboxes.flat().filter((email) => email.subject === 'the roadmap')).toHaveLength(1)

  // B, reloaded, has the whole thread and continues it.
  await b.reload()
  await expect(lastAnswer(b)).toHaveText(sent)
  await send(b, 'Hello again')
  await expect(lastAnswer(b)).toHaveText(/Hello! I am the scripted demo model/)
  await a.reload()
  await expect(lastAnswer(a)).toHaveText(/Hello! I am the scripted demo model/)
  await expect(a.locator('.message--user')).toHaveCount(3)
})
