import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { createClient } from 'redis'
import { toolDefinition } from '@toolgate/ai'
import { agentTool, createChatHandler, memoryStore, type ThreadStore } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'
import { scriptedModel } from '@toolgate/ai/server/testing'
import type { RunEvent, ToolInterrupt } from '@toolgate/ai/protocol'
import { closeAll, errorOf, startServer, type TestServer } from './helpers/server.ts'
import { startRedis, type RedisServer } from '../services/redis.ts'

// Agents inside agents (issue 39), through HTTP: an agent tool's inner call that needs approval
// pauses the whole run with one interrupt naming the inner call and its path; the answer, on any
// instance sharing the store, continues the subagent, then the run, and the inner tool runs once.

afterEach(closeAll)

/** A research agent that searches, then emails what it found: the email needs the user's approval. */
function fixture(options: { emailApproval?: boolean; nested?: boolean; maxSteps?: number; loop?: boolean; searchThrows?: boolean } = {}) {
  const sent: unknown[] = []
  const searches: unknown[] = []
  const sendEmail = toolDefinition({
    name: 'send_email',
    description: 'Sends an email',
    inputSchema: v.object({ to: v.string(), body: v.string() }),
    outputSchema: v.object({ id: v.string() }),
    needsApproval: options.emailApproval ?? true,
  }).server(({ to, body }) => {
    sent.push({ to, body })
    return { id: `mail-${sent.length}` }
  })
  const search = toolDefinition({ name: 'search', description: 'Searches the web', inputSchema: v.object({ q: v.string() }) }).server(({ q }) => {
    searches.push(q)
    if (options.searchThrows) throw new Error('search backend down: secret-host:5432')
    return { hits: [`${q} are great`] }
  })
  const researchModel = scriptedModel([
    {
      when: /research (\w+) and email (\w+)/i,
      call: (m) => ({ tool: 'search', input: { q: m[1] } }),
      then: (results, { round, match }) => {
        if (options.loop) return { call: { tool: 'search', input: { q: `again ${round}` } } }
        const last = results[results.length - 1]!
        if (round === 1) return { call: { tool: 'send_email', input: { to: match[2], body: `Found: ${JSON.stringify(last.output)}` } } }
        return `Research done; email ${last.status}${last.ok ? ` (${JSON.stringify(last.output)})` : `: ${last.content}`}`
      },
    },
  ])
  const research = agentTool({
    name: 'research',
    description: 'Researches a topic and emails the findings',
    model: researchModel,
    tools: [search, sendEmail],
    ...(options.maxSteps ? { maxSteps: options.maxSteps } : {}),
  })
  // Two levels: a manager agent that hands the work to the research agent.
  const manager = agentTool({
    name: 'manager',
    description: 'Plans the work and delegates it',
    model: scriptedModel([{ when: /(.+)/, call: (m) => ({ tool: 'research', input: { task: m[1] } }), then: ([r]) => `Manager: ${r.content}` }]),
    tools: [research],
  })
  const top = options.nested ? manager : research
  const model = scriptedModel([
    {
      when: /delegate: (.+)/i,
      call: (m) => ({ tool: top.name, input: { task: m[1] } }),
      then: ([r]) => `The agent said ${r.status}: ${r.content}`,
    },
  ])
  return { sent, searches, tools: [top], model }
}

/** The run's own model's text: events without a subagent's attribution. */
function ownText(events: readonly RunEvent[]): string {
  return events.map((event) => (event.type === 'TEXT_MESSAGE_CONTENT' && event.subagentRunId === undefined ? event.delta : '')).join('')
}

function subagentEvents(events: readonly RunEvent[]) {
  return events.filter((event) => event.type.startsWith('SUBAGENT_'))
}

describe('agent tools', () => {
  it('pauses the run on an inner approval with one interrupt naming the inner call and its path, and continues the subagent once approved', async () => {
    const { sent, searches, tools, model } = fixture()
    const server = await startServer({ model, tools })
    const first = await server.send('delegate: research cats and email bob')

    expect(first.finished?.outcome.type).toBe('interrupt')
    expect(first.interrupts).toHaveLength(1)
    const [interrupt] = first.interrupts as [ToolInterrupt]
    const started = first.events.find((event) => event.type === 'SUBAGENT_STARTED')!
    expect(started).toMatchObject({ name: 'research', description: 'Researches a topic and emails the findings' })
    const subagentRunId = (started as { subagentRunId: string }).subagentRunId
    const agentCall = first.events.find((event) => event.type === 'TOOL_CALL_START' && event.toolCallName === 'research')!
    expect(started).toMatchObject({ parentToolCallId: (agentCall as { toolCallId: string }).toolCallId })
    expect(interrupt).toMatchObject({
      reason: 'tool_approval',
      toolName: 'send_email',
      input: { to: 'bob', body: 'Found: {"hits":["cats are great"]}' },
      subagentRunId,
      metadata: { path: [{ agent: 'research', toolCallId: (agentCall as { toolCallId: string }).toolCallId, subagentRunId }] },
    })
    // The inner call streamed under the subagent, with the inner tool's schema to edit against.
    const innerStart = first.events.find((event) => event.type === 'TOOL_CALL_START' && event.toolCallName === 'send_email')
    expect(innerStart).toMatchObject({ subagentRunId, toolCallId: interrupt.toolCallId })
    expect(JSON.stringify(interrupt.responseSchema)).toContain('"to"')
    expect(subagentEvents(first.events).map((event) => [event.type, 'outcome' in event ? event.outcome : undefined])).toEqual([
      ['SUBAGENT_STARTED', undefined],
      ['SUBAGENT_FINISHED', { type: 'suspended', interruptIds: [interrupt.id] }],
    ])
    expect(searches).toEqual(['cats'])
    expect(sent).toEqual([])
    // The snapshot shows the same interrupt with its path at the top.
    const snapshot = await server.get(first.threadId)
    expect(snapshot.interrupts[0]).toMatchObject({ id: interrupt.id, toolName: 'send_email', subagentRunId, path: [{ agent: 'research', subagentRunId }] })

    const second = await server.resume(first.threadId, [{ interruptId: interrupt.id, approved: true }])
    expect(second.status).toBe(200)
    expect(sent).toEqual([{ to: 'bob', body: 'Found: {"hits":["cats are great"]}' }])
    expect(searches).toEqual(['cats'])
    expect(subagentEvents(second.events).map((event) => event.type)).toEqual(['SUBAGENT_STARTED', 'SUBAGENT_FINISHED'])
    expect(subagentEvents(second.events).every((event) => (event as { subagentRunId: string }).subagentRunId === subagentRunId)).toBe(true)
    const innerResult = second.results.find((result) => result.toolCallId === interrupt.toolCallId)
    expect(innerResult).toMatchObject({ subagentRunId, metadata: { status: 'success', decision: { decision: 'approved' } } })
    expect(second.finished?.outcome.type).toBe('success')
    expect(ownText(second.events)).toBe('The agent said success: "Research done; email success ({\\"id\\":\\"mail-1\\"})"')
    expect(second.text).toContain('Research done')
    // The run's history holds the delegation and its answer; the subagent's own steps are its own.
    const after = await server.get(first.threadId)
    expect(after.status).toBe('idle')
    expect(after.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })
})
