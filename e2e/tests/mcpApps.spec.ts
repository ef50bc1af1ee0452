import { expect, test, type Page } from '@playwright/test'
import { MCP_APP_PAGE_PORT } from '../frontends/mcp-app/port.ts'
import { COPILOTKIT_PAGE_PORT } from '../frontends/copilotkit/port.ts'

// MCP Apps hosted by Toolgate's React host (`McpApp`), on the guide's page (frontends/mcp-app/,
// docs/mcp-apps.md) against the demo's server: the view is an ext-apps `App` (the demo's
// `show_rooms`), in a sandbox proxy served from the demo's origin, not the page's.

const page_ = `http://127.0.0.1:${MCP_APP_PAGE_PORT}/`
const demo = `http://127.0.0.1:${process.env.E2E_PORT ?? 4310}`

/** The view inside the proxy inside the page. */
function view(page: Page) {
  return page.frameLocator('iframe[title="show_rooms app"]').frameLocator('iframe')
}

async function roomBookings(page: Page): Promise<string[]> {
  return (await (await page.request.get(`${demo}/api/room-bookings`)).json()) as string[]
}

async function showRooms(page: Page) {
  await page.goto(page_)
  await page.getByLabel('Message').fill('show me the rooms on Tuesday')
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(page.getByText('3 rooms are free')).toBeVisible()
}

test.describe('MCP Apps in React', () => {
  test('the view gets its call and result, and its own call of a gated tool waits for approval in the chat', async ({ page }) => {
    await showRooms(page)
    const app = view(page)
    // ui/notifications/tool-input and tool-result reached the ext-apps App.
    await expect(app.getByText('Free rooms on Tuesday')).toBeVisible()
    await expect(app.getByRole('button', { name: 'Book Borealis' })).toBeVisible()
    const before = (await roomBookings(page)).length

    // The view's tools/call goes through the thread: it waits for the user, and nothing runs before.
    await app.getByRole('button', { name: 'Book Borealis' }).click()
    const approval = page.getByRole('dialog', { name: 'Approve book_room' })
    await expect(approval).toContainText('Books Borealis')
    await expect(app.getByText('Booking Borealis…')).toBeVisible()
    expect((await roomBookings(page)).length).toBe(before)

    await approval.getByRole('button', { name: 'Approve' }).click()
    await expect(app.getByText('Booked Borealis')).toBeVisible()
    await expect(page.getByText('book_room: output-available')).toBeVisible()
    expect((await roomBookings(page)).slice(before)).toEqual(['Borealis'])

    // A reload shows the view again, with its call's last result.
    await page.reload()
    await expect(view(page).getByRole('button', { name: 'Book Atlas' })).toBeVisible()
    await expect(view(page).getByText('Free rooms on Tuesday')).toBeVisible()
    await expect(page.getByText('book_room: output-available')).toBeVisible()
  })

  test('the view reaches nothing it did not declare: not the network, not cookies, not the page', async ({ page }) => {
    await page.context().addCookies([{ name: 'demo_user', value: 'alice', url: demo }])
    await showRooms(page)
    // The demo's view declares no CSP domains: its fetch of the demo's own server is blocked, and
    // its iframe has no origin (no cookies) inside a proxy of another origin than the page's.
    await expect(view(page).getByText('network: blocked · cookies: blocked · parent: blocked')).toBeVisible()
    await expect(page.locator('iframe[title="show_rooms app"]')).toHaveAttribute('src', new RegExp(`^${demo}/mcp-app-sandbox\\.html#`))
  })
})

test('the demo chat shows the rooms app, and its booking waits in the approval dialog', async ({ page }) => {
  // The demo page on 127.0.0.1 frames the proxy from localhost: another origin, served by the same server.
  await page.goto(`${demo}/`)
  await page.getByLabel('Message').fill('show me the rooms on Friday')
  await page.getByRole('button', { name: 'Send' }).click()
  const app = view(page)
  await expect(app.getByText('Free rooms on Friday')).toBeVisible()
  const before = (await roomBookings(page)).length
  await app.getByRole('button', { name: 'Book Atlas' }).click()
  const dialog = page.getByRole('dialog', { name: /Allow book_room\?/ })
  await expect(dialog).toHaveAccessibleDescription('Books Atlas')
  expect((await roomBookings(page)).length).toBe(before)
  await dialog.getByRole('button', { name: 'Approve', exact: true }).click()
  await expect(app.getByText('Booked Atlas')).toBeVisible()
  expect((await roomBookings(page)).slice(before)).toEqual(['Atlas'])
})

// Over AG-UI: the run's ACTIVITY_SNAPSHOT (activityType `mcp-apps`) is rendered by CopilotKit's own
// MCP Apps host (`@copilotkit/mcp-apps-renderer`), whose requests for the view come back to the
// chat endpoint (`forwardedProps.__proxiedMCPRequest`) bound to the call.
for (const [wiring, query] of [['a 1.0 HttpAgent', ''], ["CopilotKit's own HttpAgent (AG-UI 0.0.59)", '?agui=bundled']] as const) {
  test(`CopilotKit renders the view with its own host (${wiring})`, async ({ page }) => {
    const errors: string[] = []
    page.on('pageerror', (error) => void errors.push(error.message))
    await page.goto(`http://127.0.0.1:${COPILOTKIT_PAGE_PORT}/${query}`)
    await page.getByTestId('copilot-chat-textarea').fill('show me the rooms on Tuesday')
    await page.getByTestId('copilot-send-button').click()
    const app = page.getByTestId('mcp-app-iframe').contentFrame().locator('iframe').contentFrame()
    await expect(app.getByText('Free rooms on Tuesday')).toBeVisible()
    await expect(app.getByRole('button', { name: 'Book Cirrus' })).toBeVisible()
    // The view's gated call is the thread's: it waits for a person, and nothing is booked.
    const before = (await roomBookings(page)).length
    await app.getByRole('button', { name: 'Book Cirrus' }).click()
    await expect(app.getByText('Not booked: The call waits for approval in the chat')).toBeVisible()
    expect((await roomBookings(page)).length).toBe(before)
    expect(errors).toEqual([])
  })
}

