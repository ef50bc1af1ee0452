import { afterEach, describe, expect, it } from 'vitest'
import { InvalidOptionError, thinkTool, toolJsonSchema, ToolValidationError, THINK_TOOL_DESCRIPTION } from '@toolgate/ai'
import { createChatClient } from '@toolgate/ai/client'
import { createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { inProcess, toolCalls } from '../client/helpers.ts'
import { closeAll, startServer } from '../server/helpers/server.ts'

afterEach(closeAll)

describe('thinkTool', () => {
  it('is a server tool named think with the recommended description and a thought string', async () => {
    const think = thinkTool()
    expect(think).toMatchObject({ kind: 'server', name: 'think', description: THINK_TOOL_DESCRIPTION, metadata: { display: 'thought' } })
    expect(toolJsonSchema(think)).toMatchObject({ type: 'object', required: ['thought'], properties: { thought: { type: 'string' } } })
    expect(await think.execute({ thought: 'The user wants Paris, not Texas.' })).toEqual({})
    await expect(think.execute({ idea: 'no' } as never)).rejects.toThrow(ToolValidationError)
  })

  it('takes another name and description', () => {
    const plan = thinkTool({ name: 'plan', description: 'Plan the next steps; check the refund policy first.' })
    expect(plan.name).toBe('plan')
    expect(plan.description).toContain('refund policy')
    expect(() => thinkTool({ description: ' ' })).toThrow(InvalidOptionError)
  })

  it('lets the model think between tool calls in a chat, leaving the thought in the thread', async () => {
    const model = scriptedModel([
      {
        when: /plan/,
        call: () => ({ tool: 'think', input: { thought: 'First check the calendar, then book.' } }),
        then: ([result]) => `Thought noted (${result.status}).`,
      },
    ])
    const server = await startServer({ model, tools: [thinkTool()] })
    const turn = await server.send('plan my day')
    expect(turn.results[0]).toMatchObject({ content: '{}' })
    expect(turn.text).toBe('Thought noted (success).')
    const { messages } = await server.get(turn.threadId)
    const call = messages.find((message) => message.role === 'assistant' && message.toolCalls.length > 0)
    expect(call).toMatchObject({ toolCalls: [{ name: 'think', arguments: '{"thought":"First check the calendar, then book."}' }] })
  })
})

describe('thinkTool in the browser client', () => {
  it('gives its parts metadata.display = thought and the thought as input, so a UI can render a thought', async () => {
    const model = scriptedModel([{ when: /plan/, call: () => ({ tool: 'think', input: { thought: 'Check first.' } }), then: () => 'Done.' }])
    const handler = createChatHandler({ model, tools: [thinkTool()] })
    const client = createChatClient({ endpoint: '/chat', fetch: inProcess(handler), tools: [thinkTool()] })
    await client.send('plan it')
    const [part] = toolCalls(client.getSnapshot())
    expect(part).toMatchObject({ toolName: 'think', state: 'output-available', input: { thought: 'Check first.' }, metadata: { display: 'thought' } })
  })
})
