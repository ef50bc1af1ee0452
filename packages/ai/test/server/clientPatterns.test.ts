import { afterEach, describe, expect, it } from 'vitest'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { closeAll, errorOf, startServer } from './helpers/server.ts'

// A pattern in a client-declared tool is run by the server on the model's arguments. The
// platform's backtracking engine would take seconds to years on `^(a+)+$` (exponential) or
// `^a*a*a*$` (cubic) with a long enough argument, blocking every client: such patterns are run by
// a linear-time engine instead, and enforced; what that engine cannot run (backreferences,
// lookaround) or where the pattern's place depends on other keywords is refused at the request
// with a 400 that names its path.

afterEach(closeAll)

/** The model calls the tool with the code the user's message names: `code <n> <tail>` is n "a"s then the tail. */
const model = scriptedModel([
  {
    when: /code (\d+) (\S*)/,
    call: (match) => ({ tool: 'enter_code', input: { code: `${'a'.repeat(Number(match[1]))}${match[2]}`, tags: [`${'1'.repeat(Number(match[1]))}x`] } }),
    then: ([r]) => `${r.status}`,
  },
])

function runInput(parameters: Record<string, unknown>, threadId: string, message: string) {
  return { threadId, runId: 'r', messages: [{ id: 'u', role: 'user', content: message }], tools: [{ name: 'enter_code', description: 'Enter a code', parameters }], context: [], state: {}, forwardedProps: {} }
}
const withPattern = (pattern: string) => ({ type: 'object', properties: { code: { type: 'string', pattern } }, required: ['code'] })

describe('patterns of a frontend tool', () => {
  it.each([
    [withPattern('^(a)\\1$'), 'tools[0].parameters.properties.code.pattern', /backreference/],
    [withPattern('^(?=a)a$'), 'tools[0].parameters.properties.code.pattern', /lookaround/],
    [withPattern('^(ab){1,5000}$'), 'tools[0].parameters.properties.code.pattern', /more than 2000/],
    [withPattern('^(a'), 'tools[0].parameters.properties.code.pattern', /not a valid regular expression/],
    [{ type: 'object', properties: { code: { anyOf: [{ type: 'string', pattern: '^a+$' }, { type: 'number' }] } } }, 'tools[0].parameters.properties.code.anyOf[0].pattern', /under `anyOf`/],
    [{ type: 'object', patternProperties: { '^(a+)+$': { type: 'string' } } }, 'tools[0].parameters.patternProperties', /patternProperties/],
  ])('refuses %j with a 400 naming its path', async (parameters, path, reason) => {
    const server = await startServer({ model, frontendTools: ['enter_code'] })
    const refused = await errorOf(await server.post(runInput(parameters, 't-refused', 'code 3 !')))
    expect(refused).toMatchObject({ status: 400, error: { code: 'INVALID_REQUEST', path, message: expect.stringMatching(reason) } })
  })

  it.each([
    ['^(a+)+$', 100_000],
    ['^(a|a)*$', 100_000],
    ['^a*a*a*$', 100_000],
    ['^(?:\\w+\\s?)*$', 100_000],
    ['^a{1,5000}$', 100_000],
    ['(a|a)*b', 100_000],
    ['\\w*\\d*\\w*#$', 100_000],
  ])('runs %s in linear time on a %i-character argument that does not match, and tells the model', async (pattern, length) => {
    const server = await startServer({ model, frontendTools: ['enter_code'] })
    const response = await server.post(runInput(withPattern(pattern), 't-linear', `code ${length} !`))
    expect(response.status).toBe(200)
    expect(await response.text()).toContain(`Expected to match the pattern ${pattern.replaceAll('\\', '\\\\')}`)
  })

  it('enforces patterns under items and allOf, and lets a matching argument through', async () => {
    const parameters = {
      type: 'object',
      properties: { code: { type: 'string', allOf: [{ pattern: '^a+$' }, { pattern: '^(a+)+$' }] }, tags: { type: 'array', items: { type: 'string', pattern: '(\\d+)\\d+x$' } } },
      required: ['code'],
    }
    const server = await startServer({ model, frontendTools: ['enter_code'] })
    const good = await server.post(runInput(parameters, 't-good', 'code 30 '))
    expect(good.status).toBe(200)
    const text = await good.text()
    expect(text).not.toContain('Expected to match')
    // The call went to the client: the run ends success, waiting on it (AG-UI 1.0 frontend tools), no result told.
    expect(text).toContain('"outcome":{"type":"success"}')
    expect(text).not.toContain('TOOL_CALL_RESULT')

    const bad = await (await server.post(runInput(parameters, 't-bad', 'code 30 !'))).text()
    expect(bad).toContain('Expected to match the pattern ^a+$')
    expect(bad).toContain('TOOL_CALL_RESULT')
  })
})
