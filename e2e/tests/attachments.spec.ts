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
