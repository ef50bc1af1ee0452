import { expect, test } from '@playwright/test'
import { lastAnswer, send, storedThread, toolCard } from './helpers.ts'

// The reviewer flow end to end: Alice asks for a transfer in the chat, the server hands the review
// link to the app (the demo's outbox), Bob from finance opens it in his own browser, edits and
// approves, and Alice's chat, told by push, resumes live and shows who approved.

test('a transfer waits for finance; a reviewer approves through the outbox link and the chat shows who did', async ({ page, browser, baseURL }) => {
  await page.goto('/')
  await send(page, 'Transfer 250 EUR to Carol')
  const card = toolCard(page, 'transfer_money')
  await expect(card.getByTestId('waiting-for')).toHaveText('Waits for finance, asked by Alice. Transfers 250 EUR to Carol')
  await expect(card.getByRole('status')).toHaveText('Awaiting approval')
  await expect(page.getByTestId('chat-status')).toHaveText('Waiting for finance')
  // The requester gets no approval dialog: it is not hers to decide.
  await expect(page.getByRole('dialog')).toHaveCount(0)

  const bobContext = await browser.newContext({ baseURL })
  await bobContext.addCookies([{ name: 'demo_user', value: 'bob', url: baseURL! }])
  const bob = await bobContext.newPage()
  await bob.goto('/outbox')
  const request = bob.getByRole('listitem').filter({ hasText: 'Alice asks to run transfer_money' }).first()
  await expect(request).toContainText('"amount": 250')
  await request.getByRole('link', { name: 'Open review' }).click()
  await expect(bob.getByRole('heading', { name: 'Transfers 250 EUR to Carol' })).toBeVisible()
  await expect(bob.getByText('Asked by Alice')).toBeVisible()
  await bob.locator('input[name="amount"]').fill('200')
  // Alice's chat waits on the thread (`GET ?watch=<version>`); the server answers it when Bob's decision lands: a push.
  const pushed = page.waitForResponse((response) => /[?&]watch=[1-9]/.test(response.url()) && response.status() === 200)
  await bob.getByRole('button', { name: 'Approve' }).click()
  await pushed
  await expect(bob.getByTestId('review-decided')).toHaveText('Approved as Bob. The conversation continues.')

  // Alice's chat, untouched, follows the run Bob resumed.
  await expect(card.getByRole('status')).toHaveText('Done')
  await expect(card.getByTestId('decision')).toContainText(/^Edited by Bob at .+ via a review link, edited: amount$/)
  await expect(lastAnswer(page)).toHaveText('Transferred 200 EUR to Carol.')
  const thread = await storedThread(page)
  expect(thread.messages.find((m) => m.role === 'tool')).toMatchObject({ status: 'success', decision: { decision: 'edited', by: { id: 'bob' }, channel: 'review-link' } })

  // The link works once.
  await bob.reload()
  await expect(bob.getByTestId('review-error')).toHaveText('This link cannot be usedThis request was already decided, or this link was used.')
  await expect(bob.getByRole('button', { name: 'Approve' })).toHaveCount(0)
  await bobContext.close()
})

test('the requester signed in as a reviewer still cannot approve her own transfer', async ({ page, context, baseURL }) => {
  await context.addCookies([{ name: 'demo_user', value: 'bob', url: baseURL! }])
  await page.goto('/')
  await send(page, 'Transfer 90 EUR to Dan')
  await expect(toolCard(page, 'transfer_money').getByTestId('waiting-for')).toHaveText('Waits for finance, asked by Bob. Transfers 90 EUR to Dan')
  await page.goto('/outbox')
  await page.getByRole('listitem').filter({ hasText: 'Bob asks to run transfer_money' }).first().getByRole('link', { name: 'Open review' }).click()
  // Told before any form, in a sentence naming the tool; nothing to press.
  const refused = page.getByTestId('review-refused')
  await expect(refused).toHaveAttribute('data-code', 'REVIEWER_REQUIRED')
  await expect(refused).toContainText('Bob asks to run transfer_money (Transfers 90 EUR to Dan). "transfer_money" waits for a reviewer (finance); the person who asked for it may not decide it.')
  await expect(page.getByRole('button', { name: 'Approve' })).toHaveCount(0)
})

test('"Allow for this conversation": the next email runs without asking, and its card says it ran under the grant', async ({ page }) => {
  await page.goto('/')
  await send(page, 'Email bob@example.com about the party')
  const dialog = page.getByRole('dialog')
  await expect(dialog).toBeVisible()
  // A destructive tool never offers it; this one does.
  await dialog.getByRole('button', { name: 'Allow for this conversation' }).click()
  await expect(lastAnswer(page)).toHaveText('Sent the email to bob@example.com with the subject "the party".')
  await expect(toolCard(page, 'send_email').first().getByTestId('decision')).toContainText(/^Approved by Alice at /)

  await send(page, 'Email carol@example.com about lunch')
  await expect(lastAnswer(page)).toHaveText('Sent the email to carol@example.com with the subject "lunch".')
  await expect(page.getByRole('dialog')).toHaveCount(0)
  const second = toolCard(page, 'send_email').nth(1)
  await expect(second.getByRole('status')).toHaveText('Done')
  await expect(second.getByTestId('decision')).toContainText(/^Ran under a grant from Alice at /)
  const thread = await storedThread(page)
  const results = thread.messages.filter((m) => m.role === 'tool')
  expect(results.map((m) => (m as { decision?: { decision: string } }).decision?.decision)).toEqual(['approved', 'granted'])
  const grantId = (results[0] as { decision?: { grantId?: string } }).decision?.grantId
  expect(typeof grantId).toBe('string')
  expect((results[1] as { decision?: { grantId?: string } }).decision?.grantId).toBe(grantId)
})
