import { expect, test } from '@playwright/test'

test('lists the demo tools and the JSON Schema each declares to the model', async ({ page }) => {
  await page.goto('/')
  await page.getByText('The tools behind this demo').click()
  const tools = page.getByRole('list', { name: 'Tools' }).getByRole('listitem')
  await expect(tools).toHaveCount(14)
  await expect(tools.filter({ hasText: 'send_email' })).toContainText('asks by policy')
  await expect(tools.filter({ hasText: 'transfer_money' })).toContainText('asks by policy')
  await expect(tools.filter({ hasText: 'set_theme' })).toContainText('browser')
  await expect(tools.filter({ hasText: 'show_rooms' })).toContainText('server')
  await expect(tools.filter({ hasText: 'research-assistant' })).toContainText('server')

  await tools.filter({ hasText: 'get_weather' }).getByText('Weather', { exact: true }).click()
  const schema = page.getByLabel('JSON Schema of get_weather')
  await expect(schema).toBeVisible()
  const emitted = JSON.parse((await schema.textContent()) ?? '{}')
  expect(emitted).toMatchObject({ type: 'object', properties: { city: { type: 'string', minLength: 1 } }, required: ['city'] })
})
