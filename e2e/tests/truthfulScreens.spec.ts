import { expect, test } from '@playwright/test'
import { lastAnswer, send, threadIdOf, toolCard, untilIdle } from './helpers.ts'

// What the screens say matches what is true: whom a call waits for, who may act where, the same
// decision text live and after a reload, a grant that can be seen and revoked, and a status line
// that follows what the page shows.

test('the reviewer opening the thread reads "Waits for you" and decides there; the requester reads "Waiting for finance" and follows', async ({ page, browser, baseURL }) => {
  await page.goto('/')
  await send(page, 'Transfer 250 EUR to Carol')
  const card = toolCard(page, 'transfer_money')
  await expect(card.getByTestId('waiting-for')).toHaveText('Waits for finance, asked by Alice. Transfers 250 EUR to Carol')
  await expect(page.getByTestId('chat-status')).toHaveText('Waiting for finance')
  await expect(page.getByRole('dialog')).toHaveCount(0)

  const bobContext = await browser.newContext({ baseURL })
  await bobContext.addCookies([{ name: 'demo_user', value: 'bob', url: baseURL! }])
  const bob = await bobContext.newPage()
  await bob.goto(`/?thread=${threadIdOf(page)}`)
  const bobCard = toolCard(bob, 'transfer_money')
  await expect(bobCard.getByTestId('waiting-for')).toHaveText('Waits for you, asked by Alice. Transfers 250 EUR to Carol Review')
  await expect(bob.getByTestId('chat-status')).toHaveText('Waiting for your approval')
  const dialog = bob.getByRole('dialog')
  await expect(dialog).toBeVisible()
  await dialog.getByRole('button', { name: 'Approve', exact: true }).click()
  await expect(bobCard.getByTestId('decision')).toHaveText(/^Approved by Bob at .+$/)

  // Alice's page, untouched, follows.
  await expect(card.getByRole('status')).toHaveText('Done')
  await expect(card.getByTestId('decision')).toHaveText(/^Approved by Bob at .+$/)
  await expect(lastAnswer(page)).toHaveText('Transferred 250 EUR to Carol.')
  await bobContext.close()
})

test('a denied server tool and an approved browser tool read the same live and after a reload', async ({ page, context, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL })
  await page.goto('/')
  await send(page, 'Email bob@example.com about the offsite')
  const dialog = page.getByRole('dialog')
  await dialog.getByLabel(/Reason for denying/).fill('Not this week')
  await dialog.getByRole('button', { name: 'Deny' }).click()
  await untilIdle(page)
  const email = toolCard(page, 'send_email')
  await expect(email.getByTestId('decision')).toHaveText(/^Denied by Alice at .+$/)
  await expect(email.getByTestId('deny-reason')).toHaveText('Reason: Not this week')

  await send(page, 'Copy "hello world" to my clipboard')
  await page.getByRole('dialog').getByRole('button', { name: 'Approve', exact: true }).click()
  await expect(lastAnswer(page)).toHaveText('Copied "hello world" to your clipboard.')
  const copy = toolCard(page, 'copy_to_clipboard')
  await expect(copy.getByTestId('decision')).toHaveText(/^Approved by Alice at .+$/)

  const live = [await email.textContent(), await copy.textContent()]
  await page.reload()
  await expect(copy.getByRole('status')).toHaveText('Done')
  expect([await email.textContent(), await copy.textContent()]).toEqual(live)
})

test('"Allow for this conversation" shows the grant, and revoking it makes the next call ask again', async ({ page }) => {
  await page.goto('/')
  await send(page, 'Email bob@example.com about the party')
  await page.getByRole('dialog').getByRole('button', { name: 'Allow for this conversation' }).click()
  await untilIdle(page)
  await expect(toolCard(page, 'send_email').getByTestId('decision')).toHaveText(/^Approved by Alice at .+, allowed for this conversation$/)
  const grant = page.getByTestId('grant')
  await expect(grant).toHaveText('send_email runs without asking in this conversation (allowed by Alice)Revoke')

  await grant.getByRole('button', { name: 'Revoke' }).click()
  await expect(grant).toHaveCount(0)
  await send(page, 'Email carol@example.com about lunch')
  await expect(page.getByRole('dialog')).toBeVisible()
})

test('after a reload mid-reply the status line says the reply is being written, not "Thinking…"', async ({ page }) => {
  await page.goto('/')
  await send(page, 'Tell me a story')
  await expect(lastAnswer(page)).toContainText('Chapter 2')
  await page.reload()
  await expect(lastAnswer(page)).toContainText('Chapter')
  await expect(page.getByTestId('chat-status')).toHaveText('Writing…')
  await page.getByRole('button', { name: 'Stop' }).click()
})
