import { expect, test, type Page } from '@playwright/test'
import { COPILOTKIT_PAGE_PORT } from '../frontends/copilotkit/port.ts'
import { outbox } from './helpers.ts'

// CopilotKit v2 (`@copilotkit/react-core/v2`, its own `CopilotChat`) against the demo's server in
// Chromium, through a stock AG-UI `HttpAgent` and no CopilotKit runtime. The page
// (frontends/copilotkit/) uses nothing of Toolgate's client.

const page_ = `http://127.0.0.1:${COPILOTKIT_PAGE_PORT}/`

async function idle(page: Page) {
  await expect(page.getByTestId('status')).toHaveAttribute('data-running', 'false')
  await expect(page.getByTestId('status')).toHaveAttribute('data-error', '')
}

async function send(page: Page, text: string) {
  await idle(page)
  await page.getByTestId('copilot-chat-textarea').fill(text)
  await page.getByTestId('copilot-send-button').click()
}

function assistant(page: Page) {
  return page.getByTestId('copilot-assistant-message')
}

test.describe('CopilotKit v2 CopilotChat', () => {
  test('a turn and a server tool', async ({ page }) => {
    await page.goto(page_)
    await send(page, 'hello')
    await expect(assistant(page).last()).toContainText('Hello! I am the scripted demo model')
    await idle(page)

    await send(page, 'weather in Paris')
    const weather = page.locator('[data-testid=tool][data-tool=get_weather]')
    await expect(weather).toHaveAttribute('data-state', 'complete')
    await expect(weather.getByTestId('output')).toContainText('"tempC":18')
    await expect(assistant(page).last()).toContainText('Paris: 18°C and sunny.')
    await idle(page)
    await expect(page.getByTestId('copilot-user-message')).toHaveCount(2)
  })

  test('an approval through useInterrupt, approved: the server tool runs once', async ({ page }) => {
    const to = `ann-ck-${Date.now()}@example.com`
    await page.goto(page_)
    await send(page, `email ${to} about lunch`)
    const approval = page.getByRole('group', { name: 'Approve send_email' })
    await expect(approval.getByTestId('approval-reason')).toHaveText(`${to} is outside the company domain`)
    await idle(page)
    expect((await outbox(page)).filter((email) => email.to === to)).toEqual([])
    await approval.getByRole('button', { name: 'Approve' }).click()
    await expect(assistant(page).last()).toContainText(`Sent the email to ${to} with the subject "lunch".`)
    await expect(approval).toHaveCount(0)
    await idle(page)
    expect((await outbox(page)).filter((email) => email.to === to)).toHaveLength(1)
  })

  test('an approval through useInterrupt, denied with a reason: nothing runs, the model reads the reason', async ({ page }) => {
    const to = `bo-ck-${Date.now()}@example.com`
    await page.goto(page_)
    await send(page, `email ${to} about rent`)
    const approval = page.getByRole('group', { name: 'Approve send_email' })
    await approval.getByLabel('Reason').fill('not this week')
    await approval.getByRole('button', { name: 'Deny' }).click()
    await expect(assistant(page).last()).toContainText('Okay, I did not send the email. You said: "not this week".')
    await idle(page)
    expect((await outbox(page)).filter((email) => email.to === to)).toEqual([])
  })
})

