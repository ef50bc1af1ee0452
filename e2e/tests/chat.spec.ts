import { expect, test } from '@playwright/test'
import { lastAnswer, outbox, send, storedThread, threadIdOf, toolCard } from './helpers.ts'

test.beforeEach(async ({ page }) => {
  await page.goto('/')
})

test('answers in plain text', async ({ page }) => {
  await send(page, 'Hello there')
  await expect(lastAnswer(page)).toHaveText(/Hello! I am the scripted demo model/)
  const thread = await storedThread(page)
  expect(thread.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
  expect(thread.status).toBe('idle')
})

test('runs a server tool and shows its result', async ({ page }) => {
  await page.getByRole('button', { name: /Weather/ }).click()
  const card = toolCard(page, 'get_weather')
  await expect(card.getByRole('status')).toHaveText('Done')
  await expect(card.getByLabel('Arguments')).toContainText('"city": "Paris"')
  // The result shows once: as the weather card, not again as raw JSON.
  await expect(card.getByLabel('Weather in Paris')).toHaveText(/18°C\s*Paris · sunny/)
  await expect(card.getByLabel('Result')).toHaveCount(0)
  await expect(lastAnswer(page)).toHaveText('Paris: 18°C and sunny.')
  const thread = await storedThread(page)
  expect(thread.messages.find((m) => m.role === 'tool')).toMatchObject({ status: 'success' })
})

test('shows the error of a server tool that fails', async ({ page }) => {
  await send(page, 'What is the weather in Atlantis?')
  const card = toolCard(page, 'get_weather')
  await expect(card.getByRole('status')).toHaveText('Failed')
  await expect(card.getByRole('alert')).toContainText('No weather station reports for "Atlantis"')
  await expect(lastAnswer(page)).toContainText('I could not get the weather for Atlantis')
})

test('runs several tools at once', async ({ page }) => {
  await send(page, 'Give me a morning briefing')
  await expect(page.locator('.tool-card')).toHaveCount(3)
  for (const card of await page.locator('.tool-card').all()) await expect(card.getByRole('status')).toHaveText('Done')
  await expect(lastAnswer(page)).toContainText('Paris: 18°C and sunny. Tokyo: 22°C and light rain.')
  await expect(lastAnswer(page)).toContainText('time zone')
  const thread = await storedThread(page)
  const calls = thread.messages.find((m) => m.toolCalls?.length)?.toolCalls ?? []
  expect(calls.map((c) => c.name)).toEqual(['get_weather', 'get_weather', 'get_browser_info'])
})

test('asks before emailing outside the company, and sends once approved', async ({ page }) => {
  const before = (await outbox(page)).length
  await send(page, 'Email bob@example.com about the quarterly numbers')
  const dialog = page.getByRole('dialog')
  await expect(dialog).toBeVisible()
  await expect(dialog).toContainText('bob@example.com is outside the company domain')
  await expect(dialog.getByLabel('to')).toHaveValue('bob@example.com')
  await expect(dialog.getByLabel('subject')).toHaveValue('the quarterly numbers')
  await expect(dialog.getByLabel('body')).toHaveValue(/quick note about the quarterly numbers/)
  await dialog.getByRole('button', { name: 'Approve' }).click()
  await expect(dialog).toBeHidden()
  await expect(lastAnswer(page)).toHaveText('Sent the email to bob@example.com with the subject "the quarterly numbers".')
  const sent = await outbox(page)
  expect(sent).toHaveLength(before + 1)
  expect(sent.at(-1)).toMatchObject({ to: 'bob@example.com', subject: 'the quarterly numbers' })
})

test('sends the edited email when the user edits before approving', async ({ page }) => {
  await send(page, 'Email bob@example.com about the offsite')
  const dialog = page.getByRole('dialog')
  await dialog.getByLabel('to').fill('carol@example.com')
  await dialog.getByLabel('subject').fill('Offsite moved to Friday')
  await dialog.getByRole('button', { name: 'Approve with edits' }).click()
  await expect(lastAnswer(page)).toHaveText(
    'Sent the email to carol@example.com with the subject "Offsite moved to Friday", as you edited it.',
  )
  expect((await outbox(page)).at(-1)).toMatchObject({ to: 'carol@example.com', subject: 'Offsite moved to Friday' })
  const thread = await storedThread(page)
  const call = thread.messages.find((m) => m.toolCalls?.length)?.toolCalls?.[0]
  expect(JSON.parse(call!.arguments)).toMatchObject({ to: 'carol@example.com', subject: 'Offsite moved to Friday' })
  expect(thread.messages.find((m) => m.role === 'tool')).toMatchObject({ status: 'success', edited: true })
})

test('tells the model why the user denied', async ({ page }) => {
  const before = (await outbox(page)).length
  await send(page, 'Email bob@example.com about the secret plan')
  const dialog = page.getByRole('dialog')
  await dialog.getByLabel('Reason for denying').fill('Not to externals, please')
  await dialog.getByRole('button', { name: 'Deny' }).click()
  await expect(lastAnswer(page)).toHaveText('Okay, I did not send the email. You said: "Not to externals, please".')
  await expect(toolCard(page, 'send_email').getByRole('status')).toHaveText('Denied')
  expect(await outbox(page)).toHaveLength(before)
  const thread = await storedThread(page)
  expect(thread.messages.find((m) => m.role === 'tool')).toMatchObject({ status: 'denied', reason: 'Not to externals, please' })
})

test('does not ask when the policy is not triggered', async ({ page }) => {
  await send(page, 'Email alice@acme.test about the launch')
  await expect(lastAnswer(page)).toHaveText('Sent the email to alice@acme.test with the subject "the launch".')
  await expect(page.getByRole('dialog')).toHaveCount(0)
  expect((await outbox(page)).at(-1)).toMatchObject({ to: 'alice@acme.test' })
})

test('always asks for a destructive tool and marks it so', async ({ page }) => {
  await send(page, 'Delete the *.log files')
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByText('Destructive')).toBeVisible()
  await dialog.getByRole('button', { name: 'Deny' }).click()
  await expect(lastAnswer(page)).toHaveText('Okay, I did not delete anything.')
  // The model read the tool's rejectMessage.
  const thread = await storedThread(page)
  expect(thread.messages.find((m) => m.role === 'tool')).toMatchObject({
    status: 'denied',
    content: 'The user declined to delete files matching *.log. Do not try again unless they ask.',
  })
})

test('a client tool switches the page theme', async ({ page }) => {
  await page.evaluate(() => (document.documentElement.dataset.theme = 'light'))
  await send(page, 'Switch to dark mode')
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  await expect(toolCard(page, 'set_theme').getByRole('status')).toHaveText('Done')
  await expect(lastAnswer(page)).toHaveText('Switched to the dark theme.')
  await send(page, 'Back to light mode')
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light')
})

test('a client tool reports the browser time zone and language', async ({ page }) => {
  await send(page, 'What is my time zone?')
  const { timeZone, language } = await page.evaluate(() => ({
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    language: navigator.language,
  }))
  await expect(lastAnswer(page)).toHaveText(`Your time zone is ${timeZone} and your language is ${language}.`)
})

test('a client tool that needs approval runs in the browser once approved', async ({ page, context, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL })
  await send(page, 'Copy "hello world" to my clipboard')
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByLabel('text')).toHaveValue('hello world')
  await dialog.getByRole('button', { name: 'Approve' }).click()
  await expect(lastAnswer(page)).toHaveText('Copied "hello world" to your clipboard.')
  await expect(toolCard(page, 'copy_to_clipboard').getByLabel('Result')).toContainText('"copied": true')
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('hello world')
})

test('a reload keeps the conversation and its pending approval', async ({ page }) => {
  await send(page, 'Email bob@example.com about the budget')
  await expect(page.getByRole('dialog')).toBeVisible()
  const threadId = threadIdOf(page)
  await page.reload()
  expect(threadIdOf(page)).toBe(threadId)
  await expect(page.locator('.message--user')).toHaveText(/Email bob@example.com about the budget/)
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('bob@example.com is outside the company domain')
  await dialog.getByRole('button', { name: 'Approve' }).click()
  await expect(lastAnswer(page)).toHaveText('Sent the email to bob@example.com with the subject "the budget".')
  expect((await storedThread(page)).interrupts).toEqual([])
})

test('Escape closes the approval dialog and Review opens it again', async ({ page }) => {
  await send(page, 'Delete the *.tmp files')
  await expect(page.getByRole('dialog')).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('dialog')).toHaveCount(0)
  const card = toolCard(page, 'delete_files')
  await expect(card.getByRole('status')).toHaveText('Awaiting approval')
  await card.getByRole('button', { name: 'Review' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click()
  await expect(lastAnswer(page)).toHaveText(/^Deleted \d+ files matching \*\.tmp\.$/)
})

test('stops a long answer mid-stream', async ({ page }) => {
  await send(page, 'Tell me a story')
  await expect(lastAnswer(page)).toContainText('Chapter 2')
  await page.getByRole('button', { name: 'Stop' }).click()
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0)
  const shown = await lastAnswer(page).textContent()
  expect(shown).not.toContain('Chapter 60')
  // The stopped reply says so, under its text.
  await expect(page.locator('.message--assistant').last().getByRole('note')).toHaveText('Stopped: you ended this reply here.')
  // Stopped means the server ended the run: once it says the thread is idle, nothing more arrives.
  await expect.poll(async () => (await storedThread(page)).status).toBe('idle')
  expect(await lastAnswer(page).textContent()).toBe(shown)
  const stored = (await storedThread(page)).messages.filter((m) => m.role === 'assistant').at(-1)
  expect(stored?.content).not.toContain('Chapter 60')
  // The thread stays usable: the next message gets an answer.
  await send(page, 'Hello again')
  await expect(lastAnswer(page)).toHaveText(/Hello! I am the scripted demo model/)
})

test('a stop the server never gets is said: the reply went on there, and Reload shows it', async ({ page }) => {
  // The network drops the stop request (as offline would); everything else goes through.
  await page.route('**/api/chat', (route) => (route.request().method() === 'POST' && route.request().postData()?.includes('"stop":true') ? route.abort('internetdisconnected') : route.fallback()))
  await send(page, 'Tell me a story')
  await expect(lastAnswer(page)).toContainText('Chapter 2')
  await page.getByRole('button', { name: 'Stop' }).click()
  await expect(page.getByRole('alert')).toContainText('The run may still be going on the server: stopping it failed.')
  // It did go on: once the server says the thread is idle, Reload shows the whole story.
  await expect.poll(async () => (await storedThread(page)).status, { timeout: 30_000 }).toBe('idle')
  await page.getByRole('button', { name: 'Reload thread' }).click()
  await expect(page.getByRole('alert')).toHaveCount(0)
  await expect(lastAnswer(page)).toContainText('Chapter 60')
})

test('a new message while an approval is pending cancels it: no one said no', async ({ page }) => {
  await send(page, 'Email bob@example.com about the party')
  await expect(page.getByRole('dialog')).toBeVisible()
  await page.keyboard.press('Escape')
  await send(page, 'Hello')
  await expect(lastAnswer(page)).toHaveText(/Hello! I am the scripted demo model/)
  await expect(toolCard(page, 'send_email').getByRole('status')).toHaveText('Cancelled')
  const thread = await storedThread(page)
  expect(thread.messages.find((m) => m.role === 'tool')).toMatchObject({
    status: 'cancelled',
    reason: 'the user sent a new message instead',
    content: 'The request was cancelled before anyone decided (the user sent a new message instead); the tool did not run.',
  })
})
