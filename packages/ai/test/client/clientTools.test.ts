import { describe, expect, it, vi } from 'vitest'
import type { ToolContext } from '@toolgate/ai'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { callStates, clientOn, deferred, location, record, share, texts, toolCalls, weatherServer } from './helpers.ts'

const model = scriptedModel([
  {
    when: /where am i/i,
    call: () => ({ tool: 'get_location', input: { precise: true } }),
    then: ([r]) => (r.tool === 'get_location' && r.ok ? `You are in ${r.output.city}.` : `No location: ${r.content}`),
  },
  {
    when: /both/i,
    call: () => [
      { tool: 'get_location', input: {} },
      { tool: 'get_location', input: { precise: true } },
    ],
    then: (results) => results.map((r) => (r.tool === 'get_location' && r.ok ? r.output.city : r.content)).join(' | '),
  },
  {
    when: /share (\S+) with (\w+)/i,
    call: (m) => ({ tool: 'share_file', input: { file: m[1], with: m[2] } }),
    then: ([r]) => (r.tool === 'share_file' && r.ok ? `Shared: ${r.output.link}` : `Not shared: ${r.content}`),
  },
], { tools: [location, share] })

const server = { model, tools: [location, share, weatherServer] }

describe('client tools', () => {
  it('run when the server asks, and their validated output goes back to the model', async () => {
    const execute = vi.fn(async ({ precise }: { precise?: boolean | undefined }, _ctx: ToolContext) => ({ city: precise ? 'Lima' : 'Peru' }))
    const onToolCall = vi.fn()
    const client = clientOn(server, { tools: [location.client(execute)], onToolCall })
    const states = record(client)
    await client.send('Where am I?')

    const state = client.getSnapshot()
    const [call] = toolCalls(state)
    expect(call).toMatchObject({ toolName: 'get_location', state: 'output-available', input: { precise: true }, output: { city: 'Lima' } })
    expect(texts(state).at(-1)).toBe('assistant: You are in Lima.')
    expect(execute).toHaveBeenCalledOnce()
    expect(execute.mock.calls[0]![1]).toMatchObject({ toolCallId: call!.toolCallId, signal: expect.any(AbortSignal) })
    expect(onToolCall).toHaveBeenCalledWith(expect.objectContaining({ toolName: 'get_location', state: 'executing', input: { precise: true } }))
    expect(callStates(states, call!.toolCallId)).toEqual(['input-streaming', 'input-available', 'executing', 'output-available'])
    expect(states.map((s) => s.status)).toContain('running-tools')
  })

  it('send the error back when execute throws', async () => {
    const client = clientOn(server, {
      tools: [
        location.client(() => {
          throw new Error('permission denied')
        }),
      ],
    })
    await client.send('Where am I?')
    const state = client.getSnapshot()
    expect(toolCalls(state)[0]).toMatchObject({ state: 'output-error', error: 'permission denied' })
    expect(texts(state).at(-1)).toBe('assistant: No location: Tool "get_location" failed in the browser: permission denied')
    expect(state.error).toBeUndefined()
  })

  it('send an error when the output fails the schema', async () => {
    const client = clientOn(server, { tools: [location.client(async () => ({ town: 'Lima' }) as never)] })
    await client.send('Where am I?')
    const state = client.getSnapshot()
    expect(toolCalls(state)[0]).toMatchObject({ state: 'output-error', error: expect.stringMatching(/^Invalid output for tool "get_location":\n- city: /) })
    expect(texts(state).at(-1)).toMatch(/No location: .*Invalid output for tool "get_location"/)
  })

  it('answer at once with an error when this browser does not implement the tool', async () => {
    const client = clientOn(server, { tools: [location] }) // the definition only
    await client.send('Where am I?')
    const state = client.getSnapshot()
    expect(toolCalls(state)[0]).toMatchObject({ state: 'output-error', error: 'Tool "get_location" is not implemented in this browser' })
    expect(texts(state).at(-1)).toMatch(/not implemented in this browser/)

    const bare = clientOn(server) // no tools at all
    await bare.send('Where am I?')
    expect(toolCalls(bare.getSnapshot())[0]).toMatchObject({ state: 'output-error', metadata: {} })
  })

  it('all run at once when called in parallel, and the run resumes once', async () => {
    const held = [deferred<{ city: string }>(), deferred<{ city: string }>()]
    let started = 0
    const client = clientOn(server, { tools: [location.client(() => held[started++]!.promise)] })
    const states = record(client)
    const done = client.send('both please')
    await vi.waitFor(() => expect(started).toBe(2))
    expect(client.getSnapshot().status).toBe('running-tools')

    held[1]!.resolve({ city: 'Oslo' })
    held[0]!.resolve({ city: 'Rome' })
    await done
    const state = client.getSnapshot()
    expect(toolCalls(state).map((part) => part.state === 'output-available' && part.output)).toEqual([{ city: 'Rome' }, { city: 'Oslo' }])
    expect(texts(state).at(-1)).toBe('assistant: Rome | Oslo')
    expect(texts(state).filter((text) => text.startsWith('assistant'))).toHaveLength(1)
    expect(states.at(-1)?.status).toBe('idle')
  })

  it('abort through their signal on stop(), even when execute never settles', async () => {
    let signal: AbortSignal | undefined
    const client = clientOn(server, {
      tools: [
        location.client((_input, ctx) => {
          signal = ctx.signal
          return new Promise<never>(() => {})
        }),
      ],
    })
    const done = client.send('Where am I?')
    await vi.waitFor(() => expect(client.getSnapshot().status).toBe('running-tools'))
    client.stop()
    await done
    expect(signal?.aborted).toBe(true)
    const state = client.getSnapshot()
    expect(state.status).toBe('idle')
    expect(toolCalls(state)[0]).toMatchObject({ state: 'output-error', error: 'Stopped before it finished' })
  })

  it('work when they need approval: approved first, then run in the browser', async () => {
    const execute = vi.fn(async ({ file, with: to }: { file: string; with: string }) => ({ link: `https://files/${file}?to=${to}` }))
    const client = clientOn(server, { tools: [share.client(execute)] })
    const states = record(client)
    await client.send('share notes.txt with Bob')
    expect(execute).not.toHaveBeenCalled()
    const id = client.getSnapshot().pendingApprovals[0]!.toolCallId

    await client.approve(id, { editedArgs: { file: 'notes.txt', with: 'Ann' } })
    expect(execute).toHaveBeenCalledWith({ file: 'notes.txt', with: 'Ann' }, expect.anything())
    const state = client.getSnapshot()
    expect(toolCalls(state)[0]).toMatchObject({ state: 'output-available', output: { link: 'https://files/notes.txt?to=Ann' } })
    expect(texts(state).at(-1)).toBe('assistant: Shared: https://files/notes.txt?to=Ann')
    expect(callStates(states, id)).toEqual(['input-streaming', 'input-available', 'approval-requested', 'executing', 'output-available'])
  })

  it('cancel when the user sends a new message meanwhile', async () => {
    let signal: AbortSignal | undefined
    const client = clientOn(server, {
      tools: [
        location.client((_input, ctx) => {
          signal = ctx.signal
          return new Promise<never>(() => {})
        }),
      ],
    })
    void client.send('Where am I?')
    await vi.waitFor(() => expect(client.getSnapshot().status).toBe('running-tools'))
    await client.send('share a.txt with Bob')
    expect(signal?.aborted).toBe(true)
    const state = client.getSnapshot()
    expect(toolCalls(state).map((part) => [part.toolName, part.state])).toEqual([
      ['get_location', 'cancelled'],
      ['share_file', 'approval-requested'],
    ])
  })
})
