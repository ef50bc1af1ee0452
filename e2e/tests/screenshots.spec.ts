import { expect, test } from '@playwright/test'
import { fileURLToPath } from 'node:url'
import { lastAnswer, send, untilIdle } from './helpers.ts'

// The README's screenshots, taken from the real app as the suite runs. They land in e2e/screenshots
// with UPDATE_SCREENSHOTS=1 (npm run screenshots), and in the test's output folder otherwise, so a
// test run leaves the working tree as it was.
const update = process.env.UPDATE_SCREENSHOTS === '1'

test.use({ viewport: { width: 1000, height: 720 }, colorScheme: 'light' })

test('screenshots for the README', async ({ page }, testInfo) => {
  const shot = (name: string) =>
    update ? fileURLToPath(new URL(`../screenshots/${name}.png`, import.meta.url)) : testInfo.outputPath(`${name}.png`)
  await page.goto('/')
  await expect(page.getByRole('list', { name: 'Suggested prompts' })).toBeVisible()
  await page.screenshot({ path: shot('welcome') })

  await send(page, 'Give me a morning briefing')
  await untilIdle(page)
  await send(page, 'Email bob@example.com about the launch')
  const dialog = page.getByRole('dialog')
  await expect(dialog).toBeVisible()
  await dialog.getByLabel('subject').fill('Launch moved to Friday')
  await page.screenshot({ path: shot('approval') })

  await dialog.getByRole('button', { name: 'Approve with edits' }).click()
  await expect(lastAnswer(page)).toContainText('as you edited it')
  await untilIdle(page)
  await page.setViewportSize({ width: 1000, height: 900 })
  await page.screenshot({ path: shot('conversation') })
})
