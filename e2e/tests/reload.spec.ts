import { expect, test } from '@playwright/test'
import { lastAnswer, send, storedThread, threadIdOf, toolCard, untilIdle } from './helpers.ts'

// What a reload shows is what the server stored: each test answers or stops in the page, reloads,
// and checks the page and `GET ?threadId=` tell the same story as before the reload.

test.beforeEach(async ({ page }) => {
  await page.goto('/')
})

test('a reload of a half-answered batch shows the recorded denial, and the rest can still be answered', async ({ page }) => {
  await send(page, 'Clean up the logs and temp files')
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('1 of 2 waiting')
  await dialog.getByLabel('Reason for denying').fill('Keep the logs')
  await dialog.getByRole('button', { name: 'Deny' }).click()
  // The denial is stored once the dialog moves on to the second call.
  await expect(page.getByRole('dialog').getByLabel('pattern')).toHaveValue('*.tmp')
  const threadId = threadIdOf(page)
  await expect
    .poll(async () => ((await (await page.request.get(`/api/chat?threadId=${threadId}`)).json()) as { answers?: unknown[] }).answers?.length ?? 0)
    .toBe(1)

  await page.reload()
  const logs = toolCard(page, 'delete_files').first()
  await expect(logs.getByRole('status')).toHaveText('Denied')
  await expect(logs.getByTestId('deny-reason')).toHaveText('Reason: Keep the logs')
  await expect(logs.getByTestId('decision')).toHaveText(/^Denied by Alice at .+$/)
  // The server's snapshot holds the answer beside the call that still waits.
  const thread = (await (await page.request.get(`/api/chat?threadId=${threadId}`)).json()) as {
    status: string
    interrupts: { toolCallId: string }[]
    answers: { toolCallId: string; approved: boolean; reason: string; decision: { decision: string; by: { id: string } } }[]
  }
  expect(thread.status).toBe('interrupted')
  expect(thread.interrupts).toHaveLength(1)
  expect(thread.answers).toEqual([
    expect.objectContaining({ approved: false, reason: 'Keep the logs', decision: expect.objectContaining({ decision: 'denied', by: expect.objectContaining({ id: 'alice' }) }) }),
  ])
  expect(thread.answers[0]!.toolCallId).not.toBe(thread.interrupts[0]!.toolCallId)

  // Only the second call is asked again; approving it completes the batch as before.
  const again = page.getByRole('dialog')
  await expect(again.getByLabel('pattern')).toHaveValue('*.tmp')
  await again.getByRole('button', { name: 'Approve', exact: true }).click()
  await untilIdle(page)
  await expect(lastAnswer(page)).toHaveText(/^I left the files matching \*\.log alone, as you said: "Keep the logs"\. Deleted \d+ files matching \*\.tmp\.$/)
  await expect(logs.getByRole('status')).toHaveText('Denied')
  const settled = await storedThread(page)
  expect(settled.interrupts).toEqual([])
  expect(settled.messages.filter((m) => m.role === 'tool').map((m) => m.status)).toEqual(['denied', 'success'])
})

test('a stopped reply is still marked stopped after a reload', async ({ page }) => {
  await send(page, 'Tell me a story')
  await expect(lastAnswer(page)).toContainText('Chapter 2')
  await page.getByRole('button', { name: 'Stop' }).click()
  const note = page.locator('.message--assistant').last().getByRole('note')
  await expect(note).toHaveText('Stopped: you ended this reply here.')
  await expect.poll(async () => (await storedThread(page)).status).toBe('idle')
  const stored = (await storedThread(page)).messages.filter((m) => m.role === 'assistant').at(-1) as { content: string; stopped?: boolean } | undefined
  expect(stored?.stopped).toBe(true)

  await page.reload()
  // The stored reply (the model may have said a little more than reached the page before the stop).
  await expect(lastAnswer(page)).toHaveText(stored!.content)
  await expect(note).toHaveText('Stopped: you ended this reply here.')
  // A reply that ran to its end is not marked.
  await send(page, 'Hello again')
  await expect(lastAnswer(page)).toHaveText(/Hello! I am the scripted demo model/)
  await page.reload()
  await expect(page.locator('.message--assistant').last().getByRole('note')).toHaveCount(0)
  await expect(page.locator('.message--assistant').getByRole('note')).toHaveCount(1)
})

test('who approved and what they edited stays on the card after a reload', async ({ page }) => {
  await send(page, 'Email bob@example.com about the offsite')
  const dialog = page.getByRole('dialog')
  await dialog.getByLabel('subject').fill('Offsite moved to Friday')
  await dialog.getByRole('button', { name: 'Approve with edits' }).click()
  await untilIdle(page)
  const card = toolCard(page, 'send_email')
  await expect(card.getByRole('status')).toHaveText('Done')
  await expect(card.getByTestId('decision')).toHaveText(/^Edited by Alice at .+, edited: subject$/)
  const live = await card.getByTestId('decision').textContent()

  await page.reload()
  await expect(card.getByRole('status')).toHaveText('Done')
  await expect(card.getByTestId('decision')).toHaveText(live!)
})
