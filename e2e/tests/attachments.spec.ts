import { expect, test } from '@playwright/test'
import { lastAnswer, send, storedThread, toolCard } from './helpers.ts'

test('shows the image a server tool returns in its tool card, after a reload too', async ({ page }) => {
  await page.goto('/')
  await send(page, 'Chart the temperatures in Paris, Tokyo and Oslo')
  const card = toolCard(page, 'chart_temperatures')
  await expect(card.getByRole('status')).toHaveText('Done')
  await expect(lastAnswer(page)).toHaveText('Here is the chart: Paris 18°C, Tokyo 22°C, Oslo 4°C.')
  const image = card.getByRole('img', { name: 'temperatures.svg' })
  await expect(image).toBeVisible()
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0)

  // The thread keeps a reference, not the bytes; the endpoint serves the file to the thread's reader.
  const thread = await storedThread(page)
  const result = thread.messages.find((m) => m.role === 'tool') as { attachments?: { id: string; mimeType: string }[] }
  expect(result.attachments).toEqual([expect.objectContaining({ kind: 'image', mimeType: 'image/svg+xml' })])
  const src = await image.getAttribute('src')
  const response = await page.request.get(src!)
  expect(response.headers()['content-type']).toBe('image/svg+xml')
  expect(await response.text()).toContain('Tokyo')

  await page.reload()
  await expect(toolCard(page, 'chart_temperatures').getByRole('img', { name: 'temperatures.svg' })).toBeVisible()
})

test('shows a think tool call as a thought', async ({ page }) => {
  await page.goto('/')
  await send(page, 'Think about the weather in Paris')
  await expect(lastAnswer(page)).toHaveText('I thought it over; see my thought above.')
  const thought = page.getByRole('complementary', { name: 'Thought' })
  await expect(thought).toHaveText(/The user asks me to think about the weather in Paris/)
  await expect(toolCard(page, 'think')).toHaveCount(0) // not a tool card
})
