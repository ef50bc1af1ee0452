import { expect, test, type Page } from '@playwright/test'
import { lastAnswer, outbox, send, storedThread, toolCard } from './helpers.ts'

// Agents inside agents (issue 39) in the demo, wired as docs/subagents.md shows: the chat's model
// hands a task to the research assistant (an agent tool), whose email needs the user's approval.
// The run pauses with that inner call in the chat's own approval dialog, titled with its path.

const PROMPT = 'Ask the research assistant to look into the launch and email a summary to carol@example.com'

test.beforeEach(async ({ page }) => {
  await page.goto('/')
})

/** The research assistant's card and, inside it, its subagent's work. */
function assistant(page: Page) {
  const card = toolCard(page, 'research-assistant')
  return { card, subagent: card.locator('.subagent[data-agent="research-assistant"]') }
}

async function emailsTo(page: Page, to: string) {
  return (await outbox(page)).filter((email) => email.to === to)
}

test('the turn pauses on the inner approval, shown with its path; approved, the email is sent once and the reply follows', async ({ page }) => {
  const before = (await emailsTo(page, 'carol@example.com')).length
  await send(page, PROMPT)
  const dialog = page.getByRole('dialog', { name: 'Allow research-assistant → send_email?' })
  await expect(dialog).toBeVisible()
  await expect(dialog).toHaveAccessibleDescription('carol@example.com is outside the company domain')
  await expect(dialog.getByLabel('to')).toHaveValue('carol@example.com')

  // Behind the dialog: the agent's card holds its own steps, the email waiting in it.
  const { card, subagent } = assistant(page)
  await expect(card.getByRole('status').first()).toHaveText('Running…')
  await expect(subagent.locator('.subagent__status')).toHaveText('Waiting for an answer')
  await expect(subagent.locator('.subagent__text').first()).toHaveText('Searching the notes.')
  await expect(toolCard(page, 'search_notes').getByRole('status')).toHaveText('Done')
  await expect(subagent.locator('.tool-card[data-tool="send_email"]').getByRole('status')).toHaveText('Awaiting approval')
  const paused = await storedThread(page)
  expect(paused.interrupts).toMatchObject([{ toolName: 'send_email', path: [{ agent: 'research-assistant' }] }])

  await dialog.getByRole('button', { name: 'Approve' }).click()
  await expect(dialog).toBeHidden()
  await expect(lastAnswer(page)).toHaveText('The research assistant reports: Emailed a summary to carol@example.com.')
  await expect(subagent.locator('.subagent__status')).toHaveText('Done')
  await expect(card.getByRole('status').first()).toHaveText('Done')
  const sent = await emailsTo(page, 'carol@example.com')
  expect(sent).toHaveLength(before + 1)
  expect(sent.at(-1)).toMatchObject({ subject: 'Notes on the launch', body: expect.stringContaining('Code freeze on Monday') })
  expect((await storedThread(page)).status).toBe('idle')
})

test('denied with a reason, the email is not sent and the assistant says why', async ({ page }) => {
  const before = (await emailsTo(page, 'dave@example.com')).length
  await send(page, PROMPT.replace('carol@', 'dave@'))
  const dialog = page.getByRole('dialog', { name: 'Allow research-assistant → send_email?' })
  await dialog.getByLabel('Reason for denying').fill('Dave is on leave')
  await dialog.getByRole('button', { name: 'Deny' }).click()
  await expect(dialog).toBeHidden()
  await expect(lastAnswer(page)).toHaveText('The research assistant reports: Okay, I did not send the summary. You said: "Dave is on leave".')
  await expect(assistant(page).subagent.locator('.tool-card[data-tool="send_email"]').getByTestId('deny-reason')).toHaveText('Reason: Dave is on leave')
  expect(await emailsTo(page, 'dave@example.com')).toHaveLength(before)
})

test('an edit is checked against the inner tool’s schema, and the edited email is the one sent', async ({ page }) => {
  await send(page, PROMPT.replace('carol@', 'erin@'))
  const dialog = page.getByRole('dialog', { name: 'Allow research-assistant → send_email?' })
  const to = dialog.getByLabel('to')
  await to.fill('not an address')
  await dialog.getByRole('button', { name: 'Approve with edits' }).click()
  await expect(to).toHaveAttribute('aria-invalid', 'true')
  await to.fill('frank@example.com')
  await dialog.getByRole('button', { name: 'Approve with edits' }).click()
  await expect(lastAnswer(page)).toHaveText('The research assistant reports: Emailed a summary to frank@example.com.')
  expect(await emailsTo(page, 'erin@example.com')).toHaveLength(0)
  expect((await emailsTo(page, 'frank@example.com')).at(-1)).toMatchObject({ subject: 'Notes on the launch' })
})

test('a reload while it waits shows the approval again, with its path, inside the agent’s card; approved, it runs once', async ({ page }) => {
  const before = (await emailsTo(page, 'gina@example.com')).length
  await send(page, PROMPT.replace('carol@', 'gina@'))
  await expect(page.getByRole('dialog', { name: 'Allow research-assistant → send_email?' })).toBeVisible()
  await page.reload()

  const dialog = page.getByRole('dialog', { name: 'Allow research-assistant → send_email?' })
  await expect(dialog).toBeVisible()
  await expect(dialog.getByLabel('to')).toHaveValue('gina@example.com')
  const { subagent } = assistant(page)
  await expect(subagent.locator('.subagent__status')).toHaveText('Waiting for an answer')
  await expect(subagent.locator('.tool-card[data-tool="send_email"]').getByRole('status')).toHaveText('Awaiting approval')

  await dialog.getByRole('button', { name: 'Approve' }).click()
  await expect(lastAnswer(page)).toHaveText('The research assistant reports: Emailed a summary to gina@example.com.')
  expect(await emailsTo(page, 'gina@example.com')).toHaveLength(before + 1)
})
