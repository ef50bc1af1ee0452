import { afterEach, describe, expect, it } from 'vitest'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { locationDef, shareDef, weatherTool } from './fixtures.ts'
import { closeAll, startServer } from './helpers/server.ts'

afterEach(closeAll)

const model = scriptedModel([
  {
    when: /where am i/i,
    call: () => ({ tool: 'get_location' }),
    then: ([r]) => (r.tool === 'get_location' && r.ok ? `You are in ${r.output.city}.` : `No location: ${r.content}`),
  },
  {
    when: /locate and share/i,
    call: () => [{ tool: 'get_location' }, { tool: 'share_file', input: { file: 'a.txt', with: 'Bob' } }],
    then: (results) => results.map((r) => r.content).join(' | '),
  },
  {
    when: /share (\S+) with (\w+)/i,
    call: (m) => ({ tool: 'share_file', input: { file: m[1], with: m[2] } }),
    then: ([r]) =>
      r.tool === 'share_file' && r.ok
        ? `Shared ${r.input.file} with ${r.input.with}${r.edited ? ' (edited)' : ''}: ${r.output.link}`
        : `Not shared: ${r.content}`,
  },
], { tools: [locationDef, shareDef] })

const start = () => startServer({ model, tools: [locationDef, shareDef, weatherTool] })

describe('client tools', () => {
  it('pauses for the browser and feeds its validated result back to the model', async () => {
    const server = await start()
    const first = await server.send('Where am I?')
    expect(first.interrupts).toEqual([
      { id: expect.any(String), reason: 'client_tool', toolCallId: expect.any(String), toolName: 'get_location', input: {}, metadata: { kind: 'tool_call', toolName: 'get_location', input: {} } },
    ])
    const second = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, output: { city: 'Lima' } }])
    expect(second.results[0]!.content).toBe('{"city":"Lima"}')
    expect(second.text).toBe('You are in Lima.')
  })

  it('gives the model an error when the browser result fails the output schema', async () => {
    const server = await start()
    const first = await server.send('Where am I?')
    const second = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, output: { town: 'Lima' } }])
    expect(second.results[0]!.content).toMatch(/^Invalid output for tool "get_location":\n- city: /)
    expect(second.text).toMatch(/^No location: Invalid output/)
  })

  it('passes a browser failure on to the model', async () => {
    const server = await start()
    const first = await server.send('Where am I?')
    const second = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, error: 'permission denied' }])
    expect(second.text).toBe('No location: Tool "get_location" failed in the browser: permission denied')
  })

  it('asks for approval first, then for the browser result', async () => {
    const server = await start()
    const first = await server.send('share notes.txt with Bob')
    const approval = first.interrupts[0]!
    expect(approval).toMatchObject({ reason: 'tool_approval', toolName: 'share_file', input: { file: 'notes.txt', with: 'Bob' } })

    const second = await server.resume(first.threadId, [{ interruptId: approval.id, approved: true }])
    expect(second.finished?.outcome.type).toBe('interrupt')
    const run = second.interrupts[0]!
    expect(run).toMatchObject({ reason: 'client_tool', toolCallId: approval.toolCallId, input: { file: 'notes.txt', with: 'Bob' } })
    expect(run.id).not.toBe(approval.id)

    const third = await server.resume(first.threadId, [{ interruptId: run.id, output: { link: 'https://x/1' } }])
    expect(third.text).toBe('Shared notes.txt with Bob: https://x/1')
  })

  it('hands edited arguments to the browser and notes the edit', async () => {
    const server = await start()
    const first = await server.send('share notes.txt with Bob')
    const second = await server.resume(first.threadId, [
      { interruptId: first.interrupts[0]!.id, approved: true, editedArgs: { file: 'notes.txt', with: 'Alice' } },
    ])
    expect(second.interrupts[0]!.input).toEqual({ file: 'notes.txt', with: 'Alice' })
    const third = await server.resume(first.threadId, [{ interruptId: second.interrupts[0]!.id, output: { link: 'https://x/2' } }])
    expect(third.text).toBe('Shared notes.txt with Alice (edited): https://x/2')
  })

  it('denies a client tool without asking the browser', async () => {
    const server = await start()
    const first = await server.send('share notes.txt with Bob')
    const second = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: false, reason: 'private' }])
    expect(second.text).toBe('Not shared: denied by the user: private')
  })

  it('keeps a browser result already sent when the user moves on, and cancels the rest', async () => {
    const server = await start()
    const first = await server.send('locate and share')
    const [location, share] = first.interrupts
    expect((await server.resume(first.threadId, [{ interruptId: location!.id, output: { city: 'Oslo' } }])).status).toBe(202)

    const next = await server.send('Where am I?', first.threadId)
    expect(next.results.slice(0, 2)).toEqual([
      expect.objectContaining({ toolCallId: location!.toolCallId, content: '{"city":"Oslo"}' }),
      expect.objectContaining({ toolCallId: share!.toolCallId, content: 'The request was cancelled before anyone decided (the user sent a new message instead); the tool did not run.', metadata: expect.objectContaining({ status: 'cancelled' }) }),
    ])
    expect(next.interrupts[0]).toMatchObject({ reason: 'client_tool', toolName: 'get_location' })
  })
})
