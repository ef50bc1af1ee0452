import { describe, expect, it } from 'vitest'
import { type ModelChunk } from '@toolgate/ai/server'
import { scriptedModel, type ScriptedResult } from '@toolgate/ai/server/testing'
import { type ThreadMessage } from '@toolgate/ai/protocol'

async function collect(model: ReturnType<typeof scriptedModel>, messages: ThreadMessage[], signal = new AbortController().signal) {
  const chunks: ModelChunk[] = []
  for await (const chunk of model.stream({ messages, tools: [], signal })) chunks.push(chunk)
  return chunks
}

const user = (content: string): ThreadMessage => ({ role: 'user', id: 'u', content })

describe('scriptedModel', () => {
  it('streams text word by word and ends with stop', async () => {
    const model = scriptedModel([{ when: /hi/, reply: 'Hello  there, friend.' }])
    const chunks = await collect(model, [user('hi')])
    const deltas = chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : []))
    expect(deltas).toEqual(['Hello  ', 'there, ', 'friend.'])
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' })
  })

  it('streams several calls at once, each with arguments in several deltas', async () => {
    const model = scriptedModel([
      {
        when: 'go',
        call: () => [
          { tool: 'a', input: { city: 'Paris', days: 3 } },
          { tool: 'b', input: {} },
        ],
      },
    ])
    const chunks = await collect(model, [user('go')])
    const starts = chunks.filter((c) => c.type === 'tool-call-start')
    expect(starts.map((c) => c.type === 'tool-call-start' && c.toolName)).toEqual(['a', 'b'])
    const first = starts[0]!.type === 'tool-call-start' ? starts[0]!.toolCallId : ''
    const pieces = chunks.flatMap((c) => (c.type === 'tool-call-delta' && c.toolCallId === first ? [c.delta] : []))
    expect(pieces.length).toBeGreaterThanOrEqual(3)
    expect(JSON.parse(pieces.join(''))).toEqual({ city: 'Paris', days: 3 })
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' })
  })

  it('hands results to `then`, with edits and deny reasons, and counts rounds', async () => {
    const seen: Array<{ results: ScriptedResult[]; round: number }> = []
    const model = scriptedModel([
      {
        when: /book (\w+)/,
        call: (m) => [
          { tool: 'book', input: { city: m[1] } },
          { tool: 'pay', input: { amount: 9 } },
        ],
        then: (results, { round, match }) => (seen.push({ results, round }), `${match[1]} round ${round}`),
      },
    ])
    const messages: ThreadMessage[] = [
      user('book Rome'),
      {
        role: 'assistant',
        id: 'a',
        content: '',
        toolCalls: [
          { id: 'c1', name: 'book', arguments: '{"city":"Milan"}' },
          { id: 'c2', name: 'pay', arguments: '{"amount":9}' },
        ],
      },
      { role: 'tool', id: 't1', toolCallId: 'c1', toolName: 'book', content: '...', status: 'success', output: { ok: 1 }, edited: true },
      { role: 'tool', id: 't2', toolCallId: 'c2', toolName: 'pay', content: 'denied by the user: too much', status: 'denied', reason: 'too much' },
    ]
    const text = (await collect(model, messages)).flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('')
    expect(text).toBe('Rome round 1')
    expect(seen[0]!.results).toEqual([
      { tool: 'book', toolCallId: 'c1', input: { city: 'Milan' }, status: 'success', ok: true, output: { ok: 1 }, content: '...', edited: true },
      {
        tool: 'pay',
        toolCallId: 'c2',
        input: { amount: 9 },
        status: 'denied',
        ok: false,
        output: undefined,
        content: 'denied by the user: too much',
        reason: 'too much',
        edited: false,
      },
    ])
  })

  it('matches substrings and predicates, and falls back', async () => {
    const model = scriptedModel(
      [
        { when: 'HeLLo', reply: 'hi' },
        { when: (text) => text.length > 20, reply: () => 'long' },
      ],
      { fallback: (text) => `? ${text}` },
    )
    const text = async (message: string) =>
      (await collect(model, [user(message)])).flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('')
    expect(await text('well hello')).toBe('hi')
    expect(await text('a message longer than twenty')).toBe('long')
    expect(await text('what')).toBe('? what')
  })

  it('waits between chunks when asked and stops on abort', async () => {
    const model = scriptedModel([{ when: 'x', reply: 'one two three four' }], { delayMs: 1000 })
    const controller = new AbortController()
    const stream = model.stream({ messages: [user('x')], tools: [], signal: controller.signal })[Symbol.asyncIterator]()
    const next = stream.next()
    controller.abort(new Error('stop'))
    await expect(next).rejects.toThrow('stop')
  })
})
