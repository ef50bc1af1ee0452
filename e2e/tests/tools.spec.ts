import { expect, test } from '@playwright/test'

test('lists the demo tools and shows the JSON Schema each emits', async ({ page }) => {
  await page.goto('/')
  await expect(page.getByRole('heading', { name: 'Toolgate demo' })).toBeVisible()
  const tools = page.getByRole('list', { name: 'Tools' }).getByRole('listitem')
  await expect(tools).toHaveCount(6)

  await page.getByRole('button', { name: /Weather/ }).click()
  const schema = page.getByLabel('JSON Schema of get_weather')
  await expect(schema).toBeVisible()
  const emitted = JSON.parse((await schema.textContent()) ?? '{}')
  expect(emitted).toMatchObject({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] })
})
