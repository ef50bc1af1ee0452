import { expect, test } from '@playwright/test'
import { lastAnswer, send, storedThread, toolCard } from './helpers.ts'

// The demo's approval dialog and tool cards are built from @toolgate/ai-react's headless hooks
// (useApprovalForm, useApprovalQueue, per-tool renderers): these flows go through them in Chromium.

test.beforeEach(async ({ page }) => {
  await page.goto('/')
})

test('edits a nested field of an approval and the server runs the edited call', async ({ page }) => {
  await send(page, 'Book a meeting for the launch review')
  const dialog = page.getByRole('dialog', { name: /Allow book_meeting\?/ })
  await expect(dialog).toBeVisible()
  await expect(dialog).toHaveAccessibleDescription('Books Atlas and invites 2 people')
  // Fields come from the tool's schema: nested objects, a list of objects, an enum, a number with bounds.
  await expect(dialog.getByLabel('Date')).toHaveValue('2026-12-01')
  await expect(dialog.getByLabel('Minutes')).toHaveValue('30')
  await expect(dialog.getByLabel('Room')).toHaveValue('0')
  const emails = dialog.getByLabel('email')
  await expect(emails).toHaveCount(2)
  await emails.nth(1).fill('carol@acme.test')
  await dialog.getByLabel('Room').selectOption({ label: 'Cirrus' })
  await dialog.getByRole('button', { name: 'Approve with edits' }).click()
  await expect(dialog).toBeHidden()
  await expect(lastAnswer(page)).toHaveText('Booked Cirrus for "Launch review" on 2026-12-01 (30 min) with ada@acme.test, carol@acme.test, as you edited it.')
  const booked = await (await page.request.get('/api/bookings')).json()
  expect(booked.at(-1)).toMatchObject({ room: 'Cirrus', attendees: [{ email: 'ada@acme.test' }, { name: 'Bob', email: 'carol@acme.test' }] })
})

test('shows an invalid edit on its field, sends nothing, and approves once it is fixed', async ({ page }) => {
  await send(page, 'Book a meeting for the launch review')
  const dialog = page.getByRole('dialog')
  const minutes = dialog.getByLabel('Minutes')
  await minutes.fill('500')
  await dialog.getByLabel('email').first().fill('not-an-email')
  await dialog.getByRole('button', { name: 'Approve with edits' }).click()
  // Each error sits on its field, wired by aria-describedby; the dialog stays open.
  await expect(minutes).toHaveAttribute('aria-invalid', 'true')
  await expect(minutes).toHaveAccessibleDescription(/240/)
  await expect(dialog.getByLabel('email').first()).toHaveAttribute('aria-invalid', 'true')
  await expect(dialog).toBeVisible()
  expect((await storedThread(page)).interrupts).toHaveLength(1)

  await minutes.fill('45')
  await dialog.getByLabel('email').first().fill('ada@acme.test')
  await expect(minutes).toHaveAttribute('aria-invalid', 'false')
  await minutes.press('Enter') // Enter approves
  await expect(dialog).toBeHidden()
  await expect(lastAnswer(page)).toContainText('(45 min)')
})

test('approves all of a batch of parallel calls at once', async ({ page }) => {
  await send(page, 'Clean up the logs and temp files')
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('1 of 2 waiting')
  await dialog.getByRole('button', { name: 'Approve all 2' }).click()
  await expect(page.getByRole('dialog')).toHaveCount(0)
  await expect(lastAnswer(page)).toHaveText(/^Deleted \d+ files matching \*\.log\. Deleted \d+ files matching \*\.tmp\.$/)
  await expect(toolCard(page, 'delete_files').getByRole('status')).toHaveText(['Done', 'Done'])
})

test('a client tool waits for the user, who answers in its card', async ({ page }) => {
  await send(page, 'Pick a color for me')
  const question = toolCard(page, 'ask_user').getByRole('group', { name: 'Which accent color do you like?' })
  await expect(question).toBeVisible()
  await expect(page.locator('.app')).toHaveAttribute('data-status', 'running-tools')
  // Answered from the keyboard, as the question's buttons are reachable by Tab.
  await question.getByRole('button', { name: 'Coral' }).focus()
  await page.keyboard.press('Enter')
  await expect(lastAnswer(page)).toHaveText('You chose Coral.')
  await expect(toolCard(page, 'ask_user').getByLabel('Result')).toContainText('"choice": "Coral"')
})

test('renders a generative weather card', async ({ page }) => {
  await send(page, 'What is the weather in Paris?')
  await expect(toolCard(page, 'get_weather').getByLabel('Weather in Paris')).toHaveText(/18°C\s*Paris · sunny/)
})
