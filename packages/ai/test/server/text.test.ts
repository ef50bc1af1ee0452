import { afterEach, describe, expect, it } from 'vitest'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { closeAll, startServer } from './helpers/server.ts'

afterEach(closeAll)

const model = scriptedModel([{ when: /hello/i, reply: 'Hello there! How can I help you today?' }], { fallback: 'I did not get that.' })

describe('plain text', () => {
  it('streams an answer in small deltas and stores the thread', async () => {
    const server = await startServer({ model })
    const turn = await server.send('hello')

    expect(turn.status).toBe(200)
    expect(turn.text).toBe('Hello there! How can I help you today?')
    expect(turn.types.filter((type) => type === 'TEXT_MESSAGE_CONTENT').length).toBeGreaterThan(3)
    expect(turn.types[1]).toBe('TEXT_MESSAGE_START')
    expect(turn.finished).toMatchObject({ outcome: { type: 'success' }, threadId: turn.threadId })
    expect(turn.finished?.usage?.[0]).toMatchObject({ model: 'scripted' })

    const thread = await server.get(turn.threadId)
    expect(thread).toMatchObject({ threadId: turn.threadId, status: 'idle', interrupts: [] })
    expect(thread.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hello'],
      ['assistant', 'Hello there! How can I help you today?'],
    ])
  })

  it('continues a thread with the server-side history', async () => {
    const server = await startServer({ model })
    const first = await server.send('hello')
    const second = await server.send('what?', first.threadId)
    expect(second.threadId).toBe(first.threadId)
    expect(second.text).toBe('I did not get that.')
    expect((await server.get(first.threadId)).messages).toHaveLength(4)
  })

  it('gives every new thread an unguessable id', async () => {
    const server = await startServer({ model })
    const [a, b] = await Promise.all([server.send('hello'), server.send('hello')])
    expect(a.threadId).not.toBe(b.threadId)
    expect(a.threadId).toMatch(/^thread_[\w-]{22}$/)
  })
})
