import { expect, test } from '@playwright/test'
import { lastAnswer, send, threadIdOf } from './helpers.ts'

test.beforeEach(async ({ page }) => {
  await page.goto('/')
})

test('the devtools panel shows a run’s timeline with timings and token usage', async ({ page }) => {
  await page.getByRole('button', { name: /Weather/ }).click()
  await expect(lastAnswer(page)).toHaveText('Paris: 18°C and sunny.')
  await page.getByRole('button', { name: 'Devtools' }).click()

  const panel = page.getByTestId('toolgate-devtools')
  await expect(panel).toBeVisible()
  await expect(panel).toContainText(threadIdOf(page))
  const timeline = panel.getByTestId('devtools-timeline')
  const events = timeline.getByTestId('devtools-event')
  await expect(events.first()).toHaveAttribute('data-type', 'RUN_STARTED')
  await expect(events.last()).toHaveAttribute('data-type', 'RUN_FINISHED')
  await expect(timeline.locator('[data-type="TOOL_CALL_START"]')).toContainText('get_weather')
  await expect(timeline.locator('[data-type="TOOL_CALL_RESULT"]')).toContainText('success')
  await expect(timeline.locator('[data-type="TOOL_CALL_RESULT"]')).toContainText(/\+\d+ ms/)
  await expect(timeline.getByTestId('devtools-usage')).toContainText(/\d+ in \/ \d+ out tokens/)

  await panel.getByRole('tab', { name: 'Frames' }).click()
  await expect(panel.getByTestId('devtools-frames')).toContainText('"type":"RUN_STARTED"')
  await panel.getByRole('tab', { name: 'Messages' }).click()
  await expect(panel).toContainText('get_weather → success')
})

test('the devtools panel shows a pending approval, then its decision once answered, and the whole decision record', async ({ page }) => {
  await page.getByRole('button', { name: 'Devtools' }).click()
  const panel = page.getByTestId('toolgate-devtools')
  await expect(panel).toContainText('No thread yet')
  await panel.getByRole('tab', { name: /Interrupts/ }).click()

  await send(page, 'Email bob@example.com about the quarterly numbers')
  const dialog = page.getByRole('dialog')
  await expect(dialog).toBeVisible()
  const interrupt = panel.getByTestId('devtools-interrupt')
  await expect(interrupt).toContainText('send_email')
  await expect(interrupt).toContainText('tool_approval')
  await expect(interrupt).toContainText(/asked \d+ (ms|s)/)
  await expect(interrupt).toContainText('never expires')
  await expect(interrupt.getByTestId('devtools-decision')).toHaveText('pending')
  await expect(panel.getByTestId('devtools-status')).toHaveText('interrupted')

  await dialog.getByRole('button', { name: 'Deny' }).click()
  await expect(dialog).toBeHidden()
  await expect(panel.getByTestId('devtools-status')).toHaveText('idle')
  await expect(panel).toContainText('Nothing waits for an answer.')
  const records = panel.getByTestId('devtools-record')
  await expect(records).toHaveCount(1)
  await expect(records.first()).toContainText(/^denied\s*send_email by Alice via chat at /)

  // An approval is in the record too, and a grant it made is listed until revoked.
  await send(page, 'Email carol@example.com about lunch')
  await dialog.getByRole('button', { name: 'Allow for this conversation' }).click()
  await expect(lastAnswer(page)).toHaveText('Sent the email to carol@example.com with the subject "lunch".')
  await expect(records).toHaveCount(2)
  await expect(records.nth(1)).toContainText(/^approved\s*send_email by Alice via chat at .+ · grant /)
  await expect(panel.getByTestId('devtools-grant')).toContainText(/send_email\s*by Alice at .+, for the thread/)
})
