import { expect, test } from '@playwright/test'
import { lastAnswer, send, toolCard, untilIdle } from './helpers.ts'

// What a person sees, checked where they would see it: sizes, what is in view, labels, icons that
// draw without an emoji font, results shown once, replies in plain words.

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 860 })
  await page.goto('/')
})

test('"Ask me" answers are buttons sized to their text, not suggestion tiles', async ({ page }) => {
  await send(page, 'Pick a color for me')
  const question = toolCard(page, 'ask_user').getByRole('group', { name: 'Which accent color do you like?' })
  const choices = question.getByRole('button', { name: /^(Teal|Coral|Indigo)$/ })
  await expect(choices).toHaveCount(3)
  for (const choice of await choices.all()) {
    const box = (await choice.boundingBox())!
    expect(box.height).toBeLessThan(48)
    expect(box.width).toBeLessThan(200)
  }
  // All three on one line.
  const tops = await Promise.all((await choices.all()).map(async (choice) => (await choice.boundingBox())!.y))
  expect(new Set(tops).size).toBe(1)
})

test('the meeting form fits an 860 px window, with styled fields, named list items and labels in one case', async ({ page }) => {
  await send(page, 'Book a meeting for the launch review')
  const dialog = page.getByRole('dialog', { name: /Allow book_meeting\?/ })
  await expect(dialog).toBeVisible()
  // The actions stay in view; the fields scroll.
  await expect(dialog.getByRole('button', { name: 'Approve' })).toBeInViewport({ ratio: 1 })
  await expect(dialog.getByRole('button', { name: 'Deny' })).toBeInViewport({ ratio: 1 })
  // The room picker looks like the other fields.
  const style = (selector: string) =>
    dialog.locator(selector).first().evaluate((element) => {
      const { backgroundColor, borderRadius, fontSize } = getComputedStyle(element)
      return { backgroundColor, borderRadius, fontSize }
    })
  expect(await style('select')).toEqual(await style('input[type="text"], input:not([type])'))
  // List items are named for what they hold, not by index.
  const legends = await dialog.locator('legend').allTextContents()
  expect(legends).toEqual(expect.arrayContaining(['When', 'Attendees', 'Attendee 1', 'Attendee 2']))
  expect(legends).not.toContain('0')
  // Every label and group starts with a capital letter.
  const labels = [...legends.slice(1), ...(await dialog.locator('.field__label').allTextContents())]
  expect(labels.filter((label) => !/^\p{Lu}/u.test(label.trim()))).toEqual([])
})

test('tool icons are inline SVG, never emoji that need an emoji font', async ({ page }) => {
  await page.getByText('The tools behind this demo').click()
  const tools = page.getByRole('list', { name: 'Tools' }).getByRole('listitem')
  await expect(tools).toHaveCount(14)
  for (const tool of await tools.all()) await expect(tool.locator('summary svg.icon')).toHaveCount(1)
  await send(page, 'Clean up the logs and temp files')
  await expect(page.getByRole('dialog').locator('svg.icon[data-icon="trash"]')).toHaveCount(1)
  await expect(toolCard(page, 'delete_files').first().locator('svg.icon[data-icon="trash"]')).toHaveCount(1)
  const text = await page.locator('body').innerText()
  expect(text.match(/\p{Extended_Pictographic}/gu)).toBeNull()
})

test('a batch with one denial and one approval is answered in plain words', async ({ page }) => {
  await send(page, 'Clean up the logs and temp files')
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('1 of 2 waiting')
  await dialog.getByRole('button', { name: 'Deny' }).click()
  await expect(page.getByRole('dialog').getByLabel('pattern')).toHaveValue('*.tmp')
  await page.getByRole('dialog').getByRole('button', { name: 'Approve', exact: true }).click()
  await untilIdle(page)
  await expect(lastAnswer(page)).toHaveText(/^I left the files matching \*\.log alone, as you asked\. Deleted \d+ files matching \*\.tmp\.$/)
  await expect(lastAnswer(page)).not.toContainText('denied:')
})
