import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { createChatClient, type ChatState, type MessagePart, type SubagentPart, type ToolCallPart } from '@toolgate/ai/client'
import { agentTool, createChatHandler, memoryStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { deferred, holdingFetch, inProcess, record, runEnded, sseFetch } from './helpers.ts'

// Agents inside agents (issue 39) as Toolgate's client shows them, on the real chat handler: an
// agent tool's call holds its subagent's work (`part.subagent`: status, text, calls, nested), and
// an inner call that needs the user's approval is one of `pendingApprovals`, with its path,
// answered as any other; a reload rebuilds it.

/** A research agent that says what it does, searches, then emails the findings (the email asks first); a manager that delegates to it. */
function agents() {
  const sent: { to: string; body: string }[] = []
  const sendEmail = toolDefinition({
    name: 'send_email',
    description: 'Sends an email',
    inputSchema: v.object({ to: v.pipe(v.string(), v.email()), body: v.string() }),
    needsApproval: true,
  }).server(({ to, body }) => {
    sent.push({ to, body })
    return { id: `mail-${sent.length}` }
  })
  const search = toolDefinition({ name: 'search', description: 'Searches the web', inputSchema: v.object({ q: v.string() }) }).server(({ q }) => ({ hits: [`${q} are great`] }))
  const research = agentTool({
    name: 'research-assistant',
    description: 'Researches a topic and emails the findings',
    model: scriptedModel([
      {
        when: /research (\w+) for (\S+@\S+)/i,
        say: 'Looking it up.',
        call: (m) => ({ tool: 'search', input: { q: m[1] } }),
        then: (results, { round, match }) => {
          const last = results[results.length - 1]!
          if (round === 1) return { call: { tool: 'send_email', input: { to: match[2], body: `Found: ${JSON.stringify(last.output)}` } } }
          return last.status === 'denied' ? `Not sent: ${last.reason}` : `Emailed ${(last.input as { to: string }).to}.`
        },
      },
    ]),
    tools: [search, sendEmail],
  })
  const manager = agentTool({
    name: 'manager',
    description: 'Delegates the work',
    model: scriptedModel([{ when: /(.+)/, call: (m) => ({ tool: 'research-assistant', input: { task: m[1] } }), then: ([r]) => `Manager: ${r.content}` }]),
    tools: [research],
  })
  const model = scriptedModel([
    { when: /^hello/i, reply: 'Hi.' },
    { when: /^deep: (.+)/i, call: (m) => ({ tool: 'manager', input: { task: m[1] } }), then: ([r]) => `Done (${r.status}).` },
    { when: /(.+)/, call: (m) => ({ tool: 'research-assistant', input: { task: m[1] } }), then: ([r]) => `The assistant said: ${r.content}` },
  ])
  return { sent, tools: [research, manager], model, sendEmail }
}

function setup() {
  const { sent, tools, model, sendEmail } = agents()
  const store = memoryStore()
  const handler = createChatHandler({ model, tools, store })
  const { fetch, bodies } = holdingFetch(handler, () => false)
  const client = () => createChatClient({ endpoint: '/api/chat', fetch, scheduleNotify: (flush) => flush(), tools: [sendEmail] })
  return { sent, store, handler, bodies, client }
}

function calls(parts: readonly MessagePart[]): ToolCallPart[] {
  return parts.flatMap((part) => (part.type === 'tool-call' ? [part] : []))
}

/** The call of `name` among the state's messages, and within their subagents. */
function callNamed(state: ChatState, name: string): ToolCallPart | undefined {
  const search = (parts: readonly MessagePart[]): ToolCallPart | undefined => {
    for (const call of calls(parts)) {
      if (call.toolName === name) return call
      const inner = call.subagent && search(call.subagent.parts)
      if (inner) return inner
    }
    return undefined
  }
  return search(state.messages.flatMap((message) => message.parts))
}

function texts(subagent: SubagentPart): string {
  return subagent.parts.map((part) => (part.type === 'text' ? part.text : `[${part.toolName}: ${part.state}]`)).join(' ')
}

function lastText(state: ChatState): string | undefined {
  const last = state.messages.at(-1)
  return last?.role === 'assistant' ? last.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('') : undefined
}

describe("a subagent's work in the chat client", () => {
  it('streams into its call, suspends on the inner approval with its path, and finishes once approved: the email is sent once and the reply follows', async () => {
    const { sent, bodies, client: make } = setup()
    const client = make()
    const states = record(client)
    await client.send('research cats for bob@example.com')

    const paused = client.getSnapshot()
    expect(paused.status).toBe('awaiting-approval')
    const agentCall = callNamed(paused, 'research-assistant')!
    expect(agentCall.state).toBe('executing')
    expect(agentCall.subagent).toMatchObject({ type: 'subagent', name: 'research-assistant', description: 'Researches a topic and emails the findings', status: 'suspended' })
    expect(texts(agentCall.subagent!)).toBe('Looking it up. [search: output-available] [send_email: approval-requested]')
    // The inner call is the one waiting, in the same list as any approval, with how it was reached.
    expect(paused.pendingApprovals).toHaveLength(1)
    const [approval] = paused.pendingApprovals
    expect(approval).toBe(callNamed(paused, 'send_email'))
    expect(approval).toMatchObject({ toolName: 'send_email', input: { to: 'bob@example.com' }, approval: { path: ['research-assistant', 'send_email'] } })
    // The inner tool's schema came with the interrupt, for the form.
    expect(approval!.approval?.inputSchema).toMatchObject({ properties: { to: { type: 'string' } } })
    // Every state showed the subagent as it went: running while it worked, then suspended.
    const statuses = states.map((state) => callNamed(state, 'research-assistant')?.subagent?.status).filter((status, i, all) => status && status !== all[i - 1])
    expect(statuses).toEqual(['running', 'suspended'])
    expect(sent).toEqual([])

    await client.approve(approval!.toolCallId)
    const done = client.getSnapshot()
    expect(done.status).toBe('idle')
    expect(sent).toEqual([{ to: 'bob@example.com', body: 'Found: {"hits":["cats are great"]}' }])
    // The answer named the subagent run its call belongs to, which the server checks.
    const resume = bodies.find((body) => body?.resume)
    expect(resume.resume).toEqual([{ interruptId: expect.any(String), approved: true, subagentRunId: agentCall.subagent!.subagentRunId }])
    const finished = callNamed(done, 'research-assistant')!
    expect(finished.subagent).toMatchObject({ status: 'finished', result: 'Emailed bob@example.com.' })
    expect(callNamed(done, 'send_email')).toMatchObject({ state: 'output-available', output: { id: 'mail-1' } })
    expect(finished.state).toBe('output-available')
    expect(lastText(done)).toBe('The assistant said: "Emailed bob@example.com."')
  })

  it('denies the inner call with a reason: the email is not sent, the subagent reads the reason, and the reply follows', async () => {
    const { sent, client: make } = setup()
    const client = make()
    await client.send('research owls for ann@example.com')
    const [approval] = client.getSnapshot().pendingApprovals
    await client.deny(approval!.toolCallId, 'not to Ann')
    const done = client.getSnapshot()
    expect(sent).toEqual([])
    expect(callNamed(done, 'send_email')).toMatchObject({ state: 'denied', approval: { approved: false, denyReason: 'not to Ann' } })
    expect(callNamed(done, 'research-assistant')!.subagent).toMatchObject({ status: 'finished', result: 'Not sent: not to Ann' })
    expect(lastText(done)).toBe('The assistant said: "Not sent: not to Ann"')
  })

  it('approves an edit of the inner call within the inner tool schema: the edited email is sent', async () => {
    const { sent, client: make } = setup()
    const client = make()
    await client.send('research bees for bob@example.com')
    const [approval] = client.getSnapshot().pendingApprovals
    await client.approve(approval!.toolCallId, { editedArgs: { to: 'carol@example.com', body: 'Bees!' } })
    expect(sent).toEqual([{ to: 'carol@example.com', body: 'Bees!' }])
    expect(lastText(client.getSnapshot())).toBe('The assistant said: "Emailed carol@example.com."')
  })

  it('two levels deep: the nested subagent sits in its call inside the outer one, and the path names both', async () => {
    const { sent, client: make } = setup()
    const client = make()
    await client.send('deep: research cats for bob@example.com')
    const paused = client.getSnapshot()
    const manager = callNamed(paused, 'manager')!
    expect(manager.subagent).toMatchObject({ name: 'manager', status: 'suspended' })
    const [inner] = calls(manager.subagent!.parts)
    expect(inner).toMatchObject({ toolName: 'research-assistant', state: 'executing', subagent: { name: 'research-assistant', status: 'suspended' } })
    expect(texts(inner!.subagent!)).toBe('Looking it up. [search: output-available] [send_email: approval-requested]')
    expect(paused.pendingApprovals.map((call) => call.approval?.path)).toEqual([['manager', 'research-assistant', 'send_email']])

    await client.approve(paused.pendingApprovals[0]!.toolCallId)
    const done = client.getSnapshot()
    expect(sent).toHaveLength(1)
    expect(callNamed(done, 'manager')!.subagent!.status).toBe('finished')
    expect(callNamed(done, 'research-assistant')!.subagent!.status).toBe('finished')
    expect(lastText(done)).toBe('Done (success).')
  })

  it('after a reload, shows the waiting inner call in its subagents, rebuilt from the path, and the answer from the reloaded page runs it once', async () => {
    const { sent, store, client: make } = setup()
    const first = make()
    await first.send('deep: research cats for bob@example.com')
    const { threadId } = first.getSnapshot()
    await runEnded(store, threadId!)

    const reloaded = make()
    await reloaded.load(threadId)
    const state = reloaded.getSnapshot()
    expect(state.status).toBe('awaiting-approval')
    const manager = callNamed(state, 'manager')!
    expect(manager.subagent).toMatchObject({ name: 'manager', status: 'suspended' })
    expect(calls(manager.subagent!.parts)).toMatchObject([{ toolName: 'research-assistant', state: 'executing', subagent: { status: 'suspended' } }])
    expect(state.pendingApprovals).toMatchObject([{ toolName: 'send_email', input: { to: 'bob@example.com' }, approval: { path: ['manager', 'research-assistant', 'send_email'] } }])
    expect(state.pendingApprovals[0]).toBe(callNamed(state, 'send_email'))

    await reloaded.approve(state.pendingApprovals[0]!.toolCallId)
    expect(sent).toHaveLength(1)
    expect(lastText(reloaded.getSnapshot())).toBe('Done (success).')
  })

  it('keeps the parts that did not change: text streaming in a subagent rebuilds its call and message, not the messages before', async () => {
    const { client: make } = setup()
    const client = make()
    await client.send('hello there')
    const before = client.getSnapshot().messages
    const states = record(client)
    await client.send('research cats for bob@example.com')
    for (const state of states) expect(before.every((message, i) => state.messages[i] === message)).toBe(true)
    // Each state that changed the subagent has a new call part for it; the message around it is new too.
    const seen = states.map((state) => callNamed(state, 'research-assistant')).filter(Boolean)
    expect(new Set(seen.map((call) => call!.subagent)).size).toBeGreaterThan(2)
  })

  it('a page reloaded while the subagent works follows the run from its start and shows the same work, once', async () => {
    const gate = deferred<void>()
    const started = deferred<void>()
    const slowSearch = toolDefinition({ name: 'search', description: 'Searches', inputSchema: v.object({ q: v.string() }) }).server(async ({ q }) => {
      started.resolve()
      await gate.promise
      return { hits: [`${q} are great`] }
    })
    const researcher = agentTool({
      name: 'researcher',
      description: 'Researches',
      model: scriptedModel([{ when: /(\w+)$/, say: 'On it.', call: (m) => ({ tool: 'search', input: { q: m[1] } }), then: ([r]) => `Found ${JSON.stringify(r.output)}` }]),
      tools: [slowSearch],
    })
    const store = memoryStore()
    const handler = createChatHandler({ model: scriptedModel([{ when: /.*/, call: () => ({ tool: 'researcher', input: { task: 'look up owls' } }), then: ([r]) => `Done: ${r.content}` }]), tools: [researcher], store })
    const make = () => createChatClient({ endpoint: '/api/chat', fetch: inProcess(handler), scheduleNotify: (flush) => flush() })
    const first = make()
    const sending = first.send('go')
    await started.promise
    const reloaded = make()
    const loading = reloaded.load(first.getSnapshot().threadId)
    gate.resolve()
    await Promise.all([sending, loading])
    for (const client of [first, reloaded]) {
      const state = client.getSnapshot()
      const call = callNamed(state, 'researcher')!
      expect(call.subagent).toMatchObject({ status: 'finished', result: 'Found {"hits":["owls are great"]}' })
      expect(texts(call.subagent!)).toBe('On it. [search: output-available] Found {"hits":["owls are great"]}')
      expect(lastText(state)).toBe('Done: "Found {\\"hits\\":[\\"owls are great\\"]}"')
    }
  })

  it("an agent tool's own approval says what it delegates (the tools its subagent may call, and which still ask); approved, the inner call asks in turn", async () => {
    const sendEmail = toolDefinition({ name: 'send_email', description: 'Sends an email', inputSchema: v.object({ to: v.string() }), needsApproval: true }).server(() => ({ ok: true }))
    const search = toolDefinition({ name: 'search', description: 'Searches the web', inputSchema: v.object({ q: v.string() }) }).server(() => ({ hits: [] }))
    const assistant = agentTool({
      name: 'assistant',
      description: 'Searches and emails',
      model: scriptedModel([{ when: /.*/, call: () => ({ tool: 'send_email', input: { to: 'bob' } }), then: ([r]) => `email ${r.status}` }]),
      tools: [search, sendEmail],
      needsApproval: true,
    })
    const handler = createChatHandler({ model: scriptedModel([{ when: /.*/, call: () => ({ tool: 'assistant', input: { task: 'go' } }), then: ([r]) => `Done: ${r.content}` }]), tools: [assistant] })
    const client = createChatClient({ endpoint: '/api/chat', fetch: inProcess(handler), scheduleNotify: (flush) => flush() })
    await client.send('go')
    const [delegating] = client.getSnapshot().pendingApprovals
    expect(delegating).toMatchObject({ toolName: 'assistant' })
    expect(delegating!.approval?.path).toBeUndefined()
    expect(delegating!.approval?.delegation).toEqual({
      agent: 'assistant',
      tools: [
        { name: 'search', description: 'Searches the web', asks: 'never' },
        { name: 'send_email', description: 'Sends an email', asks: 'always' },
      ],
    })
    await client.approve(delegating!.toolCallId)
    const [inner] = client.getSnapshot().pendingApprovals
    expect(inner).toMatchObject({ toolName: 'send_email', approval: { path: ['assistant', 'send_email'] } })
    expect(inner!.approval?.delegation).toBeUndefined()
    await client.approve(inner!.toolCallId)
    expect(lastText(client.getSnapshot())).toBe('Done: "email success"')
  })

  it("reports a subagent's failure on it, and the run goes on", async () => {
    const failing = agentTool({
      name: 'looper',
      description: 'Never stops searching',
      model: scriptedModel([{ when: /.*/, call: () => ({ tool: 'search', input: {} }), then: () => ({ call: { tool: 'search', input: {} } }) }]),
      tools: [toolDefinition({ name: 'search', description: 'Searches', inputSchema: v.object({}) }).server(() => ({ hits: [] }))],
      maxSteps: 2,
    })
    const handler = createChatHandler({ model: scriptedModel([{ when: /.*/, call: () => ({ tool: 'looper', input: { task: 'go' } }), then: ([r]) => `It failed: ${r.status}` }]), tools: [failing] })
    const client = createChatClient({ endpoint: '/api/chat', fetch: inProcess(handler), scheduleNotify: (flush) => flush() })
    await client.send('loop')
    const state = client.getSnapshot()
    expect(callNamed(state, 'looper')!.subagent).toMatchObject({ status: 'error', error: expect.stringMatching(/\S/) })
    expect(lastText(state)).toBe('It failed: error')
  })

  it('refuses a malformed subagent event as any other (BAD_RESPONSE), and skips the events of a subagent it never saw start', async () => {
    const fetch = sseFetch([
      { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
      { type: 'SUBAGENT_STARTED', subagentRunId: 'sub_1', parentToolCallId: 'c1' } as never,
    ])
    const client = createChatClient({ endpoint: '/api/chat', fetch, scheduleNotify: (flush) => flush() })
    await client.send('go')
    expect(client.getSnapshot().error).toMatchObject({ code: 'BAD_RESPONSE', message: 'The server sent a SUBAGENT_STARTED event without a string `name`' })

    const unknown = sseFetch([
      { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant', subagentRunId: 'sub_x' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'from nowhere', subagentRunId: 'sub_x' },
      { type: 'SUBAGENT_FINISHED', subagentRunId: 'sub_x' },
      { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1', outcome: { type: 'success' } },
    ])
    const other = createChatClient({ endpoint: '/api/chat', fetch: unknown, scheduleNotify: (flush) => flush() })
    await other.send('go')
    expect(other.getSnapshot().error).toBeUndefined()
    expect(lastText(other.getSnapshot())).toBe('from nowhere')
  })
})
