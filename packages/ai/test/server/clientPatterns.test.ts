import { afterEach, describe, expect, it } from 'vitest'
import { scriptedModel } from '@toolgate/ai/server'
import { closeAll, errorOf, startServer } from './helpers/server.ts'

// A pattern in a client-declared tool is run by the server on the model's arguments. One that can
// backtrack without bound (`^(a+)+$` on "aaaa…!") would block every client: it is refused at the
// request with a 400 that names where it is; a pattern that cannot is accepted and enforced.

afterEach(closeAll)

const model = scriptedModel([{ when: /.*/, call: () => ({ tool: 'enter_code', input: { code: `${'a'.repeat(26)}!` } }), then: ([r]) => `${r.status}` }])

function runInput(pattern: string, threadId: string) {
  const parameters = { type: 'object', properties: { code: { type: 'string', pattern } }, required: ['code'] }
  return { threadId, runId: 'r', messages: [{ id: 'u', role: 'user', content: 'go' }], tools: [{ name: 'enter_code', description: 'Enter a code', parameters }], context: [], state: {}, forwardedProps: {} }
}

describe('patterns of a frontend tool', () => {
  it.each([
    ['^(a+)+$', /repeated group/],
    ['^(a|a)*$', /repeated group/],
    ['^(?:\\w+\\s?)*$', /repeated group/],
    ['^(a)\\1$', /backreference/],
    ['^(?=a)a$', /lookaround/],
  ])('refuses %s with a 400 naming its path', async (pattern, reason) => {
    const server = await startServer({ model, frontendTools: ['enter_code'] })
    const refused = await errorOf(await server.post(runInput(pattern, 't-redos')))
    expect(refused).toMatchObject({ status: 400, error: { code: 'INVALID_REQUEST', path: 'tools[0].parameters.properties.code.pattern', message: expect.stringMatching(reason) } })
  })

  it('accepts a pattern that cannot backtrack without bound, and validates the model’s arguments with it', async () => {
    const server = await startServer({ model, frontendTools: ['enter_code'] })
    const response = await server.post(runInput('^[a-z]{1,40}$', 't-safe'))
    expect(response.status).toBe(200)
    const text = await response.text()
    expect(text).toContain('Expected to match the pattern')
  })
})
