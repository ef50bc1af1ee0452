import { expect, test, type Page } from '@playwright/test'
import { AI_SDK_PAGE_PORT } from '../frontends/ai-sdk/port.ts'
import { outbox } from './helpers.ts'

// The AI SDK's own `useChat` (versions 6 and 7, each with its own React package) against the demo's
// server, in Chromium: the page (frontends/ai-sdk/) uses nothing of Toolgate's client.

const page_ = `http://127.0.0.1:${AI_SDK_PAGE_PORT}`
const versions = [
  { version: '6', path: '/' },
  { version: '7', path: '/v7.html' },
]

async function send(page: Page, text: string) {
  // The Send button is enabled only when the chat is `ready`, as the guide's is.
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled()
  await page.getByLabel('Message').fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
}

async function idle(page: Page) {
  await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'ready')
  await expect(page.getByTestId('error')).toHaveCount(0)
}

function lastAssistant(page: Page) {
  return page.locator('[data-testid=message][data-role=assistant]').last()
}

for (const { version, path } of versions) {
  test.describe(`AI SDK ${version} useChat`, () => {
    test('a turn, a server tool, and a reload that shows the thread and goes on', async ({ page }) => {
      await page.goto(`${page_}${path}`)
      await expect(page.getByTestId('chat')).toHaveAttribute('data-version', version)
      await send(page, 'hello')
      await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Hello! I am the scripted demo model/)
      await idle(page)

      await send(page, 'weather in Paris')
      const weather = lastAssistant(page).locator('[data-tool=get_weather]')
      await expect(weather).toHaveAttribute('data-state', 'output-available')
      await expect(weather.getByTestId('output')).toContainText('"tempC":18')
      await expect(lastAssistant(page).getByTestId('text')).toContainText('Paris')
      await idle(page)
      const before = await page.getByTestId('message').allInnerTexts()

      await page.reload()
      await expect(page.getByTestId('message')).toHaveCount(4)
      expect(await page.getByTestId('message').allInnerTexts()).toEqual(before)
      // The hydrated history agrees with the stored thread: the next turn is accepted.
      await send(page, 'hello')
      await expect(page.getByTestId('message')).toHaveCount(6)
      await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Hello!/)
      await idle(page)
    })

    test('a reload during a run follows the run to its end (resume)', async ({ page }) => {
      // The demo's long story streams for a while: the bounds are for its length, not its speed.
      test.setTimeout(120_000)
      await page.goto(`${page_}${path}`)
      await send(page, 'tell me a long story')
      await expect(lastAssistant(page).getByTestId('text')).toContainText('Chapter 3:')
      await page.reload()
      await expect(lastAssistant(page).getByTestId('text')).toContainText('Chapter 60: the tool gate opened', { timeout: 90_000 })
      await idle(page)
      await expect(page.locator('[data-testid=message][data-role=assistant]')).toHaveCount(1)
      await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Chapter 1: .* went on its way\.$/)
    })

    test('a reply the user stopped shows as stopped after a reload, and the chat goes on', async ({ page }) => {
      await page.goto(`${page_}${path}`)
      await send(page, 'tell me a long story')
      await expect(lastAssistant(page).getByTestId('text')).toContainText('Chapter 2:')
      await page.getByRole('button', { name: 'Stop' }).click()
      await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'ready')
      await page.reload()
      await expect(lastAssistant(page).getByTestId('text')).toContainText('Chapter 2:')
      await expect(lastAssistant(page).getByTestId('stopped')).toHaveCount(1)
      await send(page, 'hello')
      await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Hello!/)
      await expect(lastAssistant(page).getByTestId('stopped')).toHaveCount(0)
      await idle(page)
    })

    test("a new chat's first message goes: its reconnect (resume: true) finds no stream, and the chat stays ready", async ({ page }) => {
      const reconnects: number[] = []
      page.on('response', (response) => void (response.url().includes('&stream') && reconnects.push(response.status())))
      await page.goto(`${page_}${path}`)
      await expect(page.getByTestId('chat')).toHaveAttribute('data-status', 'ready')
      await expect.poll(() => reconnects).toEqual([204])
      await send(page, 'hello')
      await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Hello! I am the scripted demo model/)
      await idle(page)
    })

    test('a new message while the run still goes (the stop POST lost on the way) supersedes the run: its reply is kept, marked stopped, the message is answered', async ({ page }) => {
      await page.goto(`${page_}${path}`)
      // The page's Stop button stops reading at once; its POST to stop the server run never arrives (the network drops it).
      await page.route('**/api/chat', (route) => (route.request().method() === 'POST' && route.request().postData()?.includes('"stop":true') ? route.abort('internetdisconnected') : route.fallback()))
      await send(page, 'tell me a long story')
      await expect(lastAssistant(page).getByTestId('text')).toContainText('Chapter 2:')
      await page.getByRole('button', { name: 'Stop' }).click()
      // The page says so: the run goes on there.
      await expect(page.getByRole('alert')).toHaveText('The run may still be going on the server: stopping it failed (the server could not be reached).')
      await send(page, 'hello')
      await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Hello! I am the scripted demo model/)
      await expect(page.getByRole('alert')).toHaveCount(0)
      await idle(page)
      await page.reload()
      await expect(page.locator('[data-testid=message][data-role=user]')).toHaveCount(2)
      await expect(page.getByTestId('stopped')).toHaveCount(1)
      await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Hello! I am the scripted demo model/)
    })

    test('a failed run shows its error after a reload too, until the next message', async ({ page }) => {
      await page.goto(`${page_}${path}`)
      await send(page, 'fail the run')
      await expect(page.getByTestId('error')).toBeVisible()
      const live = await page.getByTestId('error').innerText()
      await page.reload()
      await expect(page.getByTestId('message')).toHaveCount(1)
      await expect(page.getByTestId('error')).toHaveText(live)
      await send(page, 'hello')
      await expect(lastAssistant(page).getByTestId('text')).toHaveText(/^Hello!/)
      await idle(page)
    })

    test('an approval approved runs the server tool once', async ({ page }) => {
      const to = `ann-${version}-${Date.now()}@example.com`
      await page.goto(`${page_}${path}`)
      await send(page, `email ${to} about lunch`)
      const call = lastAssistant(page).locator('[data-tool=send_email]')
      await expect(call).toHaveAttribute('data-state', 'approval-requested')
      await expect(call.getByTestId('approval-reason')).toHaveText(`${to} is outside the company domain`)
      expect((await outbox(page)).filter((email) => email.to === to)).toEqual([])
      await call.getByRole('button', { name: 'Approve' }).click()
      await expect(lastAssistant(page).getByTestId('text')).toHaveText(`Sent the email to ${to} with the subject "lunch".`)
      await expect(call).toHaveAttribute('data-state', 'output-available')
      await idle(page)
      expect((await outbox(page)).filter((email) => email.to === to)).toHaveLength(1)
    })

    test('an approval denied with a reason: the model reads the reason, nothing runs', async ({ page }) => {
      const to = `bo-${version}-${Date.now()}@example.com`
      await page.goto(`${page_}${path}`)
      await send(page, `email ${to} about rent`)
      const call = lastAssistant(page).locator('[data-tool=send_email]')
      await expect(call).toHaveAttribute('data-state', 'approval-requested')
      await call.getByLabel('Reason').fill('not this week')
      await call.getByRole('button', { name: 'Deny' }).click()
      await expect(lastAssistant(page).getByTestId('text')).toHaveText('Okay, I did not send the email. You said: "not this week".')
      await expect(call).toHaveAttribute('data-state', 'output-denied')
      await expect(call.getByTestId('denied')).toHaveText('Denied: not this week')
      await idle(page)
      expect((await outbox(page)).filter((email) => email.to === to)).toEqual([])
    })

    test('a browser tool runs in the page through onToolCall and addToolOutput', async ({ page }) => {
      await page.goto(`${page_}${path}`)
      await send(page, 'dark mode please')
      await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
      await expect(lastAssistant(page).getByTestId('text')).toHaveText('Switched to the dark theme.')
      await expect(lastAssistant(page).locator('[data-tool=set_theme]')).toHaveAttribute('data-state', 'output-available')
      await idle(page)
    })

    test("a browser tool's output the server holds while an approval of its step waits: shown after a reload, approving continues the turn, the tool ran once", async ({ page }) => {
      const to = `tz-${version}-${Date.now()}@example.com`
      await page.goto(`${page_}${path}`)
      await send(page, `send my time zone to ${to}`)
      const info = () => lastAssistant(page).locator('[data-tool=get_browser_info]')
      const email = () => lastAssistant(page).locator('[data-tool=send_email]')
      await expect(info()).toHaveAttribute('data-state', 'output-available')
      await expect(email()).toHaveAttribute('data-state', 'approval-requested')
      // The page sent the output on its own (useChat's sendAutomaticallyWhen skips server calls): the server holds it.
      const threadId = new URL(page.url()).searchParams.get('chat')!
      await expect.poll(async () => ((await (await page.request.get(`/api/chat?threadId=${threadId}`)).json()) as { answers?: unknown[] }).answers?.length ?? 0).toBe(1)
      await idle(page)
      await expect(page.locator('body')).toHaveAttribute('data-ran_get_browser_info', '1')

      await page.reload()
      await expect(info()).toHaveAttribute('data-state', 'output-available')
      await expect(info().getByTestId('output')).toContainText('timeZone')
      await email().getByRole('button', { name: 'Approve' }).click()
      await expect(lastAssistant(page).getByTestId('text').last()).toHaveText(/^Your time zone is .+\. Sent it to /)
      await idle(page)
      await expect(page.locator('body')).toHaveAttribute('data-ran_get_browser_info', '1')
      expect((await outbox(page)).filter((sent) => sent.to === to)).toHaveLength(1)
    })

    test('a reload while a browser call waits for the person: shown again (input-available), answering it continues the turn', async ({ page }) => {
      await page.goto(`${page_}${path}`)
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
      await expect(lastAssistant(page).getByTestId('text').last()).toContainText('Hello! I am the scripted demo model')
    })

    test('a reload while an approval waits shows it, and approving it then continues the turn', async ({ page }) => {
      const to = `cy-${version}-${Date.now()}@example.com`
      await page.goto(`${page_}${path}`)
      await send(page, `email ${to} about plans`)
      await expect(lastAssistant(page).locator('[data-tool=send_email]')).toHaveAttribute('data-state', 'approval-requested')
      await idle(page)
      await page.reload()
      const call = lastAssistant(page).locator('[data-tool=send_email]')
      await expect(call).toHaveAttribute('data-state', 'approval-requested')
      await expect(call.getByTestId('approval-reason')).toHaveText(`${to} is outside the company domain`)
      await call.getByRole('button', { name: 'Approve' }).click()
      await expect(lastAssistant(page).getByTestId('text')).toHaveText(`Sent the email to ${to} with the subject "plans".`)
      await idle(page)
      expect((await outbox(page)).filter((email) => email.to === to)).toHaveLength(1)
    })
    test("two tabs: an approval answered in one; the other tab's answer is refused, and that tab reads the thread as decided", async ({ page, context }) => {
      const to = `tw-${version}-${Date.now()}@example.com`
      await page.goto(`${page_}${path}`)
      await send(page, `email ${to} about tabs`)
      const call = (tab: Page) => lastAssistant(tab).locator('[data-tool=send_email]')
      await expect(call(page)).toHaveAttribute('data-state', 'approval-requested')
      await idle(page)
      const other = await context.newPage()
      await other.goto(page.url())
      await expect(call(other)).toHaveAttribute('data-state', 'approval-requested')

      await call(page).getByRole('button', { name: 'Approve' }).click()
      await expect(lastAssistant(page).getByTestId('text')).toHaveText(`Sent the email to ${to} with the subject "tabs".`)
      await idle(page)
      await call(other).getByRole('button', { name: 'Approve' }).click()
      await expect(lastAssistant(other).getByTestId('text')).toHaveText(`Sent the email to ${to} with the subject "tabs".`)
      await expect(call(other)).toHaveAttribute('data-state', 'output-available')
      await idle(other)
      expect((await outbox(page)).filter((email) => email.to === to)).toHaveLength(1)
    })
  })
}
