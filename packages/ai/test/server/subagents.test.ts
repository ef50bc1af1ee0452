import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { HttpAgent } from '@ag-ui/client'
import type { BaseEvent, Interrupt } from '@ag-ui/core'
import { EventSchemas } from '@ag-ui/core/schemas'
import { createChatClient } from '@toolgate/ai/client'
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

describe('agent tools across instances sharing Redis', () => {
  let redis: RedisServer
  const clients: ReturnType<typeof createClient>[] = []
  beforeAll(async () => {
    redis = await startRedis()
  }, 30_000)
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit()))
    await redis?.stop()
  })
  let prefixes = 0
  /** Two handler instances on one Redis, as two processes behind a load balancer. */
  async function twoInstances(options: Parameters<typeof fixture>[0] = {}) {
    const shared = fixture(options)
    const prefix = `sub${prefixes++}:`
    const instance = async () => {
      const client = createClient({ url: redis.url })
      await client.connect()
      clients.push(client)
      const store: ThreadStore = redisStore({ client, prefix })
      return startServer({ model: shared.model, tools: shared.tools, store })
    }
    const [a, b] = await Promise.all([instance(), instance()])
    return { ...shared, a: a!, b: b! }
  }

  it('the stock @ag-ui/client pauses on the inner call, answered through instance B the inner tool runs once and the reply follows, with no warning', async () => {
    const { a, b, sent } = await twoInstances()
    const warn = vi.spyOn(console, 'warn')
    const threadId = `t-${Math.random().toString(36).slice(2)}`
    const agentA = new HttpAgent({ url: a.url, threadId })
    agentA.addMessage({ id: 'm-1', role: 'user', content: 'delegate: research cats and email bob' })
    const first = await runAgui(agentA)
    expect(first.interrupts).toHaveLength(1)
    const [interrupt] = first.interrupts
    const started = first.events.find((event) => event.type === 'SUBAGENT_STARTED') as unknown as { subagentRunId: string }
    expect(interrupt).toMatchObject({ reason: 'tool_approval', subagentRunId: started.subagentRunId, metadata: { toolName: 'send_email', input: { to: 'bob' }, path: [{ agent: 'research' }] } })
    // The stock client keeps the subagent's messages apart (attributed); they go back with the next input.
    expect(agentA.messages.some((message) => (message as { subagentRunId?: string }).subagentRunId === started.subagentRunId)).toBe(true)

    // The same conversation continues through instance B (a fresh agent with the client's messages).
    const agentB = new HttpAgent({ url: b.url, threadId, initialMessages: agentA.messages })
    const second = await runAgui(agentB, [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: true }, metadata: { subagentRunId: started.subagentRunId } }])
    expect(sent).toEqual([{ to: 'bob', body: 'Found: {"hits":["cats are great"]}' }])
    expect(second.interrupts).toEqual([])
    expect(second.types.filter((type) => type.startsWith('SUBAGENT_'))).toEqual(['SUBAGENT_STARTED', 'SUBAGENT_FINISHED'])
    expect(second.ownText).toMatch(/^The agent said success: "Research done; email success/)
    expect(warn).not.toHaveBeenCalled()
    warn.mockRestore()
    // Answered again (a replay): applied at most once.
    const replay = await b.post({ threadId, resume: [{ interruptId: interrupt!.id, approved: true }] })
    expect((await errorOf(replay)).error.code).toBe('INTERRUPT_ALREADY_ANSWERED')
    expect(sent).toHaveLength(1)
  })

  it("Toolgate's createChatClient shows the inner call's approval; answered through instance B, the inner tool runs once and the reply follows", async () => {
    const { a, b, sent } = await twoInstances()
    let requests = 0
    // A load balancer: the first request reaches A, every later one B.
    const client = createChatClient({ endpoint: a.url, fetch: (input, init) => fetch(requests++ === 0 ? String(input) : String(input).replace(a.url, b.url), init) })
    await client.send('delegate: research cats and email bob')
    const asked = client.getSnapshot()
    expect(asked.status).toBe('awaiting-approval')
    expect(asked.pendingApprovals).toHaveLength(1)
    expect(asked.pendingApprovals[0]).toMatchObject({ toolName: 'send_email', input: { to: 'bob' } })
    await client.approve(asked.pendingApprovals[0]!.toolCallId)
    const done = client.getSnapshot()
    expect(done.status).toBe('idle')
    expect(sent).toHaveLength(1)
    const last = done.messages.at(-1)!
    expect(last.parts.some((part) => part.type === 'text' && part.text.startsWith('The agent said success'))).toBe(true)
    expect(requests).toBeGreaterThan(1)
  })

  it('two levels deep: the path names both delegations; answered through B, the innermost tool runs once and both agents answer', async () => {
    const { a, b, sent } = await twoInstances({ nested: true })
    const first = await a.send('delegate: research dogs and email ann')
    expect(first.interrupts).toHaveLength(1)
    const [interrupt] = first.interrupts as [ToolInterrupt]
    const starts = first.events.filter((event) => event.type === 'SUBAGENT_STARTED') as unknown as { subagentRunId: string; name: string; parentSubagentRunId?: string }[]
    expect(starts.map((start) => start.name)).toEqual(['manager', 'research'])
    expect(starts[1]!.parentSubagentRunId).toBe(starts[0]!.subagentRunId)
    expect(interrupt.subagentRunId).toBe(starts[1]!.subagentRunId)
    expect(interrupt.metadata?.path?.map((hop) => [hop.agent, hop.subagentRunId])).toEqual([
      ['manager', starts[0]!.subagentRunId],
      ['research', starts[1]!.subagentRunId],
    ])
    // The outer agent waits on its child's interrupt, none of its own; the inner one on its call.
    expect(subagentEvents(first.events).filter((event) => event.type === 'SUBAGENT_FINISHED').map((event) => [(event as { subagentRunId: string }).subagentRunId, (event as { outcome: unknown }).outcome])).toEqual([
      [starts[1]!.subagentRunId, { type: 'suspended', interruptIds: [interrupt.id] }],
      [starts[0]!.subagentRunId, { type: 'suspended', interruptIds: [] }],
    ])

    const second = await b.resume(first.threadId, [{ interruptId: interrupt.id, approved: true, subagentRunId: interrupt.subagentRunId! }])
    expect(second.status).toBe(200)
    expect(sent).toEqual([{ to: 'ann', body: 'Found: {"hits":["dogs are great"]}' }])
    expect(ownText(second.events)).toMatch(/^The agent said success: "Manager: \\"Research done; email success/)
    expect(second.finished?.outcome.type).toBe('success')
  })
})

/** Runs the stock AG-UI agent once; every event checked against AG-UI's schemas. */
async function runAgui(agent: HttpAgent, resume?: unknown[]) {
  const events: BaseEvent[] = []
  let interrupts: Interrupt[] = []
  await agent.runAgent(resume ? ({ resume } as never) : {}, {
    onEvent: ({ event }) => {
      expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true)
      events.push(event)
    },
    onRunFinishedEvent: (params) => {
      if (params.event.outcome?.type === 'interrupt') interrupts = params.event.outcome.interrupts
    },
  })
  return { events, interrupts, types: events.map((event) => event.type as string), ownText: ownText(events as unknown as RunEvent[]) }
}
