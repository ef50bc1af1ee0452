import { expect, type Page } from '@playwright/test'

/** Waits until the run is over: the client is idle and the server has stored the thread. */
export async function untilIdle(page: Page) {
  await expect(page.locator('.app')).toHaveAttribute('data-status', 'idle')
}

/** The stored thread, as the server holds it: what a reload would show. Waits for the run to end. */
export async function storedThread(page: Page) {
  await expect(page.locator('.app')).not.toHaveAttribute('data-status', 'streaming')
  const threadId = threadIdOf(page)
  const response = await page.request.get(`/api/chat?threadId=${encodeURIComponent(threadId)}`)
  expect(response.ok()).toBe(true)
  return (await response.json()) as {
    threadId: string
    status: string
    messages: { role: string; content: string; status?: string; reason?: string; edited?: boolean; toolCalls?: { name: string; arguments: string }[] }[]
    interrupts: { id: string; reason: string; toolCallId: string; toolName: string }[]
  }
}

export function threadIdOf(page: Page): string {
  const threadId = new URL(page.url()).searchParams.get('thread')
  expect(threadId, 'the thread id is in the URL').toBeTruthy()
  return threadId!
}

/** Emails the demo's server tool really sent. */
export async function outbox(page: Page): Promise<{ to: string; subject: string; body: string }[]> {
  return (await page.request.get('/api/outbox')).json()
}

export async function send(page: Page, text: string) {
  await page.getByLabel('Message').fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
}

/** The assistant's last words, once the run is over. */
export function lastAnswer(page: Page) {
  return page.locator('.message--assistant .message__text').last()
}

export function toolCard(page: Page, toolName: string) {
  return page.locator(`.tool-card[data-tool="${toolName}"]`)
}
