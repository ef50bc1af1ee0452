import { expect, test } from '@playwright/test'
import { lastAnswer, send, threadIdOf, toolCard } from './helpers.ts'

// The demo's `authorize`: each person reads their own threads and the ones they review (while a
// call waits for them, and once they decided one); anyone else gets 403.

test('Bob cannot read Alice\'s thread, until a call in it waits for him; then he can, also after he decided', async ({ page, playwright, baseURL }) => {
  const bob = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { cookie: 'demo_user=bob' } })
  const read = (threadId: string) => bob.get(`/api/chat?threadId=${encodeURIComponent(threadId)}`)

  await page.goto('/')
  await send(page, 'What is the weather in Paris?')
  await expect(lastAnswer(page)).toHaveText('Paris: 18°C and sunny.')
  const own = threadIdOf(page)
  expect((await page.request.get(`/api/chat?threadId=${own}`)).status()).toBe(200)
  const refused = await read(own)
  expect(refused.status()).toBe(403)
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN')
  // Nor its grants, nor its devtools.
  expect(await (await bob.get(`/api/grants?threadId=${own}`)).json()).toEqual([])
  expect((await bob.get(`/api/chat?threadId=${own}&devtools`)).status()).toBe(403)

  await page.goto('/')
  await send(page, 'Transfer 90 EUR to Dan')
  await expect(toolCard(page, 'transfer_money').getByTestId('waiting-for')).toContainText('Waits for finance')
  const reviewed = threadIdOf(page)
  expect((await read(reviewed)).status()).toBe(200)
  const [request] = (await (await bob.get('/api/reviews')).json()) as { interruptId: string; links: { token: string }[] }[]
  const decided = await bob.post('/api/chat', { data: { review: request!.links[0]!.token, answer: { interruptId: request!.interruptId, approved: true } } })
  expect(decided.status()).toBe(200)
  await expect(lastAnswer(page)).toHaveText('Transferred 90 EUR to Dan.')
  expect((await read(reviewed)).status()).toBe(200)
  // Reading is not writing: his decision made him no participant.
  expect((await bob.post('/api/chat', { data: { threadId: reviewed, message: 'hello' } })).status()).toBe(403)
  await bob.dispose()
})
