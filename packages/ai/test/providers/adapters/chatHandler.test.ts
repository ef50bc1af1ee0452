import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { anthropicModel, geminiModel, openAIChatModel, providerToolName } from '@toolgate/ai/providers'
import type { ToolCallArgsEvent, ToolCallStartEvent } from '../../../src/protocol/events.ts'
import { closeAll, startServer, type Turn } from '../../server/helpers/server.ts'
import { journaledBodies, recordingFetch, useAimock } from './helpers.ts'

afterEach(closeAll)

const aimock = useAimock()
const { mock } = aimock

const received: unknown[] = []
const listTools = toolDefinition({
  name: 'admin.tools.list',
  description: 'Lists the admin tools whose name starts with a prefix',
  inputSchema: v.object({ prefix: v.optional(v.string()), limit: v.number() }),
  outputSchema: v.object({ tools: v.array(v.string()) }),
}).server(async (input) => {
  received.push(input)
  return { tools: ['admin.tools.list', 'admin.users.ban'].slice(0, input.limit) }
})
const clock = toolDefinition({
  name: 'get_time',
  description: 'The time in a time zone',
  inputSchema: v.object({ zone: v.string() }),
  outputSchema: v.object({ time: v.string() }),
}).server(async ({ zone }) => ({ time: `12:00 ${zone}` }))

const ADMIN_LIST = providerToolName('admin.tools.list', 'openai-chat')

function argsOf(turn: Turn, name: string): { text: string; deltas: number } {
  const start = turn.events.find((event): event is ToolCallStartEvent => event.type === 'TOOL_CALL_START' && event.toolCallName === name)
  const deltas = turn.events.filter((event): event is ToolCallArgsEvent => event.type === 'TOOL_CALL_ARGS' && event.toolCallId === start?.toolCallId)
  return { text: deltas.map((event) => event.delta).join(''), deltas: deltas.length }
}

describe('createChatHandler with a strict OpenAI model', () => {
  it('runs a renamed tool with the null of an optional property turned back into absence', async () => {
    received.length = 0
    mock.addFixture({
      match: { userMessage: 'list the admin tools', hasToolResult: false },
      response: {
        toolCalls: [
          { id: 'call_list', name: ADMIN_LIST, arguments: '{"prefix":null,"limit":2}' },
          { id: 'call_time', name: 'get_time', arguments: '{"zone":"Europe/Paris"}' },
        ],
      },
      chunkSize: 4,
    })
    mock.addFixture({ match: { userMessage: 'list the admin tools', hasToolResult: true }, response: { content: 'There are two admin tools.' } })
    const server = await startServer({
      model: openAIChatModel({ model: 'gpt-test', baseURL: `${aimock.url}/v1`, strict: true }),
      tools: [listTools, clock],
    })
    const turn = await server.send('list the admin tools')

    expect(turn.finished?.outcome).toEqual({ type: 'success' })
    expect(turn.text).toBe('There are two admin tools.')
    // The tool ran under its own name, with `prefix` absent, and its output passed validation.
    expect(received).toEqual([{ limit: 2 }])
    expect(Object.hasOwn(received[0] as object, 'prefix')).toBe(false)
    expect(turn.results.map(({ toolCallId, metadata: { status, output } }) => ({ toolCallId, status, output }))).toEqual([
      { toolCallId: 'call_list', status: 'success', output: { tools: ['admin.tools.list', 'admin.users.ban'] } },
      { toolCallId: 'call_time', status: 'success', output: { time: '12:00 Europe/Paris' } },
    ])

    // The browser saw the tool's own name and the arguments that were validated; a call whose
    // shape strict mode kept still streamed in pieces.
    expect(argsOf(turn, 'admin.tools.list')).toEqual({ text: '{"limit":2}', deltas: 1 })
    expect(argsOf(turn, 'get_time').text).toBe('{"zone":"Europe/Paris"}')
    expect(argsOf(turn, 'get_time').deltas).toBeGreaterThan(3)
    expect(turn.events.some((event) => event.type === 'TOOL_CALL_START' && event.toolCallName === ADMIN_LIST)).toBe(false)

    // The stored thread, which a reload reads, holds the same.
    const thread = await server.get(turn.threadId)
    expect(thread.messages[1]).toMatchObject({
      role: 'assistant',
      toolCalls: [
        { id: 'call_list', name: 'admin.tools.list', arguments: '{"limit":2}' },
        { id: 'call_time', name: 'get_time', arguments: '{"zone":"Europe/Paris"}' },
      ],
    })

    // The model got the history back under its own names, and the strict declaration both times.
    const bodies = journaledBodies(mock)
    expect(bodies).toHaveLength(2)
    for (const body of bodies) {
      expect(body.tools.map((tool: any) => [tool.function.name, tool.function.strict])).toEqual([
        [ADMIN_LIST, true],
        ['get_time', true],
      ])
    }
    expect(bodies[1].messages).toEqual([
      { role: 'user', content: 'list the admin tools' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_list', type: 'function', function: { name: ADMIN_LIST, arguments: '{"limit":2}' } },
          { id: 'call_time', type: 'function', function: { name: 'get_time', arguments: '{"zone":"Europe/Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_list', content: '{"tools":["admin.tools.list","admin.users.ban"]}' },
      { role: 'tool', tool_call_id: 'call_time', content: '{"time":"12:00 Europe/Paris"}' },
    ])
  })

  it('reports a provider error as the run’s MODEL_ERROR: status and type to the browser, the provider’s message to the server', async () => {
    mock.nextRequestError(401, { message: 'Incorrect API key provided: sk-test****abcd', type: 'invalid_request_error', code: 'invalid_api_key' })
    const errors: unknown[] = []
    const server = await startServer({
      model: openAIChatModel({ model: 'gpt-test', baseURL: `${aimock.url}/v1` }),
      tools: [listTools],
      onError: (error) => errors.push(error),
    })
    const turn = await server.send('hello')
    expect(turn.events.at(-1)).toEqual({ type: 'RUN_ERROR', code: 'MODEL_ERROR', message: 'The model provider failed (HTTP 401, invalid_request_error)' })
    expect(JSON.stringify(turn.events)).not.toContain('sk-test')
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'MODEL_ERROR',
        message: expect.stringMatching(/^The model failed: OpenAI answered 401: Incorrect API key provided: sk-test\*\*\*\*abcd( \(request [\w-]+\))?$/),
        cause: expect.objectContaining({ code: 'PROVIDER_HTTP_ERROR', status: 401 }),
      }),
    ])
  })
})

describe('createChatHandler with an Anthropic model', () => {
  it('runs a tool and answers with its result', async () => {
    received.length = 0
    const name = providerToolName('admin.tools.list', 'anthropic')
    mock.addFixture({
      match: { userMessage: 'list the admin tools', hasToolResult: false },
      response: { content: 'Let me look.', toolCalls: [{ id: 'toolu_list', name, arguments: '{"limit":1}' }] },
      chunkSize: 4,
    })
    mock.addFixture({ match: { userMessage: 'list the admin tools', hasToolResult: true }, response: { content: 'There is one.' } })
    const recorder = recordingFetch()
    const server = await startServer({
      model: anthropicModel({ model: 'claude-test', baseURL: aimock.url, strict: true, fetch: recorder.fetch }),
      tools: [listTools],
    })
    const turn = await server.send('list the admin tools')

    expect(turn.text).toBe('Let me look.There is one.')
    expect(received).toEqual([{ limit: 1 }])
    expect(argsOf(turn, 'admin.tools.list').text).toBe('{"limit":1}')
    expect(recorder.sent[1]!.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'list the admin tools' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_list', name, input: { limit: 1 } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_list', content: '{"tools":["admin.tools.list"]}' }] },
    ])
  })
})

describe('createChatHandler with a Gemini model', () => {
  it('runs a renamed server tool and answers with its result', async () => {
    received.length = 0
    const name = providerToolName('admin.tools.list', 'gemini-json-schema')
    mock.addFixture({ match: { userMessage: 'list the admin tools', hasToolResult: false }, response: { toolCalls: [{ name, arguments: '{"limit":1}' }] } })
    mock.addFixture({ match: { userMessage: 'list the admin tools', hasToolResult: true }, response: { content: 'There is one.' } })
    const recorder = recordingFetch()
    const server = await startServer({
      model: geminiModel({ model: 'gemini-test', baseURL: `${aimock.url}/v1beta`, fetch: recorder.fetch }),
      tools: [listTools],
    })
    const turn = await server.send('list the admin tools')

    expect(turn.finished?.outcome).toEqual({ type: 'success' })
    expect(turn.text).toBe('There is one.')
    expect(received).toEqual([{ limit: 1 }])
    expect(argsOf(turn, 'admin.tools.list').text).toBe('{"limit":1}')
    expect(recorder.sent[1]!.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'list the admin tools' }] },
      { role: 'model', parts: [{ functionCall: { name, args: { limit: 1 } } }] },
      { role: 'user', parts: [{ functionResponse: { name, response: { output: { tools: ['admin.tools.list'] } } } }] },
    ])
  })
})
