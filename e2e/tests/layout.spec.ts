import { expect, test, type Page } from '@playwright/test'
import { fileURLToPath } from 'node:url'
import { send, untilIdle } from './helpers.ts'

// Every screen of the demo on a phone (390 px) and a laptop (1280 px): nothing scrolls sideways,
// every button is on screen, and no button's label wraps. Each screen is photographed: into
// e2e/screenshots/layout with UPDATE_SCREENSHOTS=1 (npm run screenshots), into the test's output
// folder otherwise (look at them: a check that passes can still look wrong).
const update = process.env.UPDATE_SCREENSHOTS === '1'

/** What does not fit on the page as it is now: sideways scroll, buttons off screen, labels on two lines. */
async function misfits(page: Page, within = 'body'): Promise<string[]> {
  return page.evaluate((selector) => {
    const problems: string[] = []
    const { scrollWidth } = document.documentElement
    if (scrollWidth > innerWidth) problems.push(`the document is ${scrollWidth} px wide in a ${innerWidth} px window`)
    const root = document.querySelector(selector) ?? document.body
    for (const element of root.querySelectorAll<HTMLElement>('button, a.button, select, textarea, input')) {
      const box = element.getBoundingClientRect()
      if (box.width === 0 && box.height === 0) continue // not shown
      const name = `${element.tagName.toLowerCase()} "${(element.textContent || element.getAttribute('aria-label') || element.getAttribute('name') || '').trim().slice(0, 40)}"`
      if (box.left < 0 || box.right > innerWidth) problems.push(`${name} runs from ${Math.round(box.left)} to ${Math.round(box.right)} px`)
      // Action buttons hold one line; a prompt chip (label and prompt) may take more.
      if (element.matches('.button')) {
        const range = document.createRange()
        range.selectNodeContents(element)
        const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)))
        if (lines.size > 1) problems.push(`${name} wraps onto ${lines.size} lines`)
      }
    }
    return problems
  }, within)
}

for (const [width, height] of [
  [390, 844],
  [1280, 800],
] as const) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height }, colorScheme: 'light' })

    test('start, chat, approval dialog, devtools, outbox and review page fit, every button on screen', async ({ page, browser, baseURL }, testInfo) => {
      const check = async (name: string, within?: string) => {
        expect(await misfits(page, within), name).toEqual([])
        const path = update ? fileURLToPath(new URL(`../screenshots/layout/${name}-${width}.png`, import.meta.url)) : testInfo.outputPath(`${name}-${width}.png`)
        await page.screenshot({ path })
      }

      await page.goto('/')
      await expect(page.getByRole('list', { name: 'Suggested prompts' })).toBeVisible()
      await check('start')

      await send(page, 'Give me a morning briefing')
      await untilIdle(page)
      await expect(page.getByRole('link', { name: 'New chat' })).toBeVisible()
      await check('chat')

      await send(page, 'Email bob@example.com about the launch')
      const dialog = page.getByRole('dialog')
      await expect(dialog).toBeVisible()
      await check('approval', 'dialog')
      // The dialog's actions are on screen, top to bottom too, without scrolling.
      for (const button of await dialog.getByRole('button').all()) {
        const box = (await button.boundingBox())!
        expect(box.y + box.height, (await button.textContent()) ?? '').toBeLessThanOrEqual(height)
      }
      await dialog.getByRole('button', { name: 'Approve', exact: true }).click()
      await untilIdle(page)

      await page.getByRole('button', { name: 'Devtools' }).click()
      await expect(page.getByTestId('toolgate-devtools')).toBeVisible()
      await check('devtools')
      await page.getByRole('button', { name: 'Close devtools' }).click()

      await send(page, 'Transfer 250 EUR to Carol')
      await expect(page.locator('.tool-card[data-tool="transfer_money"]').getByTestId('waiting-for')).toContainText('Waits for finance')
      await page.goto('/outbox')
      const request = page.getByRole('listitem').filter({ hasText: 'Alice asks to run transfer_money' }).first()
      await expect(request).toBeVisible()
      await check('outbox')

      // Alice opens the link meant for finance: told so, no form.
      await request.getByRole('link', { name: 'Open review' }).click()
      await expect(page.getByTestId('review-refused')).toBeVisible()
      await check('review-refused')

      const bobContext = await browser.newContext({ baseURL, viewport: { width, height } })
      await bobContext.addCookies([{ name: 'demo_user', value: 'bob', url: baseURL! }])
      const bob = await bobContext.newPage()
      await bob.goto(page.url())
      await expect(bob.getByRole('button', { name: 'Approve' })).toBeVisible()
      expect(await misfits(bob), 'review').toEqual([])
      await bob.screenshot({ path: update ? fileURLToPath(new URL(`../screenshots/layout/review-${width}.png`, import.meta.url)) : testInfo.outputPath(`review-${width}.png`) })
      await bobContext.close()
    })
  })
}
