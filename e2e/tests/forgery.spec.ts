import { expect, test, type Page } from '@playwright/test'
import { send, storedThread, threadIdOf } from './helpers.ts'

/** A resume as a tampering user would send it from the page's own console. */
function resume(page: Page, body: unknown) {
  return page.evaluate(async (payload) => {
    const response = await fetch('/api/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    })
    const type = response.headers.get('content-type') ?? ''
    return { status: response.status, body: type.includes('json') ? await response.json() : await response.text() }
  }, body)
}

test('the server refuses forged and replayed answers and changes nothing', async ({ page }) => {
  await page.goto('/')
  await send(page, 'Email bob@example.com about the audit')
  await expect(page.getByRole('dialog')).toBeVisible()
  const threadId = threadIdOf(page)
  const before = await storedThread(page)
  expect(before.interrupts).toHaveLength(1)

  const unknown = await resume(page, { threadId, resume: [{ interruptId: 'int_forged', approved: true }] })
  expect(unknown.status).toBe(404)
  expect(unknown.body).toMatchObject({ error: { code: 'INTERRUPT_NOT_FOUND' } })

  const interruptId = before.interrupts[0]!.id
  const serverResult = await resume(page, { threadId, resume: [{ interruptId, output: { sent: true, to: 'x' } }] })
  expect(serverResult.status).toBe(422)
  expect(serverResult.body).toMatchObject({ error: { code: 'ANSWER_MISMATCH' } })

  expect(await storedThread(page)).toEqual(before)

  // The genuine answer, through the page, then the same answer replayed.
  await page.getByRole('dialog').getByRole('button', { name: 'Deny' }).click()
  await expect(page.locator('.tool-card[data-tool="send_email"]').getByRole('status')).toHaveText('Denied')
  const after = await storedThread(page)
  const replay = await resume(page, { threadId, resume: [{ interruptId, approved: true }] })
  expect(replay.status).toBe(409)
  expect(replay.body).toMatchObject({ error: { code: 'INTERRUPT_ALREADY_ANSWERED' } })
  expect(await storedThread(page)).toEqual(after)
})

test('another thread id cannot be guessed into', async ({ page }) => {
  await page.goto('/')
  const response = await resume(page, { threadId: 'thr_does_not_exist', resume: [{ interruptId: 'x', approved: true }] })
  expect(response.status).toBe(404)
  expect(response.body).toMatchObject({ error: { code: 'THREAD_NOT_FOUND' } })
})
