import { expect, test, type Page } from '@playwright/test'
import { AI_SDK_PAGE_PORT } from '../frontends/ai-sdk/port.ts'
import { COPILOTKIT_PAGE_PORT } from '../frontends/copilotkit/port.ts'
import { outbox } from './helpers.ts'

// Other frontends know no subagents (docs/subagents.md, "Other frontends"): the demo's research
// assistant, asked from CopilotKit's CopilotChat and from the AI SDK's useChat (pages that use
// nothing of Toolgate's client), degrades to a plain approval of the inner call. Answered there,
// the subagent and the turn go on, and the email is sent once; CopilotKit logs no error.

const prompt = (to: string) => `Ask the research assistant to look into the launch and email a summary to ${to}`
const emailsTo = async (page: Page, to: string) => (await outbox(page)).filter((email) => email.to === to)

test.describe('CopilotKit v2 CopilotChat', () => {
  // A run CopilotKit refuses (an event or an interrupt its schemas reject) shows only in the console.
  let errors: string[] = []
  test.beforeEach(({ page }) => {
    errors = []
    page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())))
    page.on('pageerror', (error) => void errors.push(error.message))
  })
  test.afterEach(() => expect(errors).toEqual([]))

  for (const [wiring, query] of [
    ['a 1.0 HttpAgent', ''],
    ["CopilotKit's own HttpAgent (AG-UI 0.0.59)", '?agui=bundled'],
  ] as const) {
    test(`CopilotKit (${wiring}): the inner call is a plain approval through useInterrupt; approved, the email goes once and the reply follows`, async ({ page }) => {
      const to = `ck-${Date.now()}@example.com`
      await page.goto(`http://127.0.0.1:${COPILOTKIT_PAGE_PORT}/${query}`)
      await page.getByTestId('copilot-chat-textarea').fill(prompt(to))
      await page.getByTestId('copilot-send-button').click()
      const approval = page.getByRole('group', { name: 'Approve send_email' })
      await expect(approval.getByTestId('approval-reason')).toHaveText(`${to} is outside the company domain`)
      await expect(page.getByTestId('status')).toHaveAttribute('data-running', 'false')
      expect(await emailsTo(page, to)).toEqual([])
      await approval.getByRole('button', { name: 'Approve' }).click()
      await expect(page.getByTestId('copilot-assistant-message').last()).toContainText(`The research assistant reports: Emailed a summary to ${to}.`)
      await expect(page.getByTestId('status')).toHaveAttribute('data-running', 'false')
      expect(await emailsTo(page, to)).toHaveLength(1)
      // It knows no subagents: their text and calls show in the chat, as if its own model had made them.
      await expect(page.getByText('Searching the notes.')).toHaveCount(1)
      await expect(page.getByText(/^search_notes /)).toHaveCount(1)
    })
  }
})

test("the AI SDK's useChat: the inner call is a plain approval in the reply; approved, the email goes once and the reply follows", async ({ page }) => {
  const to = `sdk-${Date.now()}@example.com`
  await page.goto(`http://127.0.0.1:${AI_SDK_PAGE_PORT}/`)
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled()
  await page.getByLabel('Message').fill(prompt(to))
  await page.getByRole('button', { name: 'Send' }).click()
  const reply = page.locator('[data-testid=message][data-role=assistant]').last()
  const call = reply.locator('[data-tool=send_email]')
  await expect(call).toHaveAttribute('data-state', 'approval-requested')
  await expect(call.getByTestId('approval-reason')).toHaveText(`${to} is outside the company domain`)
  expect(await emailsTo(page, to)).toEqual([])
  await call.getByRole('button', { name: 'Approve' }).click()
  await expect(page.locator('[data-testid=message][data-role=assistant]').last().getByTestId('text').last()).toContainText(`The research assistant reports: Emailed a summary to ${to}.`)
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'ready')
  expect(await emailsTo(page, to)).toHaveLength(1)
  // The subagent's own words stay out of the reply.
  await expect(page.getByText('Searching the notes.')).toHaveCount(0)
})
