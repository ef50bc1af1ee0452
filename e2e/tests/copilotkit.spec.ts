import { expect, test, type Page } from '@playwright/test'
import { COPILOTKIT_PAGE_PORT } from '../frontends/copilotkit/port.ts'
import { outbox } from './helpers.ts'

// CopilotKit v2 (`@copilotkit/react-core/v2` 1.74, its own `CopilotChat`) against the demo's server in
// Chromium, through a stock AG-UI 1.0 `HttpAgent` wired as the guide has it, and no CopilotKit
// runtime. The page (frontends/copilotkit/) uses nothing of Toolgate's client.

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

const WIRINGS = [
  ['a 1.0 HttpAgent', ''],
  ["CopilotKit's own HttpAgent (AG-UI 0.0.59)", '?agui=bundled'],
  ['through @copilotkit/runtime 1.75', '?runtime=1'],
] as const

function assistant(page: Page) {
  return page.getByTestId('copilot-assistant-message')
}

test.describe('CopilotKit v2 CopilotChat', () => {
  // A run CopilotKit refuses (a schema it does not know, a failed request) shows only in the console.
  let errors: string[] = []
  test.beforeEach(({ page }) => {
    errors = []
    page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())))
    page.on('pageerror', (error) => void errors.push(error.message))
  })
  test.afterEach(() => expect(errors).toEqual([]))

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

  test('a frontend tool through useFrontendTool: the page runs it, the server continues the turn with its result', async ({ page }) => {
    await page.goto(page_)
    await send(page, 'make the background teal')
    await expect(page.locator('body')).toHaveAttribute('data-background', 'teal')
    await expect(assistant(page).last()).toContainText('The background is teal now.')
    await expect(page.locator('[data-testid=tool][data-tool=set_background]')).toHaveAttribute('data-state', 'complete')
    await idle(page)
  })

  test('a frontend tool through useHumanInTheLoop: the person answers, the server continues with the answer', async ({ page }) => {
    await page.goto(page_)
    await send(page, 'plan the launch')
    const confirm = page.getByRole('group', { name: 'Confirm the plan' })
    await expect(confirm).toContainText('Freeze the code on Monday, ship on Friday')
    await confirm.getByRole('button', { name: 'Confirm' }).click()
    await expect(assistant(page).last()).toContainText('Going ahead: code freeze on Monday, launch on Friday.')
    await expect(confirm).toHaveAttribute('data-state', 'complete')
    await idle(page)
    // The turn goes on: the next message is answered on the same thread.
    await send(page, 'hello')
    await expect(assistant(page).last()).toContainText('Hello! I am the scripted demo model')
    await idle(page)
  })

  test('a reload during a run follows the run to its end, each message once, and the chat goes on', async ({ page }) => {
    // The demo's long story streams for a while: the bounds are for its length, not its speed.
    test.setTimeout(120_000)
    await page.goto(page_)
    await send(page, 'tell me a long story')
    await expect(assistant(page).last()).toContainText('Chapter 3:')
    await page.reload()
    await expect(assistant(page).last()).toContainText('Chapter 60: the tool gate opened', { timeout: 90_000 })
    await idle(page)
    await expect(page.getByTestId('copilot-user-message')).toHaveCount(1)
    await expect(assistant(page)).toHaveCount(1)
    const story = await assistant(page).innerText()
    expect(story.match(/Chapter \d+:/g)).toHaveLength(60)
    expect(story).toContain('Chapter 1: the tool gate opened')

    await send(page, 'hello')
    await expect(assistant(page).last()).toContainText('Hello! I am the scripted demo model')
    await idle(page)
    await expect(page.getByTestId('copilot-user-message')).toHaveCount(2)
    await expect(assistant(page)).toHaveCount(2)
  })

  test('a reload while an approval waits shows it again; approving it runs the tool once and the turn goes on', async ({ page }) => {
    const to = `di-ck-${Date.now()}@example.com`
    await page.goto(page_)
    await send(page, `email ${to} about dinner`)
    const approval = page.getByRole('group', { name: 'Approve send_email' })
    await expect(approval.getByTestId('approval-reason')).toHaveText(`${to} is outside the company domain`)
    await idle(page)

    await page.reload()
    await expect(approval.getByTestId('approval-reason')).toHaveText(`${to} is outside the company domain`)
    await expect(approval).toHaveCount(1)
    await expect(page.getByTestId('copilot-user-message')).toHaveCount(1)
    await idle(page)
    expect((await outbox(page)).filter((email) => email.to === to)).toEqual([])
    await approval.getByRole('button', { name: 'Approve' }).click()
    await expect(assistant(page).last()).toContainText(`Sent the email to ${to} with the subject "dinner".`)
    await expect(approval).toHaveCount(0)
    await idle(page)
    expect((await outbox(page)).filter((email) => email.to === to)).toHaveLength(1)

    // Reloaded again, the turn shows done: nothing asks again, nothing runs again.
    await page.reload()
    await expect(assistant(page).last()).toContainText(`Sent the email to ${to} with the subject "dinner".`)
    await idle(page)
    await expect(approval).toHaveCount(0)
    await send(page, 'hello')
    await expect(assistant(page).last()).toContainText('Hello! I am the scripted demo model')
    await idle(page)
    expect((await outbox(page)).filter((email) => email.to === to)).toHaveLength(1)
  })

  test('a reload shows the thread (its server tool and approval included), and the chat goes on', async ({ page }) => {
    const to = `cy-ck-${Date.now()}@example.com`
    await page.goto(page_)
    await send(page, 'weather in Paris')
    await expect(assistant(page).last()).toContainText('Paris: 18°C and sunny.')
    await send(page, `email ${to} about plans`)
    await page.getByRole('group', { name: 'Approve send_email' }).getByRole('button', { name: 'Approve' }).click()
    await expect(assistant(page).last()).toContainText(`Sent the email to ${to} with the subject "plans".`)
    await idle(page)
    const users = await page.getByTestId('copilot-user-message').allInnerTexts()
    const replies = await assistant(page).allInnerTexts()

    await page.reload()
    await expect(page.getByTestId('copilot-user-message')).toHaveCount(2)
    expect(await page.getByTestId('copilot-user-message').allInnerTexts()).toEqual(users)
    await expect(assistant(page).last()).toContainText(`Sent the email to ${to} with the subject "plans".`)
    expect(await assistant(page).allInnerTexts()).toEqual(replies)
    await expect(page.locator('[data-testid=tool][data-tool=get_weather]')).toHaveAttribute('data-state', 'complete')
    await idle(page)

    await send(page, 'hello')
    await expect(assistant(page).last()).toContainText('Hello! I am the scripted demo model')
    await idle(page)
    await expect(page.getByTestId('copilot-user-message')).toHaveCount(3)
    expect((await outbox(page)).filter((email) => email.to === to)).toHaveLength(1)
  })
  // Frontend tools waiting beside an approval, and across a reload, with each wiring the guide names:
  // a 1.0 `HttpAgent`; CopilotKit's own (the AG-UI 0.0.59 client it bundles, which sends no
  // `protocolVersion` and refuses keys it does not know); and `@copilotkit/runtime` 1.75 in front of
  // the endpoint (its agent is the same 0.0.59 `HttpAgent`, run on the server).
  for (const [wiring, query] of WIRINGS) {
    test(`${wiring}: a step with an approval and a frontend tool: approved, then confirmed, the email goes once and the turn ends`, ({ page }) => mixedStep(page, page_ + query))
    test(`${wiring}: a reload while a frontend call waits shows the thread and the call; answering it continues the turn`, ({ page }) => reloadWhileFrontendCallWaits(page, page_ + query))
  }

  test('stop, then a new message at once: the run stops on the server, its reply stays, the new message is answered', async ({ page }) => {
    test.setTimeout(60_000)
    await page.goto(page_)
    await send(page, 'tell me a long story')
    await expect(assistant(page).last()).toContainText('Chapter 2:')
    // While it runs, the send button is CopilotKit's stop button.
    await page.getByTestId('copilot-send-button').click()
    await send(page, 'hello')
    await expect(assistant(page).last()).toContainText('Hello! I am the scripted demo model')
    await idle(page)
    const stopped = await page.request.get(`/api/chat?threadId=${encodeURIComponent(new URL(page.url()).searchParams.get('thread')!)}`)
    const thread = (await stopped.json()) as { messages: { role: string; content: string; stopped?: true }[] }
    expect(thread.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(thread.messages[1]).toMatchObject({ stopped: true })
    expect(thread.messages[1]!.content).not.toContain('Chapter 60:')

    await page.reload()
    await expect(page.getByTestId('copilot-user-message')).toHaveCount(2)
    await expect(assistant(page).last()).toContainText('Hello! I am the scripted demo model')
    await idle(page)
  })
  test("two tabs: an approval answered in one; the other tab's answer is not applied and that tab shows what was decided", async ({ page, context }) => {
    const to = `tw-ck-${Date.now()}@example.com`
    await page.goto(page_)
    await send(page, `email ${to} about tabs`)
    const approval = (tab: Page) => tab.getByRole('group', { name: 'Approve send_email' })
    await expect(approval(page).getByTestId('approval-reason')).toHaveText(`${to} is outside the company domain`)
    await idle(page)
    const other = await context.newPage()
    other.on('console', (message) => void (message.type() === 'error' && errors.push(`other tab: ${message.text()}`)))
    other.on('pageerror', (error) => void errors.push(`other tab: ${error.message}`))
    await other.goto(page.url())
    await expect(approval(other).getByTestId('approval-reason')).toHaveText(`${to} is outside the company domain`)
    await idle(other)

    await approval(page).getByRole('button', { name: 'Approve' }).click()
    await expect(assistant(page).last()).toContainText(`Sent the email to ${to} with the subject "tabs".`)
    await idle(page)
    await approval(other).getByRole('button', { name: 'Approve' }).click()
    await expect(assistant(other).last()).toContainText(`Sent the email to ${to} with the subject "tabs".`)
    await expect(approval(other)).toHaveCount(0)
    await idle(other)
    expect((await outbox(page)).filter((email) => email.to === to)).toHaveLength(1)
  })
  test('a new message while the run still goes (the stop POST lost on the way) supersedes the run: its reply stays, the message is answered', async ({ page }) => {
    test.setTimeout(60_000)
    await page.goto(page_)
    await page.route('**/api/chat', (route) => (route.request().method() === 'POST' && route.request().postData()?.includes('"stop":true') ? route.fulfill({ json: { threadId: 'lost', stopped: false } }) : route.fallback()))
    await send(page, 'tell me a long story')
    await expect(assistant(page).last()).toContainText('Chapter 2:')
    await page.getByTestId('copilot-send-button').click()
    await send(page, 'hello')
    await expect(assistant(page).last()).toContainText('Hello! I am the scripted demo model')
    await idle(page)
    const thread = (await (await page.request.get(`/api/chat?threadId=${encodeURIComponent(new URL(page.url()).searchParams.get('thread')!)}`)).json()) as { messages: { role: string; stopped?: true }[] }
    expect(thread.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(thread.messages[1]).toMatchObject({ stopped: true })
  })
})

async function mixedStep(page: Page, url: string) {
  const to = `mx-ck-${Date.now()}@example.com`
  await page.goto(url)
  await send(page, `plan the launch and email ${to}`)
  const approval = page.getByRole('group', { name: 'Approve send_email' })
  await expect(approval.getByTestId('approval-reason')).toHaveText(`${to} is outside the company domain`)
  await idle(page)
  await approval.getByRole('button', { name: 'Approve' }).click()
  const confirm = page.getByRole('group', { name: 'Confirm the plan' })
  await expect(confirm.getByRole('button', { name: 'Confirm' })).toBeEnabled()
  await confirm.getByRole('button', { name: 'Confirm' }).click()
  await expect(assistant(page).last()).toContainText(`Plan confirmed. Sent it to ${to}.`)
  await idle(page)
  expect((await outbox(page)).filter((email) => email.to === to)).toHaveLength(1)
}

async function reloadWhileFrontendCallWaits(page: Page, url: string) {
  await page.goto(url)
  await send(page, 'plan the launch')
  const confirm = page.getByRole('group', { name: 'Confirm the plan' })
  await expect(confirm.getByRole('button', { name: 'Confirm' })).toBeEnabled()
  await idle(page)

  await page.reload()
  await expect(page.getByTestId('copilot-user-message')).toHaveCount(1)
  await expect(confirm).toContainText('Freeze the code on Monday, ship on Friday')
  await expect(confirm.getByRole('button', { name: 'Confirm' })).toBeEnabled()
  await confirm.getByRole('button', { name: 'Confirm' }).click()
  await expect(assistant(page).last()).toContainText('Going ahead: code freeze on Monday, launch on Friday.')
  await idle(page)
  await send(page, 'hello')
  await expect(assistant(page).last()).toContainText('Hello! I am the scripted demo model')
  await idle(page)
}
