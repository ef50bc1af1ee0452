import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { SpanStatusCode } from '@opentelemetry/api'
import { HttpAgent } from '@ag-ui/client'
import type { BaseEvent, Interrupt } from '@ag-ui/core'
import { EventSchemas } from '@ag-ui/core/schemas'
import { createChatClient } from '@toolgate/ai/client'
import * as v from 'valibot'
import { createClient } from 'redis'
import { toolDefinition, type NeedsApproval } from '@toolgate/ai'
import { agentTool, refuseToolCall, verifyDecisionRecords, type ApprovalRequest, type ThreadStore } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'
import { scriptedModel } from '@toolgate/ai/server/testing'
import type { DecisionRecord, RunEvent, ToolInterrupt } from '@toolgate/ai/protocol'
import { closeAll, deferred, errorOf, readTurn, startServer } from './helpers/server.ts'
import { parentOf, recordTelemetry, useContextManager } from './helpers/telemetry.ts'
import { startRedis, type RedisServer } from '../services/redis.ts'

// Agents inside agents (issue 39), through HTTP: an agent tool's inner call that needs approval
// pauses the whole run with one interrupt naming the inner call and its path; the answer, on any
// instance sharing the store, continues the subagent, then the run, and the inner tool runs once.

afterEach(closeAll)

/** A research agent that searches, then emails what it found: the email needs the user's approval. */
function fixture(
  options: {
    emailApproval?: NeedsApproval<{ to: string; body: string }>
    agentApproval?: boolean
    nested?: boolean
    maxSteps?: number
    loop?: boolean
    searchThrows?: boolean
    /** The search waits for this, and tells `searching` it started (its signal aborts with the run). */
    searchGate?: Promise<void>
    /** Each hit is this many characters long. */
    hitLength?: number
  } = {},
) {
  const searching = deferred<AbortSignal>()
  const sent: unknown[] = []
  const searches: unknown[] = []
  const sendEmail = toolDefinition({
    name: 'send_email',
    description: 'Sends an email',
    inputSchema: v.object({ to: v.string(), body: v.string() }),
    outputSchema: v.object({ id: v.string() }),
    // A policy or a boolean: the overloads of toolDefinition type them apart.
    needsApproval: (options.emailApproval ?? true) as true,
  }).server(({ to, body }) => {
    sent.push({ to, body })
    return { id: `mail-${sent.length}` }
  })
  const search = toolDefinition({ name: 'search', description: 'Searches the web', inputSchema: v.object({ q: v.string() }) }).server(async ({ q }, { signal }) => {
    searches.push(q)
    if (options.searchThrows) throw new Error('search backend down: secret-host:5432')
    if (options.searchGate) {
      searching.resolve(signal)
      await options.searchGate
    }
    return { hits: [options.hitLength ? 'x'.repeat(options.hitLength) : `${q} are great`] }
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
    ...(options.agentApproval ? { needsApproval: true } : {}),
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
  return { sent, searches, searching: searching.promise, tools: [top], model }
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

describe('agent tools: answers, limits and failures', () => {
  it('refuses an answer that names another subagent run (422 SUBAGENT_MISMATCH), storing nothing; the right one continues', async () => {
    const { sent, tools, model } = fixture()
    const server = await startServer({ model, tools })
    const first = await server.send('delegate: research cats and email bob')
    const [interrupt] = first.interrupts as [ToolInterrupt]
    const wrong = await server.post({ threadId: first.threadId, resume: [{ interruptId: interrupt.id, approved: true, subagentRunId: 'sub_someone_else' }] })
    expect(await errorOf(wrong)).toMatchObject({ status: 422, error: { code: 'SUBAGENT_MISMATCH', path: 'resume[0].subagentRunId' } })
    expect((await server.get(first.threadId)).interrupts.map((waiting) => waiting.id)).toEqual([interrupt.id])
    expect(sent).toEqual([])
    const right = await server.resume(first.threadId, [{ interruptId: interrupt.id, approved: true, subagentRunId: interrupt.subagentRunId! }])
    expect(right.finished?.outcome.type).toBe('success')
    expect(sent).toHaveLength(1)
  })

  it("checks an edit against the inner tool's schema, asks its policy again, and runs the edited call", async () => {
    const asked: unknown[] = []
    const { sent, tools, model } = fixture({ emailApproval: (input) => (asked.push(input), { reason: `Emails ${input.to}` }) })
    const server = await startServer({ model, tools })
    const first = await server.send('delegate: research cats and email bob')
    const [interrupt] = first.interrupts as [ToolInterrupt]
    expect(interrupt.message).toBe('Emails bob')
    const invalid = await server.post({ threadId: first.threadId, resume: [{ interruptId: interrupt.id, approved: true, editedArgs: { to: 'carol', body: 5 } }] })
    expect(await errorOf(invalid)).toMatchObject({ status: 422, error: { code: 'INVALID_EDITED_ARGS', path: 'resume[0].editedArgs.body' } })
    const edited = await server.resume(first.threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { to: 'carol', body: 'Cats are great' } }])
    expect(asked).toEqual([{ to: 'bob', body: 'Found: {"hits":["cats are great"]}' }, { to: 'carol', body: 'Cats are great' }])
    expect(sent).toEqual([{ to: 'carol', body: 'Cats are great' }])
    const result = edited.results.find((candidate) => candidate.toolCallId === interrupt.toolCallId)
    expect(result?.metadata).toMatchObject({ status: 'success', edited: true, decision: { decision: 'edited', editedFields: ['body', 'to'] } })
  })

  it('a denial with a reason goes to the inner model, and the run goes on', async () => {
    const { sent, tools, model } = fixture()
    const server = await startServer({ model, tools })
    const first = await server.send('delegate: research cats and email bob')
    const [interrupt] = first.interrupts as [ToolInterrupt]
    const denied = await server.resume(first.threadId, [{ interruptId: interrupt.id, approved: false, reason: 'not to bob' }])
    expect(sent).toEqual([])
    expect(denied.results.find((candidate) => candidate.toolCallId === interrupt.toolCallId)?.metadata).toMatchObject({ status: 'denied', reason: 'not to bob' })
    expect(ownText(denied.events)).toContain('email denied')
    expect(ownText(denied.events)).toContain('not to bob')
  })

  it('a delegation that needs approval says what it grants: the tools the agent may call, and which will still ask', async () => {
    const { sent, tools, model } = fixture({ agentApproval: true })
    const server = await startServer({ model, tools })
    const first = await server.send('delegate: research cats and email bob')
    const [interrupt] = first.interrupts as [ToolInterrupt]
    const delegation = {
      agent: 'research',
      tools: [
        { name: 'search', description: 'Searches the web', asks: 'never' },
        { name: 'send_email', description: 'Sends an email', asks: 'always' },
      ],
    }
    expect(interrupt).toMatchObject({ toolName: 'research', metadata: { delegation } })
    expect((await server.get(first.threadId)).interrupts[0]).toMatchObject({ toolName: 'research', delegation })
    expect(first.types).not.toContain('SUBAGENT_STARTED')
    // Approved, the agent runs; its email still asks.
    const second = await server.resume(first.threadId, [{ interruptId: interrupt.id, approved: true }])
    expect(second.interrupts).toMatchObject([{ toolName: 'send_email', subagentRunId: expect.any(String) }])
    const third = await server.resume(first.threadId, [{ interruptId: second.interrupts[0]!.id, approved: true }])
    expect(third.finished?.outcome.type).toBe('success')
    expect(sent).toHaveLength(1)
    // The agent call's result carries the delegation's approval.
    const agentResult = third.results.find((result) => result.toolCallId === interrupt.toolCallId)
    expect(agentResult?.metadata).toMatchObject({ status: 'success', decision: { decision: 'approved' } })
  })

  it('a grant of the inner tool covers it inside that agent: the next delegation emails without asking', async () => {
    const { sent, tools, model } = fixture()
    const server = await startServer({ model, tools })
    const first = await server.send('delegate: research cats and email bob')
    const [interrupt] = first.interrupts as [ToolInterrupt]
    expect(interrupt.metadata?.grantable).toBe(true)
    await server.resume(first.threadId, [{ interruptId: interrupt.id, approved: true, grant: {} }])
    const again = await server.send('delegate: research dogs and email ann', first.threadId)
    expect(again.interrupts).toEqual([])
    expect(sent).toEqual([
      { to: 'bob', body: 'Found: {"hits":["cats are great"]}' },
      { to: 'ann', body: 'Found: {"hits":["dogs are great"]}' },
    ])
    const granted = again.results.find((result) => result.metadata.decision?.decision === 'granted')
    expect(granted).toMatchObject({ subagentRunId: expect.any(String), metadata: { status: 'success' } })
  })

  it("a grant of the inner tool covers it nowhere else: the run's own tool of the same name still asks", async () => {
    const { sent, tools } = fixture()
    const direct: string[] = []
    const ownEmail = toolDefinition({ name: 'send_email', description: 'Sends an email', inputSchema: v.object({ to: v.string(), body: v.string() }), needsApproval: true }).server(({ to }) => {
      direct.push(to)
      return { id: 'direct' }
    })
    const model = scriptedModel([
      { when: /delegate: (.+)/i, call: (m) => ({ tool: 'research', input: { task: m[1] } }), then: ([r]) => `agent ${r.status}` },
      { when: /email (\w+) directly/i, call: (m) => ({ tool: 'send_email', input: { to: m[1], body: 'hi' } }), then: ([r]) => `direct ${r.status}` },
    ])
    const server = await startServer({ model, tools: [...tools, ownEmail] })
    const first = await server.send('delegate: research cats and email bob')
    await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: true, grant: {} }])
    expect(sent).toHaveLength(1)
    const own = await server.send('email eve directly', first.threadId)
    expect(own.interrupts).toMatchObject([{ toolName: 'send_email' }])
    expect(own.interrupts[0]!.subagentRunId).toBeUndefined()
    expect(direct).toEqual([])
  })

  it("an inner tool's reviewers and two-person rule decide its call: the requester may not, two reviewers must", async () => {
    const people: Record<string, { id: string; roles?: string[] }> = { alice: { id: 'alice' }, rita: { id: 'rita', roles: ['finance'] }, bob: { id: 'bob', roles: ['finance'] } }
    const as = (user: string) => ({ 'x-user': user })
    const { sent, tools, model } = fixture({ emailApproval: () => ({ reason: 'External email', reviewers: { roles: ['finance'], required: 2 } }) })
    const server = await startServer({ model, tools, identify: (request) => people[request.headers.get('x-user') ?? ''] })
    const first = await server.send('delegate: research cats and email bob', undefined, as('alice'))
    const [interrupt] = first.interrupts as [ToolInterrupt]
    expect(interrupt).toMatchObject({ toolName: 'send_email', metadata: { reviewers: { roles: ['finance'], required: 2 }, requestedBy: { id: 'alice' } } })
    const byRequester = await server.post({ threadId: first.threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, as('alice'))
    expect((await errorOf(byRequester)).error.code).toBe('REVIEWER_REQUIRED')
    const byRita = await server.resume(first.threadId, [{ interruptId: interrupt.id, approved: true }], as('rita'))
    expect(byRita.status).toBe(202)
    expect(sent).toEqual([])
    const again = await server.post({ threadId: first.threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, as('rita'))
    expect((await errorOf(again)).error.code).toBe('ALREADY_DECIDED')
    const byBob = await server.resume(first.threadId, [{ interruptId: interrupt.id, approved: true }], as('bob'))
    expect(byBob.finished?.outcome.type).toBe('success')
    expect(sent).toHaveLength(1)
    // Its result carries the decision that let it run: the second reviewer's.
    const result = byBob.results.find((candidate) => candidate.toolCallId === interrupt.toolCallId)
    expect(result?.metadata.decision).toMatchObject({ decision: 'approved', by: { id: 'bob' } })
  })

  it("a subagent's browser tool waits for the browser like the run's own: its result, sent as an answer, continues the subagent", async () => {
    const locate = toolDefinition({ name: 'get_location', description: 'Where the user is', inputSchema: v.object({}), outputSchema: v.object({ city: v.string() }) })
    const guide = agentTool({
      name: 'guide',
      description: 'Finds things near the user',
      model: scriptedModel([{ when: /near me/, call: () => ({ tool: 'get_location', input: {} }), then: ([r]) => (r.ok ? `Near ${r.output.city}` : `failed: ${r.content}`) }], { tools: [locate] }),
      tools: [locate],
    })
    const model = scriptedModel([{ when: /find (.+)/, call: (m) => ({ tool: 'guide', input: { task: m[1] } }), then: ([r]) => `Guide: ${r.content}` }])
    // An AG-UI frontend tool of the same name is the client's own, not the subagent's: its call still waits as an interrupt.
    const server = await startServer({ model, tools: [guide], frontendTools: ['get_location'] })
    const first = await server.send('find cafes near me')
    expect(first.finished?.outcome.type).toBe('interrupt')
    const [interrupt] = first.interrupts as [ToolInterrupt]
    expect(interrupt).toMatchObject({ reason: 'client_tool', toolName: 'get_location', subagentRunId: expect.any(String), metadata: { path: [{ agent: 'guide' }] } })
    const invalid = await server.post({ threadId: first.threadId, resume: [{ interruptId: interrupt.id, approved: true }] })
    expect((await errorOf(invalid)).error.code).toBe('ANSWER_MISMATCH')
    const second = await server.resume(first.threadId, [{ interruptId: interrupt.id, output: { city: 'Lyon' } }])
    expect(ownText(second.events)).toBe('Guide: "Near Lyon"')
  })

  it('two delegations in one step run side by side; both wait, both answered in one batch, each continues its own subagent once', async () => {
    const { sent, tools } = fixture()
    const model = scriptedModel([
      {
        when: /both/,
        call: () => [
          { tool: 'research', input: { task: 'research cats and email bob' } },
          { tool: 'research', input: { task: 'research dogs and email ann' } },
        ],
        then: (results) => results.map((r) => r.status).join(', '),
      },
    ])
    const server = await startServer({ model, tools })
    const agent = new HttpAgent({ url: server.url, threadId: `t-${Math.random().toString(36).slice(2)}` })
    agent.addMessage({ id: 'm-1', role: 'user', content: 'both' })
    const first = await runAgui(agent)
    expect(first.interrupts).toHaveLength(2)
    expect(new Set(first.interrupts.map((interrupt) => interrupt.subagentRunId)).size).toBe(2)
    const second = await runAgui(agent, first.interrupts.map((interrupt) => ({ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } })))
    expect(second.interrupts).toEqual([])
    expect(second.ownText).toBe('success, success')
    expect(sent.map((mail) => (mail as { to: string }).to).sort()).toEqual(['ann', 'bob'])
  })

  it("a reviewer's link decides a subagent's call: the request names its path, the link's view is the inner call, and the detached run continues the subagent once", async () => {
    const people: Record<string, { id: string; roles?: string[] }> = { alice: { id: 'alice' }, rita: { id: 'rita', roles: ['finance'] } }
    const requests: ApprovalRequest[] = []
    const { sent, tools, model } = fixture({ emailApproval: () => ({ reason: 'External email', reviewers: { roles: ['finance'] } }) })
    const server = await startServer({
      model,
      tools,
      identify: (request) => people[request.headers.get('x-user') ?? ''],
      reviewLinks: { secret: 'subagent-test-secret-0123456789-abcdef' },
      onApprovalRequested: (request) => void requests.push(request),
    })
    const first = await server.send('delegate: research cats and email bob', undefined, { 'x-user': 'alice' })
    const [interrupt] = first.interrupts as [ToolInterrupt]
    await vi.waitFor(() => expect(requests).toHaveLength(1))
    expect(requests[0]).toMatchObject({ interruptId: interrupt.id, toolName: 'send_email', arguments: interrupt.input, path: [{ agent: 'research', subagentRunId: interrupt.subagentRunId }] })
    const token = requests[0]!.links[0]!.token
    const view = await fetch(`${server.url}?review=${token}`, { headers: { 'x-user': 'rita' } })
    expect(await view.json()).toMatchObject({ interrupt: { id: interrupt.id, toolName: 'send_email', path: [{ agent: 'research' }], responseSchema: expect.any(Object) } })
    const decided = await server.post({ review: token, answer: { interruptId: interrupt.id, approved: true } }, { 'x-user': 'rita' })
    expect(await decided.json()).toMatchObject({ resumed: true, decision: { decision: 'approved', by: { id: 'rita' }, channel: 'review-link' } })
    await vi.waitFor(async () => expect((await server.get(first.threadId)).status).toBe('idle'))
    expect(sent).toHaveLength(1)
    const reused = await server.post({ review: token, answer: { interruptId: interrupt.id, approved: true } }, { 'x-user': 'rita' })
    expect((await errorOf(reused)).error.code).toBe('REVIEW_LINK_USED')
    expect(sent).toHaveLength(1)
  })

  it("an inner approval no one answered in time expires: the agent's call ends expired, the record names the inner call and its path", async () => {
    const records: DecisionRecord[] = []
    const { sent, tools, model } = fixture()
    const server = await startServer({ model, tools, limits: { interruptTtlMs: 50 }, onDecision: (record) => void records.push(record) })
    const first = await server.send('delegate: research cats and email bob')
    const [interrupt] = first.interrupts as [ToolInterrupt]
    expect(interrupt.expiresAt).toEqual(expect.any(String))
    // Nobody reads or writes: the instance that asked settles it when due (its timer).
    await vi.waitFor(() => expect(records).toHaveLength(1), { timeout: 5000 })
    expect(records[0]).toMatchObject({ decision: 'expired', by: { id: 'system' }, toolName: 'send_email', toolCallId: interrupt.toolCallId, path: interrupt.metadata!.path })
    const late = await server.post({ threadId: first.threadId, resume: [{ interruptId: interrupt.id, approved: true }] })
    expect((await errorOf(late)).error.code).toBe('INTERRUPT_EXPIRED')
    const after = await server.get(first.threadId)
    expect(after.status).toBe('idle')
    expect(after.messages.at(-1)).toMatchObject({ role: 'tool', toolName: 'research', status: 'expired' })
    expect(sent).toEqual([])
  })

  it("the app's toolInput middleware refuses a subagent's call as it would the run's own", async () => {
    const { sent, searches, tools, model } = fixture()
    const seen: string[] = []
    const server = await startServer({
      model,
      tools,
      middleware: [{ toolInput: (call) => (seen.push(call.toolName), call.toolName === 'send_email' ? refuseToolCall('Email is off today') : undefined) }],
    })
    const turn = await server.send('delegate: research cats and email bob')
    expect(seen).toEqual(['research', 'search', 'send_email'])
    expect(turn.interrupts).toEqual([])
    expect(searches).toEqual(['cats'])
    expect(sent).toEqual([])
    expect(turn.results.find((result) => result.subagentRunId !== undefined && result.content.includes('Email is off today'))).toMatchObject({ metadata: { status: 'error' } })
  })

  it("a subagent's work counts toward the thread's size: one that would not fit stops with THREAD_FULL, which its caller reads", async () => {
    const { sent, tools, model } = fixture({ hitLength: 3000 })
    const server = await startServer({ model, tools, limits: { maxThreadBytes: 5000, maxMessageBytes: 4000 } })
    const turn = await server.send('delegate: research cats and email bob')
    // Its history (the search's 3 KB result, then an email quoting it) would be kept in the thread's head while the email waits.
    expect(turn.events.find((event) => event.type === 'SUBAGENT_ERROR')).toMatchObject({ code: 'THREAD_FULL' })
    expect(turn.interrupts).toEqual([])
    expect(ownText(turn.events)).toMatch(/^The agent said error: Agent "research" stopped: its work so far does not fit the thread's limit of 5000 bytes/)
    expect(sent).toEqual([])
  })

  it('a new message while an inner call waits supersedes it: the agent call ends cancelled, nothing runs, the next turn goes on', async () => {
    const records: DecisionRecord[] = []
    const { sent, tools, model } = fixture()
    const server = await startServer({ model, tools, onDecision: (record) => void records.push(record) })
    const first = await server.send('delegate: research cats and email bob')
    const [interrupt] = first.interrupts as [ToolInterrupt]
    const next = await server.send('hello', first.threadId)
    expect(next.finished?.outcome.type).toBe('success')
    const after = await server.get(first.threadId)
    expect(after.messages.map((message) => `${message.role}${'status' in message && message.status ? `:${message.status}` : ''}`)).toEqual(['user', 'assistant', 'tool:cancelled', 'user', 'assistant'])
    expect(records).toMatchObject([{ decision: 'cancelled', toolName: 'send_email', toolCallId: interrupt.toolCallId, path: interrupt.metadata!.path }])
    const late = await server.post({ threadId: first.threadId, resume: [{ interruptId: interrupt.id, approved: true }] })
    expect((await errorOf(late)).error.code).toBe('INTERRUPT_ALREADY_ANSWERED')
    expect(sent).toEqual([])
  })

  it('two levels deep, the spans nest the same way: each invoke_agent inside its execute_tool, inside the agent that called it', async () => {
    const stopContext = useContextManager()
    try {
      const recorder = recordTelemetry()
      const { tools, model } = fixture({ nested: true })
      const server = await startServer({ model, tools, telemetry: recorder.telemetry() })
      const first = await server.send('delegate: research cats and email bob')
      expect(first.interrupts).toHaveLength(1)
      const id = (name: string) => recorder.span(name).spanContext().spanId
      expect(parentOf(recorder.span('invoke_agent manager'))).toBe(id('execute_tool manager'))
      expect(parentOf(recorder.span('execute_tool research'))).toBe(id('invoke_agent manager'))
      expect(parentOf(recorder.span('invoke_agent research'))).toBe(id('execute_tool research'))
      expect(recorder.span('invoke_agent research').attributes).toMatchObject({ 'toolgate.subagent.depth': 2 })
    } finally {
      stopContext()
    }
  })

  it("signed records of a subagent's calls verify, path included; a record whose path was altered in the store does not", async () => {
    const secret = 'subagent-records-secret-0123456789-abcdef'
    const { tools, model } = fixture({ nested: true })
    const server = await startServer({ model, tools, decisions: { secret } })
    const first = await server.send('delegate: research cats and email bob')
    await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: true }])
    const response = await fetch(`${server.url}?threadId=${first.threadId}&decisions`)
    expect(response.status).toBe(200)
    const { decisions } = (await response.json()) as { decisions: DecisionRecord[] }
    expect(decisions.map((record) => record.path?.map((hop) => hop.agent))).toEqual([['manager', 'research']])
    await expect(verifyDecisionRecords(decisions, { secret })).resolves.toMatchObject({ count: 1 })
    const altered = decisions.map((record) => ({ ...record, path: record.path!.slice(1) }))
    await expect(verifyDecisionRecords(altered, { secret })).rejects.toMatchObject({ code: 'DECISION_RECORD_ALTERED' })
  })

  it('agents nested deeper than limits.maxAgentDepth do not start: AGENT_DEPTH_LIMIT, read by the calling agent', async () => {
    const { sent, searches, tools, model } = fixture({ nested: true })
    const server = await startServer({ model, tools, limits: { maxAgentDepth: 1 } })
    const turn = await server.send('delegate: research cats and email bob')
    expect(turn.finished?.outcome.type).toBe('success')
    const error = turn.events.find((event) => event.type === 'SUBAGENT_ERROR')
    expect(error).toMatchObject({ code: 'AGENT_DEPTH_LIMIT', message: 'Agent "research" did not start: agents may nest 1 deep, and this call is 2 deep' })
    expect(subagentEvents(turn.events).map((event) => event.type)).toEqual(['SUBAGENT_STARTED', 'SUBAGENT_STARTED', 'SUBAGENT_ERROR', 'SUBAGENT_FINISHED'])
    expect(ownText(turn.events)).toContain('agents may nest 1 deep')
    expect(searches).toEqual([])
    expect(sent).toEqual([])
  })

  it('a subagent that loops stops at its maxSteps: AGENT_STEP_LIMIT, an error its caller reads', async () => {
    const { searches, tools, model } = fixture({ loop: true, maxSteps: 3 })
    const server = await startServer({ model, tools })
    const turn = await server.send('delegate: research cats and email bob')
    expect(searches).toHaveLength(3)
    expect(turn.events.find((event) => event.type === 'SUBAGENT_ERROR')).toMatchObject({ code: 'AGENT_STEP_LIMIT' })
    expect(ownText(turn.events)).toBe('The agent said error: Agent "research" made 3 model calls without answering; it was stopped')
    expect(turn.finished?.outcome.type).toBe('success')
  })

  it('an inner tool that throws is an error result for the inner model, with nothing of the exception', async () => {
    const errors: unknown[] = []
    const { tools, model } = fixture({ searchThrows: true })
    const server = await startServer({ model, tools, onError: (error) => void errors.push(error) })
    const turn = await server.send('delegate: research cats and email bob')
    const failed = turn.results.find((result) => result.subagentRunId !== undefined && result.metadata.status === 'error')
    expect(failed?.content).toMatch(/search/)
    expect(JSON.stringify(turn.events)).not.toContain('secret-host')
    expect(errors).toHaveLength(1)
    // The inner model read the failure and went on to its next call.
    expect(turn.interrupts).toMatchObject([{ toolName: 'send_email' }])
  })

  it('a stop while the subagent runs stops the whole tree: its tool is aborted, the agent call ends, nothing waits', async () => {
    const gate = deferred()
    const { sent, searching, tools, model } = fixture({ searchGate: gate.promise })
    const server = await startServer({ model, tools })
    const { threadId } = await server.send('hello')
    const response = await server.post({ threadId, message: 'delegate: research cats and email bob' })
    const signal = await searching
    const stopped = await server.post({ threadId, stop: true })
    expect(stopped.status).toBe(200)
    const turn = await readTurn(response)
    expect(signal.aborted).toBe(true)
    gate.resolve()
    expect(turn.events.find((event) => event.type === 'SUBAGENT_ERROR')).toMatchObject({ code: 'STOPPED' })
    expect(turn.interrupts).toEqual([])
    expect(sent).toEqual([])
    const after = await server.get(threadId)
    expect(after.status).toBe('idle')
    expect(after.interrupts).toEqual([])
  })

  it('a stop while an inner call waits cancels it: the agent call ends cancelled, and the record names the inner call and its path', async () => {
    const records: DecisionRecord[] = []
    const { sent, tools, model } = fixture()
    const server = await startServer({ model, tools, onDecision: (record) => void records.push(record) })
    const first = await server.send('delegate: research cats and email bob')
    const [interrupt] = first.interrupts as [ToolInterrupt]
    const stopped = await server.post({ threadId: first.threadId, stop: true })
    expect(await stopped.json()).toMatchObject({ stopped: false, cancelled: [interrupt.id] })
    const after = await server.get(first.threadId)
    expect(after.status).toBe('idle')
    expect(after.messages.at(-1)).toMatchObject({ role: 'tool', toolName: 'research', status: 'cancelled' })
    expect(records).toMatchObject([{ decision: 'cancelled', toolName: 'send_email', toolCallId: interrupt.toolCallId, path: interrupt.metadata!.path }])
    expect(sent).toEqual([])
  })

  it('the record and the trace name the inner call: invoke_agent inside execute_tool, the human wait inside the subagent', async () => {
    const stopContext = useContextManager()
    try {
      const recorder = recordTelemetry()
      const records: DecisionRecord[] = []
      const { tools, model } = fixture()
      const server = await startServer({ model, tools, telemetry: recorder.telemetry(), onDecision: (record) => void records.push(record) })
      const first = await server.send('delegate: research cats and email bob')
      const [interrupt] = first.interrupts as [ToolInterrupt]
      await server.resume(first.threadId, [{ interruptId: interrupt.id, approved: true }])
      expect(records).toMatchObject([
        { decision: 'approved', toolName: 'send_email', toolCallId: interrupt.toolCallId, interruptId: interrupt.id, path: [{ agent: 'research', subagentRunId: interrupt.subagentRunId }] },
      ])
      const spans = recorder.spans()
      const named = (name: string) => spans.filter((span) => span.name === name)
      const [firstCall, secondCall] = named('execute_tool research')
      const [firstAgent, secondAgent] = named('invoke_agent research')
      expect(parentOf(firstAgent!)).toBe(firstCall!.spanContext().spanId)
      // The first call's subagent waited: no outcome yet, neither a success nor an error; the second answered.
      expect(firstCall!.attributes['toolgate.tool.outcome']).toBe('waiting')
      expect(firstCall!.status.code).not.toBe(SpanStatusCode.ERROR)
      expect(secondCall!.attributes['toolgate.tool.outcome']).toBe('success')
      const calls = await recorder.metric('toolgate.tool.calls')
      expect(calls.filter((point) => point.attributes['gen_ai.tool.name'] === 'research').map((point) => [point.attributes['toolgate.tool.outcome'], point.value])).toEqual([['success', 1]])
      expect(parentOf(secondAgent!)).toBe(secondCall!.spanContext().spanId)
      expect(firstAgent!.attributes).toMatchObject({ 'gen_ai.agent.name': 'research', 'toolgate.subagent.run.id': interrupt.subagentRunId, 'toolgate.subagent.depth': 1 })
      expect(parentOf(recorder.span('execute_tool search'))).toBe(firstAgent!.spanContext().spanId)
      expect(parentOf(recorder.span('wait_for_approval send_email'))).toBe(firstAgent!.spanContext().spanId)
      expect(parentOf(recorder.span('execute_tool send_email'))).toBe(secondAgent!.spanContext().spanId)
      expect(recorder.span('execute_tool send_email').attributes).toMatchObject({ 'toolgate.decision': 'approved' })
    } finally {
      stopContext()
    }
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
