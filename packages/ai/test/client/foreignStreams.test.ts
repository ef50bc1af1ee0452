import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { chat, toServerSentEventsResponse } from '@tanstack/ai'
import { createOpenaiChatCompletions } from '@tanstack/ai-openai'
import { toolDefinition } from '@toolgate/ai'
import { createChatClient, type ChatState } from '@toolgate/ai/client'
import { toTanStackTool } from '@toolgate/ai/interop/tanstack'
import { useAimock } from '../providers/adapters/helpers.ts'

// ChatClient reads any spec-valid AG-UI stream, not only Toolgate's: without its extension fields,
// with several runs in one response, with event types it does not know.

const aimock = useAimock()

/** A client whose every request gets `respond()`'s response. */
function clientOf(respond: () => Response | Promise<Response>) {
  return createChatClient({ endpoint: '/agent', fetch: async () => respond(), scheduleNotify: (flush) => flush() })
}

const sse = (events: readonly object[]) =>
  new Response(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream' } })

function summary(state: ChatState) {
  return state.messages.map((message) => ({
    role: message.role,
    parts: message.parts.map((part) => (part.type === 'text' ? part.text : { tool: part.toolName, state: part.state, input: part.input, output: part.output, error: part.error })),
  }))
}

describe('ChatClient reads other AG-UI servers', () => {
  it('a stream from TanStack AI chat() over SSE: text and a server tool call with its result', async () => {
    aimock.mock.addFixture({ match: { userMessage: 'weather in Oslo', hasToolResult: false }, response: { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] } })
    aimock.mock.addFixture({ match: { userMessage: 'weather in Oslo', hasToolResult: true }, response: { content: 'It is 4 degrees in Oslo.' } })
    const weather = toolDefinition({
      name: 'get_weather',
      description: 'Current weather in a city',
      inputSchema: v.object({ city: v.string() }),
      outputSchema: v.object({ tempC: v.number() }),
    }).server(async ({ city }) => ({ tempC: city.length }))
    const adapter = createOpenaiChatCompletions('gpt-4.1', 'sk-test', { baseURL: `${aimock.url}/v1`, maxRetries: 0 })
    const client = clientOf(() =>
      toServerSentEventsResponse(chat({ adapter, messages: [{ role: 'user', content: 'weather in Oslo' }], tools: [toTanStackTool(weather)] })),
    )
    await client.send('weather in Oslo')

    const state = client.getSnapshot()
    expect(state.error).toBeUndefined()
    expect(state.status).toBe('idle')
    const parts = state.messages.flatMap((message) => (message.role === 'assistant' ? message.parts : []))
    expect(parts.find((part) => part.type === 'tool-call')).toMatchObject({ toolName: 'get_weather', state: 'output-available', input: { city: 'Oslo' }, output: { tempC: 4 } })
    expect(parts.filter((part) => part.type === 'text').map((part) => part.text).join('')).toBe('It is 4 degrees in Oslo.')
  })

  it('a plain AG-UI stream: result status inferred from content, several runs, unknown events skipped', async () => {
    const client = clientOf(() =>
      sse([
        { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
        { type: 'STATE_SNAPSHOT', snapshot: { step: 1 } },
        { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'lookup', parentMessageId: 'm1' },
        { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"q":"a"}' },
        { type: 'TOOL_CALL_END', toolCallId: 'c1' },
        { type: 'TOOL_CALL_RESULT', messageId: 'tm1', toolCallId: 'c1', content: '{"hits":2}' },
        { type: 'TOOL_CALL_START', toolCallId: 'c2', toolCallName: 'lookup', parentMessageId: 'm1' },
        { type: 'TOOL_CALL_END', toolCallId: 'c2' },
        { type: 'TOOL_CALL_RESULT', messageId: 'tm2', toolCallId: 'c2', content: '{"error":"index offline"}', role: 'tool' },
        { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' },
        { type: 'RUN_STARTED', threadId: 't1', runId: 'r2' },
        { type: 'CUSTOM', name: 'progress', value: 1 },
        { type: 'TEXT_MESSAGE_START', messageId: 'm2', role: 'assistant' },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: 'Two hits.' },
        { type: 'TEXT_MESSAGE_END', messageId: 'm2' },
        { type: 'RUN_FINISHED', threadId: 't1', runId: 'r2' },
      ]),
    )
    await client.send('look it up')
    const state = client.getSnapshot()
    expect(state.error).toBeUndefined()
    expect(state.threadId).toBe('t1')
    expect(summary(state)).toEqual([
      { role: 'user', parts: ['look it up'] },
      {
        role: 'assistant',
        parts: [
          { tool: 'lookup', state: 'output-available', input: { q: 'a' }, output: { hits: 2 }, error: undefined },
          { tool: 'lookup', state: 'output-error', input: {}, output: undefined, error: 'index offline' },
        ],
      },
      { role: 'assistant', parts: ['Two hits.'] },
    ])
  })

  it('AG-UI 1.0 catch-up and frontend calls: MESSAGES_SNAPSHOT is skipped, a success with pendingToolCallIds ends the run', async () => {
    const client = clientOf(() =>
      sse([
        { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
        { type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'u0', role: 'user', content: 'earlier' }] },
        { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'confirm_plan', parentMessageId: 'm1' },
        { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"plan":"x"}' },
        { type: 'TOOL_CALL_END', toolCallId: 'c1' },
        { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1', outcome: { type: 'success', pendingToolCallIds: ['c1'] } },
      ]),
    )
    await client.send('plan it')
    const state = client.getSnapshot()
    expect(state.error).toBeUndefined()
    expect(state.status).toBe('idle')
    // The snapshot restates a thread this client reads itself; the frontend call stays waiting for its result.
    expect(summary(state)).toEqual([
      { role: 'user', parts: ['plan it'] },
      { role: 'assistant', parts: [{ tool: 'confirm_plan', state: 'input-available', input: { plan: 'x' }, output: undefined, error: undefined }] },
    ])
  })

  it('an interrupt in AG-UI terms only (no tool name or input at the top): the call it names asks for approval', async () => {
    const client = clientOf(() =>
      sse([
        { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
        { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'delete_repo' },
        { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"repo":"x"}' },
        { type: 'TOOL_CALL_END', toolCallId: 'c1' },
        { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1', outcome: { type: 'interrupt', interrupts: [{ id: 'i1', reason: 'tool_call', toolCallId: 'c1', message: 'Deletes a repository' }] } },
      ]),
    )
    await client.send('delete x')
    const state = client.getSnapshot()
    expect(state.status).toBe('awaiting-approval')
    expect(state.pendingApprovals).toEqual([expect.objectContaining({ toolCallId: 'c1', toolName: 'delete_repo', input: { repo: 'x' }, approval: { reason: 'Deletes a repository' } })])
  })
})
