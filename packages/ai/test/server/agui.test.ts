import { afterEach, describe, expect, it } from 'vitest'
import { InterruptSchema, RunFinishedEventSchema } from '@ag-ui/core/schemas'
import { type ChatModel, memoryStore, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { type RunEvent } from '@toolgate/ai/protocol'
import { locationDef, transferDef, weatherTool } from './fixtures.ts'
import { closeAll, readTurn, startServer, type Turn } from './helpers/server.ts'

afterEach(closeAll)

/**
 * Every test reads streams through `readTurn`, which checks each event against @ag-ui/core 1.0's
 * `EventSchemas` and that parsing keeps it whole. This test drives every event kind the handler
 * emits through that check in one place.
 */
describe('AG-UI conformance', () => {
  it('emits only events valid under @ag-ui/core, covering every kind the handler uses', async () => {
    const model = scriptedModel([
      { when: 'weather', say: 'Checking.', call: () => ({ tool: 'get_weather', input: { city: 'Oslo' } }), then: () => 'Cold.' },
      { when: 'pay', call: () => [{ tool: 'transfer_money', input: { to: 'Bob', amount: 500 } }, { tool: 'get_location' }], then: () => 'Done.' },
    ])
    const failing: ChatModel = {
      async *stream(request) {
        if (request.messages.at(-1)?.content === 'fail') throw new Error('boom')
        yield* model.stream(request)
      },
    }
    const server = await startServer({
      model: failing,
      tools: [weatherTool, transferDef.server(() => ({ receipt: 'r' })), locationDef],
      onError: () => {}, // the failure is on purpose: keep it out of the test log
    })
    const turns: Turn[] = []
    turns.push(await server.send('weather'))
    const paused = await server.send('pay', turns[0]!.threadId)
    turns.push(paused)
    const [approval, client] = paused.interrupts
    turns.push(
      await server.resume(paused.threadId, [
        { interruptId: approval!.id, approved: true },
        { interruptId: client!.id, output: { city: 'Oslo' } },
      ]),
    )
    turns.push(await server.send('fail', paused.threadId))

    const kinds = new Set(turns.flatMap((turn) => turn.types))
    const emitted: RunEvent['type'][] = [
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'RUN_FINISHED',
      'RUN_ERROR',
    ]
    expect([...kinds].sort()).toEqual([...emitted].sort())
  })

  it('spells the pause as AG-UI 1.0 RUN_FINISHED.outcome with its interrupt fields', async () => {
    const model = scriptedModel([{ when: 'pay', call: () => ({ tool: 'transfer_money', input: { to: 'Bob', amount: 500 } }), then: () => '' }])
    const server = await startServer({ model, tools: [transferDef.server(() => ({ receipt: 'r' }))] })
    const { finished } = await server.send('pay')

    // AG-UI's own fields only at the top (id, reason, toolCallId, message): a strict reader keeps it whole ...
    const strictInterrupt = InterruptSchema.strict()
    const [interrupt] = finished?.outcome.type === 'interrupt' ? finished.outcome.interrupts : []
    expect(strictInterrupt.safeParse(interrupt).success).toBe(true)
    expect(RunFinishedEventSchema.parse(finished)).toEqual(finished)
    // ... and the tool's name and input travel in `metadata`.
    expect(interrupt!.metadata).toMatchObject({ toolName: 'transfer_money', input: { to: 'Bob', amount: 500 } })
    expect(interrupt).not.toHaveProperty('toolName')
  })
})

describe('an AG-UI turn and the store', () => {
  it('reads the head of an existing thread once: the look that finds it is the claim’s read', async () => {
    const store = memoryStore()
    const heads: string[] = []
    const counting: ThreadStore = { ...store, head: (threadId) => (heads.push(threadId), store.head(threadId)) }
    const server = await startServer({ model: scriptedModel([{ when: /.*/, reply: 'ok' }]), store: counting })
    const input = (runId: string, messages: unknown[]) => ({ threadId: 'ag-once', runId, messages, tools: [], context: [], state: {}, forwardedProps: {} })
    const first = await readTurn(await server.post(input('r1', [{ id: 'u1', role: 'user', content: 'hello' }])))
    expect(first.finished, JSON.stringify(first.body ?? first.types)).toBeDefined()
    const answer = first.events.find((event) => event.type === 'TEXT_MESSAGE_START') as { messageId: string }
    heads.length = 0
    const second = await readTurn(await server.post(input('r2', [{ id: 'u1', role: 'user', content: 'hello' }, { id: answer.messageId, role: 'assistant', content: 'ok' }, { id: 'u2', role: 'user', content: 'again' }])))
    expect(second.finished, JSON.stringify(second.body ?? second.events)).toBeDefined()
    expect(second.text).toBe('ok')
    expect(heads).toEqual(['ag-once'])
    const thread = await server.get('ag-once')
    expect(thread.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['hello', 'again'])
  })
})
