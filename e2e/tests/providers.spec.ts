import { expect, test } from '@playwright/test'
import { ANSWER, EMAIL, PROVIDER_DEMOS } from '../providers/demos.ts'
import { lastAnswer, send } from './helpers.ts'

// The demo on each real adapter (OpenAI Chat with strict tools, OpenAI Responses, Anthropic,
// Gemini), against aimock speaking that provider's wire format: one approval flow in the browser.

for (const demo of PROVIDER_DEMOS) {
  test(`${demo.name}: asks before emailing, then sends the approved email and answers`, async ({ page }) => {
    const origin = `http://127.0.0.1:${demo.port}`
    const before = (await (await page.request.get(`${origin}/api/outbox`)).json()).length
    await page.goto(`${origin}/`)
    await send(page, 'Email Dana about the launch date')
    const dialog = page.getByRole('dialog')
    await expect(dialog).toContainText('dana@example.com is outside the company domain')
    await expect(dialog.getByLabel('subject')).toHaveValue(EMAIL.subject)
    await dialog.getByRole('button', { name: 'Approve' }).click()
    await expect(lastAnswer(page)).toHaveText(ANSWER)
    const outbox = await (await page.request.get(`${origin}/api/outbox`)).json()
    expect(outbox).toHaveLength(before + 1)
    expect(outbox.at(-1)).toMatchObject(EMAIL)
  })
}
