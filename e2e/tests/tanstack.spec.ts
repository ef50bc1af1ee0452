import { expect, test, type Page } from '@playwright/test'
import { TANSTACK_PAGE_PORT } from '../frontends/tanstack/port.ts'
import { outbox } from './helpers.ts'

// TanStack AI's own `useChat` (`@tanstack/ai-react`, its stock `fetchServerSentEvents`) against the
// demo's server at `?client=tanstack`, in Chromium: the page (frontends/tanstack/) uses nothing of
// Toolgate's client.

const page_ = `http://127.0.0.1:${TANSTACK_PAGE_PORT}/`

async function idle(page: Page) {
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'ready')
  await expect(page.getByTestId('error')).toHaveCount(0)
}

async function send(page: Page, text: string) {
  await idle(page)
  await page.getByLabel('Message').fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
}

function lastAssistant(page: Page) {
  return page.locator('[data-testid=message][data-role=assistant]').last()
}

test.describe('TanStack AI useChat', () => {
  test('a reply the user stopped shows as stopped after a reload, and the chat goes on', async ({ page }) => {
    await page.goto(page_)
    await send(page, 'tell me a long story')
    await expect(lastAssistant(page).getByTestId('text')).toContainText('Chapter 2:')
    await page.getByRole('button', { name: 'Stop' }).click()
    await idle(page)
    await page.reload()
    await expect(lastAssistant(page).getByTestId('text')).toContainText('Chapter 2:')
    await expect(lastAssistant(page).getByTestId('stopped')).toHaveCount(1)
    await send(page, 'hello')
    await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Hello!/)
    await expect(lastAssistant(page).getByTestId('stopped')).toHaveCount(0)
    await idle(page)
  })

  test('a turn, a server tool, and a reload that shows the thread and goes on', async ({ page }) => {
    await page.goto(page_)
    await send(page, 'hello')
    await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Hello! I am the scripted demo model/)
    await idle(page)

    await send(page, 'weather in Paris')
    const weather = lastAssistant(page).locator('[data-tool=get_weather]')
    await expect(weather).toHaveAttribute('data-state', 'complete')
    await expect(weather.getByTestId('output')).toContainText('"tempC":18')
    await expect(lastAssistant(page).getByTestId('text')).toHaveText('Paris: 18°C and sunny.')
    await idle(page)
    const before = await page.getByTestId('message').allInnerTexts()
    expect(before).toHaveLength(4)

    // The reload hydrates the thread from the server (`persistence: true`).
    await page.reload()
    await expect(page.getByTestId('message')).toHaveCount(4)
    expect(await page.getByTestId('message').allInnerTexts()).toEqual(before)
    // The hydrated history agrees with the stored thread: the next turn is accepted.
    await send(page, 'hello')
    await expect(page.getByTestId('message')).toHaveCount(6)
    await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Hello!/)
    await idle(page)
  })

  test('an approval approved through addToolApprovalResponse runs the server tool once', async ({ page }) => {
    const to = `ann-ts-${Date.now()}@example.com`
    await page.goto(page_)
    await send(page, `email ${to} about lunch`)
    const call = lastAssistant(page).locator('[data-tool=send_email]')
    await expect(call).toHaveAttribute('data-state', 'approval-requested')
    await expect(call.getByTestId('approval-reason')).toHaveText(`${to} is outside the company domain`)
    expect((await outbox(page)).filter((email) => email.to === to)).toEqual([])
    await call.getByRole('button', { name: 'Approve' }).click()
    await expect(lastAssistant(page).getByTestId('text')).toHaveText(`Sent the email to ${to} with the subject "lunch".`)
    await idle(page)
    expect((await outbox(page)).filter((email) => email.to === to)).toHaveLength(1)
  })

  test('an approval denied through addToolApprovalResponse: nothing runs', async ({ page }) => {
    const to = `bo-ts-${Date.now()}@example.com`
    await page.goto(page_)
    await send(page, `email ${to} about rent`)
    const call = lastAssistant(page).locator('[data-tool=send_email]')
    await call.getByRole('button', { name: 'Deny' }).click()
    await expect(lastAssistant(page).getByTestId('text')).toHaveText('Okay, I did not send the email.')
    await idle(page)
    expect((await outbox(page)).filter((email) => email.to === to)).toEqual([])
  })

  test('a reload while an approval waits shows it, and approving it then continues the turn', async ({ page }) => {
    const to = `cy-ts-${Date.now()}@example.com`
    await page.goto(page_)
    await send(page, `email ${to} about plans`)
    await expect(lastAssistant(page).locator('[data-tool=send_email]')).toHaveAttribute('data-state', 'approval-requested')
    await page.reload()
    const call = lastAssistant(page).locator('[data-tool=send_email]')
    await expect(call).toHaveAttribute('data-state', 'approval-requested')
    await expect(call.getByTestId('approval-reason')).toHaveText(`${to} is outside the company domain`)
    await call.getByRole('button', { name: 'Approve' }).click()
    await expect(lastAssistant(page).getByTestId('text')).toHaveText(`Sent the email to ${to} with the subject "plans".`)
    await idle(page)
    expect((await outbox(page)).filter((email) => email.to === to)).toHaveLength(1)
  })

  test('a browser tool: the page runs it once (a TanStack client tool) and the turn goes on', async ({ page }) => {
    await page.goto(page_)
    await send(page, 'switch to dark mode')
    await expect(lastAssistant(page).getByTestId('text')).toHaveText('Switched to the dark theme.')
    await idle(page)
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
    await expect(page.locator('body')).toHaveAttribute('data-ran_set_theme', '1')
    await expect(page.locator('[data-testid=tool][data-tool=set_theme]')).toHaveAttribute('data-state', 'complete')
  })

  test('a browser tool behind an approval, across a reload: asked again, approving runs it once, and a second reload shows it done', async ({ page }) => {
    await page.goto(page_)
    await send(page, 'copy hello there to my clipboard')
    const call = page.locator('[data-testid=tool][data-tool=copy_to_clipboard]')
    await expect(call).toHaveAttribute('data-state', 'approval-requested')
    await idle(page)

    await page.reload()
    await expect(call).toHaveAttribute('data-state', 'approval-requested')
    await idle(page)
    await call.getByRole('button', { name: 'Approve' }).click()
    await expect(lastAssistant(page).getByTestId('text')).toHaveText('Copied "hello there" to your clipboard.')
    await idle(page)
    await expect(page.locator('body')).toHaveAttribute('data-copied', 'hello there')
    await expect(page.locator('body')).toHaveAttribute('data-ran_copy_to_clipboard', '1')

    await page.reload()
    await expect(lastAssistant(page).getByTestId('text')).toHaveText('Copied "hello there" to your clipboard.')
    await expect(call).toHaveAttribute('data-state', 'complete')
    await expect(call.getByTestId('output')).toHaveText('{"copied":true}')
    await idle(page)
    await expect(page.locator('[data-testid=message]')).toHaveCount(2)
    expect(await page.evaluate(() => sessionStorage.getItem('ran:copy_to_clipboard'))).toBe('1')
  })

  test('a step with an approval and a browser call: approved, the page runs the browser tool once, the email goes once and the turn ends', async ({ page }) => {
    const to = `tz-ts-${Date.now()}@example.com`
    await page.goto(page_)
    await send(page, `send my time zone to ${to}`)
    const email = page.locator('[data-testid=tool][data-tool=send_email]')
    await expect(email).toHaveAttribute('data-state', 'approval-requested')
    await idle(page)
    await email.getByRole('button', { name: 'Approve' }).click()
    await expect(lastAssistant(page).getByTestId('text')).toContainText(`Sent it to ${to}.`)
    await idle(page)
    await expect(lastAssistant(page).getByTestId('text')).toContainText('Your time zone is')
    await expect(page.locator('body')).toHaveAttribute('data-ran_get_browser_info', '1')
    expect((await outbox(page)).filter((each) => each.to === to)).toHaveLength(1)
  })

  test('a reload while a browser call waits for the person: the call is shown again, answering it continues the turn', async ({ page }) => {
    await page.goto(page_)
    await send(page, 'pick a color')
    const answer = page.getByRole('group', { name: 'Answer' })
    await expect(answer.getByRole('button', { name: 'Coral' })).toBeVisible()
    await idle(page)

    await page.reload()
    await expect(answer.getByRole('button', { name: 'Coral' })).toBeVisible()
    await idle(page)
    await answer.getByRole('button', { name: 'Coral' }).click()
    await expect(lastAssistant(page).getByTestId('text')).toHaveText('You chose Coral.')
    await idle(page)
    await send(page, 'hello')
    await expect(lastAssistant(page).getByTestId('text')).toContainText('Hello! I am the scripted demo model')
  })

  test('a reload during a run rejoins the run and follows it to its end', async ({ page }) => {
    // The demo's long story streams for a while: the bounds are for its length, not its speed.
    test.setTimeout(120_000)
    await page.goto(page_)
    await send(page, 'tell me a long story')
    await expect(lastAssistant(page).getByTestId('text')).toContainText('Chapter 3:')
    await page.reload()
    await expect(lastAssistant(page).getByTestId('text')).toContainText('Chapter 60: the tool gate opened', { timeout: 90_000 })
    await idle(page)
    await expect(page.locator('[data-testid=message][data-role=assistant]')).toHaveCount(1)
    await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Chapter 1: .* went on its way\.$/)
  })
  test('a new message while the run still goes (the stop POST lost on the way) supersedes the run: its reply is kept, marked stopped, the message is answered', async ({ page }) => {
    await page.goto(page_)
    // The page's Stop button stops reading at once; its POST to stop the server run never arrives (the network drops it).
    await page.route('**/api/chat', (route) => (route.request().method() === 'POST' && route.request().postData()?.includes('"stop":true') ? route.abort('internetdisconnected') : route.fallback()))
    await send(page, 'tell me a long story')
    await expect(lastAssistant(page).getByTestId('text')).toContainText('Chapter 2:')
    await page.getByRole('button', { name: 'Stop' }).click()
    // The page says so: the run goes on there.
    await expect(page.getByRole('alert')).toHaveText('The run may still be going on the server: stopping it failed (the server could not be reached).')
    await send(page, 'hello')
    await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Hello!/)
    await expect(page.getByRole('alert')).toHaveCount(0)
    await idle(page)
    await page.reload()
    await expect(page.locator('[data-testid=message][data-role=user]')).toHaveCount(2)
    await expect(page.getByTestId('stopped')).toHaveCount(1)
    await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Hello!/)
  })

  test("two tabs: an approval answered in one; the other tab's answer is not applied and that tab shows what was decided", async ({ page, context }) => {
    const to = `tw-ts-${Date.now()}@example.com`
    await page.goto(page_)
    await send(page, `email ${to} about tabs`)
    const call = (tab: Page) => lastAssistant(tab).locator('[data-tool=send_email]')
    await expect(call(page)).toHaveAttribute('data-state', 'approval-requested')
    await idle(page)
    const other = await context.newPage()
    await other.goto(page.url())
    await expect(call(other)).toHaveAttribute('data-state', 'approval-requested')

    await call(page).getByRole('button', { name: 'Approve' }).click()
    await expect(lastAssistant(page).getByTestId('text').last()).toHaveText(`Sent the email to ${to} with the subject "tabs".`)
    await idle(page)
    await call(other).getByRole('button', { name: 'Approve' }).click()
    await expect(lastAssistant(other).getByTestId('text').last()).toHaveText(`Sent the email to ${to} with the subject "tabs".`)
    await idle(other)
    await expect(other.getByRole('group', { name: 'Approve send_email' })).toHaveCount(0)
    expect((await outbox(page)).filter((email) => email.to === to)).toHaveLength(1)
  })
})
