import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { createClient } from 'redis'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer as ToolgateMcpServer } from '@modelcontextprotocol/server'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { type ChatModel, type StoredInterrupt } from '@toolgate/ai/server'
import type { Principal } from '@toolgate/ai/protocol'
import { redisStore } from '@toolgate/ai/server/redis'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { mcpToolDefinitions, registerMcpTools } from '@toolgate/ai/interop/mcp'
import { locationDef, transferDef, weatherDef, weatherTool } from './fixtures.ts'
import { closeAll, errorOf, readTurn, startServer } from './helpers/server.ts'
import { millis, parentOf, recordTelemetry, useContextManager } from './helpers/telemetry.ts'
import { startRedis, type RedisServer } from '../services/redis.ts'

afterEach(closeAll)

let stopContext: () => void
beforeAll(() => {
  stopContext = useContextManager()
})
afterAll(() => stopContext())

const model = scriptedModel(
  [
    { when: /weather in (\w+)/i, call: (m) => ({ tool: 'get_weather', input: { city: m[1] } }), then: ([r]) => (r.status === 'success' ? `It is ${JSON.stringify(r.output)}` : r.content) },
    { when: /send (\d+) to (\w+)/i, call: (m) => ({ tool: 'transfer_money', input: { to: m[2], amount: Number(m[1]) } }), then: ([r]) => `transfer: ${r.status}` },
    { when: /lookup/i, call: () => ({ tool: 'lookup', input: { key: 'k' } }), then: ([r]) => `lookup: ${r.content}` },
    { when: /where am i/i, call: () => ({ tool: 'get_location', input: {} }), then: ([r]) => `location: ${r.content}` },
  ],
  { tools: [weatherDef, transferDef, locationDef] },
)

/** The app's auth: a session header the test sets, read by `identify`. */
const PEOPLE: Record<string, Principal> = {
  alice: { id: 'alice', name: 'Alice Liddell' },
  bob: { id: 'bob', name: 'Bob Marley', roles: ['finance'] },
  carol: { id: 'carol', name: 'Carol King', roles: ['finance'] },
}
const identify = (request: Request) => PEOPLE[request.headers.get('x-session') ?? '']
const as = (who: string) => ({ 'x-session': who })

/** Paid once finance approves: one reviewer up to 1000, two above. */
const payDef = toolDefinition({
  name: 'pay_invoice',
  description: 'Pays an invoice',
  inputSchema: v.object({ invoice: v.string(), amount: v.number() }),
  outputSchema: v.object({ paid: v.string() }),
  needsApproval: (input) => ({ reason: `Pays ${input.invoice}`, reviewers: { roles: ['finance'], required: input.amount > 1000 ? 2 : 1 } }),
})
const payTool = payDef.server((input) => ({ paid: input.invoice }))

const approvals = scriptedModel(
  [
    { when: /pay (\S+) (\d+)/i, call: (m) => ({ tool: 'pay_invoice', input: { invoice: m[1]!, amount: Number(m[2]) } }), then: ([r]) => `pay: ${r.status}` },
    { when: /send (\d+) to (\w+)/i, call: (m) => ({ tool: 'transfer_money', input: { to: m[2]!, amount: Number(m[1]) } }), then: ([r]) => `transfer: ${r.status}` },
    {
      when: /two transfers/i,
      call: () => [
        { tool: 'transfer_money', input: { to: 'Ann', amount: 200 } },
        { tool: 'transfer_money', input: { to: 'Ben', amount: 300 } },
      ],
      then: (results) => results.map((r) => r.status).join(','),
    },
  ],
  { tools: [payDef, transferDef] },
)

/** Every attribute value of every span, as one string: what a trace backend would hold. */
const allAttributes = (otel: ReturnType<typeof recordTelemetry>) => JSON.stringify(otel.spans().map((span) => [span.attributes, span.status, span.events, span.links]))

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c'
const CALLER_SPAN = 'b7ad6b7169203331'

describe('OpenTelemetry traces', () => {
  it('a turn with a server tool: request → run → model calls and the tool call, in the caller’s trace (traceparent)', async () => {
    const otel = recordTelemetry()
    const server = await startServer({ model, tools: [weatherTool], telemetry: otel.telemetry({ instanceId: 'A' }) })
    const turn = await server.send('weather in Paris', undefined, { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` })
    expect(turn.text).toContain('18')

    await vi.waitFor(() => expect(otel.spans().map((span) => span.name).sort()).toEqual(['POST message', 'chat scripted', 'chat scripted', 'execute_tool get_weather', 'invoke_agent']))
    const request = otel.span('POST message')
    const run = otel.span('invoke_agent')
    const tool = otel.span('execute_tool get_weather')
    const calls = otel.spans().filter((span) => span.name === 'chat scripted')

    for (const span of otel.spans()) expect(span.spanContext().traceId).toBe(TRACE_ID)
    expect(request.kind).toBe(SpanKind.SERVER)
    expect(parentOf(request)).toBe(CALLER_SPAN)
    expect(request.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200, 'toolgate.request.kind': 'message' })
    expect(parentOf(run)).toBe(request.spanContext().spanId)
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': turn.threadId,
      'toolgate.thread.id': turn.threadId,
      'toolgate.run.kind': 'message',
      'toolgate.run.outcome': 'success',
      'toolgate.store': 'memory',
      'toolgate.instance.id': 'A',
      'gen_ai.request.model': 'scripted',
    })
    for (const call of calls) {
      expect(parentOf(call)).toBe(run.spanContext().spanId)
      expect(call.kind).toBe(SpanKind.CLIENT)
      expect(call.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'scripted', 'gen_ai.usage.input_tokens': expect.any(Number), 'gen_ai.usage.output_tokens': expect.any(Number) })
    }
    expect(calls.map((call) => call.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool_calls'], ['stop']])
    expect(parentOf(tool)).toBe(run.spanContext().spanId)
    const toolCallId = turn.results[0]!.toolCallId
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': toolCallId, 'toolgate.tool.outcome': 'success' })
    // Content is not captured by default: names and ids only.
    for (const span of otel.spans()) {
      expect(Object.keys(span.attributes).filter((key) => /arguments|result|messages/.test(key))).toEqual([])
    }

    expect(await otel.metric('toolgate.runs')).toEqual([{ attributes: { 'toolgate.run.outcome': 'success' }, value: 1 }])
    expect(await otel.metric('toolgate.tool.calls')).toEqual([{ attributes: { 'gen_ai.tool.name': 'get_weather', 'toolgate.tool.outcome': 'success' }, value: 1 }])
    const tokens = await otel.metric('gen_ai.client.token.usage')
    expect(tokens.map((point) => point.attributes['gen_ai.token.type']).sort()).toEqual(['input', 'output'])
    expect(tokens.every((point) => typeof point.value === 'object' && point.value.count === 2 && point.value.sum > 0)).toBe(true)
    const firstChunk = await otel.metric('gen_ai.client.operation.time_to_first_chunk')
    expect(firstChunk).toEqual([{ attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'scripted' }, value: { count: 2, sum: expect.any(Number) } }])
  })

  it('records arguments, outputs and messages only when asked', async () => {
    const otel = recordTelemetry()
    const server = await startServer({ model, tools: [weatherTool], telemetry: otel.telemetry({ recordInputs: true, recordOutputs: true }) })
    await server.send('weather in Oslo')
    await vi.waitFor(() => expect(otel.spans()).toHaveLength(5))
    const tool = otel.span('execute_tool get_weather')
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({ city: 'Oslo' })
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.result']))).toEqual({ city: 'Oslo', tempC: 4 })
    const [first, second] = otel.spans().filter((span) => span.name === 'chat scripted')
    expect(String(first!.attributes['gen_ai.input.messages'])).toContain('weather in Oslo')
    expect(JSON.parse(String(first!.attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', id: expect.any(String), name: 'get_weather', arguments: '{"city":"Oslo"}' }], finish_reason: 'tool_calls' },
    ])
    expect(String(second!.attributes['gen_ai.output.messages'])).toContain('tempC')
  })

  it('a denied call: the wait ends with the denial, the resumed run links to the paused one, and no tool runs', async () => {
    const otel = recordTelemetry()
    const ran: unknown[] = []
    const server = await startServer({ model, tools: [transferDef.server((input) => (ran.push(input), { receipt: 'r' }))], telemetry: otel.telemetry() })
    const paused = await server.send('send 500 to Bob')
    const [interrupt] = paused.interrupts
    const resumed = await server.resume(paused.threadId, [{ interruptId: interrupt!.id, approved: false, reason: 'not today' }])
    expect(resumed.text).toBe('transfer: denied')
    expect(ran).toEqual([])

    await vi.waitFor(() => expect(otel.spans().filter((span) => span.name === 'invoke_agent')).toHaveLength(2))
    const [pausedRun, resumedRun] = otel.spans().filter((span) => span.name === 'invoke_agent').sort((a, b) => millis(a.startTime) - millis(b.startTime))
    const wait = otel.span('wait_for_approval transfer_money')
    expect(pausedRun!.attributes['toolgate.run.outcome']).toBe('interrupt')
    expect(parentOf(wait)).toBe(pausedRun!.spanContext().spanId)
    expect(wait.attributes).toMatchObject({ 'toolgate.interrupt.id': interrupt!.id, 'toolgate.interrupt.reason': 'tool_approval', 'toolgate.interrupt.decision': 'denied', 'gen_ai.tool.name': 'transfer_money', 'gen_ai.tool.call.id': interrupt!.toolCallId })
    expect(wait.links.map((link) => link.context.spanId)).toEqual([otel.span('POST resume').spanContext().spanId])
    expect(resumedRun!.attributes).toMatchObject({ 'toolgate.run.kind': 'resume', 'toolgate.run.outcome': 'success' })
    expect(resumedRun!.links).toEqual([{ context: expect.objectContaining({ traceId: pausedRun!.spanContext().traceId, spanId: pausedRun!.spanContext().spanId }), attributes: { 'toolgate.link.type': 'resumes' } }])
    expect(otel.spans().some((span) => span.name.startsWith('execute_tool'))).toBe(false)
    expect(await otel.metric('toolgate.tool.calls')).toEqual([{ attributes: { 'gen_ai.tool.name': 'transfer_money', 'toolgate.tool.outcome': 'denied' }, value: 1 }])
    expect(await otel.metric('toolgate.interrupt.wait.duration')).toEqual([
      { attributes: { 'toolgate.interrupt.reason': 'tool_approval', 'toolgate.interrupt.decision': 'denied' }, value: { count: 1, sum: expect.any(Number) } },
    ])
  })

  it('a browser tool: the wait for the browser ends with its output; an edited approval says so', async () => {
    const otel = recordTelemetry()
    const server = await startServer({ model, tools: [locationDef, transferDef.server(() => ({ receipt: 'r' }))], telemetry: otel.telemetry() })
    const asked = await server.send('where am i')
    const resumed = await server.resume(asked.threadId, [{ interruptId: asked.interrupts[0]!.id, output: { city: 'Oslo' } }])
    expect(resumed.text).toBe('location: {"city":"Oslo"}')
    const paused = await server.send('send 500 to Bob', asked.threadId)
    await server.resume(asked.threadId, [{ interruptId: paused.interrupts[0]!.id, approved: true, editedArgs: { to: 'Bob', amount: 400 } }])

    await vi.waitFor(() => expect(otel.spans().filter((span) => span.name.startsWith('wait_for'))).toHaveLength(2))
    expect(otel.span('wait_for_client_tool get_location').attributes).toMatchObject({ 'toolgate.interrupt.reason': 'client_tool', 'toolgate.interrupt.decision': 'output' })
    expect(otel.span('wait_for_approval transfer_money').attributes).toMatchObject({ 'toolgate.interrupt.decision': 'edited' })
  })

  describe('expiry', () => {
    afterEach(() => vi.useRealTimers())

    it('an expired interrupt: the late answer is refused (410) and the wait ends at its expiry, expired, when a new message settles it', async () => {
      vi.useFakeTimers({ toFake: ['Date'] })
      vi.setSystemTime(new Date('2026-11-23T10:00:00.000Z'))
      const otel = recordTelemetry()
      const server = await startServer({ model, tools: [transferDef.server(() => ({ receipt: 'r' }))], limits: { interruptTtlMs: 60_000 }, telemetry: otel.telemetry() })
      const paused = await server.send('send 500 to Bob')
      const [interrupt] = paused.interrupts

      vi.setSystemTime(new Date('2026-11-23T10:05:00.000Z'))
      const late = await server.post({ threadId: paused.threadId, resume: [{ interruptId: interrupt!.id, approved: true }] })
      expect((await errorOf(late)).status).toBe(410)
      await vi.waitFor(() => expect(otel.spans().map((span) => span.name)).toContain('POST resume'))
      expect(otel.span('POST resume').attributes).toMatchObject({ 'http.response.status_code': 410, 'toolgate.error.code': 'INTERRUPT_EXPIRED', 'error.type': 'INTERRUPT_EXPIRED' })
      expect(otel.spans().some((span) => span.name.startsWith('wait_for'))).toBe(false)

      vi.setSystemTime(new Date('2026-11-23T11:00:00.000Z'))
      await server.send('weather in Rome', paused.threadId)
      await vi.waitFor(() => expect(otel.spans().map((span) => span.name)).toContain('wait_for_approval transfer_money'))
      const wait = otel.span('wait_for_approval transfer_money')
      expect(wait.attributes).toMatchObject({ 'toolgate.interrupt.decision': 'expired', 'toolgate.interrupt.expires_at': '2026-11-23T10:01:00.000Z' })
      expect(millis(wait.startTime)).toBe(Date.parse('2026-11-23T10:00:00.000Z'))
      expect(millis(wait.endTime)).toBe(Date.parse('2026-11-23T10:01:00.000Z'))
      expect(await otel.metric('toolgate.interrupt.wait.duration')).toEqual([
        { attributes: { 'toolgate.interrupt.reason': 'tool_approval', 'toolgate.interrupt.decision': 'expired' }, value: { count: 1, sum: 60 } },
      ])
    })
  })

  it('a failing tool: the span says it failed in the words the model got, and no attribute or status holds the exception’s secret', async () => {
    const otel = recordTelemetry()
    const lookup = toolDefinition({ name: 'lookup', description: 'Looks a key up', inputSchema: v.object({ key: v.string() }) }).server(() => {
      throw new Error('connect postgres://admin:hunter2@db.internal failed')
    })
    const reported: unknown[] = []
    const server = await startServer({
      model,
      tools: [lookup],
      telemetry: otel.telemetry({ recordInputs: true, recordOutputs: true }),
      onError: (error) => reported.push(error),
      toolErrorMessage: () => 'The lookup service is unavailable',
    })
    const turn = await server.send('lookup')
    expect(turn.text).toBe('lookup: The lookup service is unavailable')
    expect(String(reported[0])).toContain('hunter2') // onError keeps it

    await vi.waitFor(() => expect(otel.spans().map((span) => span.name)).toContain('execute_tool lookup'))
    const tool = otel.span('execute_tool lookup')
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'The lookup service is unavailable' })
    expect(tool.attributes).toMatchObject({ 'toolgate.tool.outcome': 'error', 'error.type': 'tool_error' })
    await vi.waitFor(() => expect(otel.spans()).toHaveLength(5))
    for (const span of otel.spans()) expect(JSON.stringify([span.attributes, span.status, span.events])).not.toMatch(/hunter2|postgres:\/\//)
  })

  it('a model error: the chat and run spans fail with the public message and code, never the provider’s text', async () => {
    const otel = recordTelemetry()
    const failing: ChatModel = {
      name: 'flaky',
      // eslint-disable-next-line require-yield
      async *stream() {
        throw new Error('401 from api.example.com: key sk-live-SECRET is revoked')
      },
    }
    const server = await startServer({ model: failing, telemetry: otel.telemetry(), onError: () => {} })
    const turn = await server.send('hello')
    expect(turn.types.at(-1)).toBe('RUN_ERROR')

    await vi.waitFor(() => expect(otel.spans()).toHaveLength(3))
    const call = otel.span('chat flaky')
    const run = otel.span('invoke_agent')
    expect(call.status).toEqual({ code: SpanStatusCode.ERROR, message: 'The model failed; see the server log' })
    expect(call.attributes['error.type']).toBe('MODEL_ERROR')
    expect(run.status).toEqual({ code: SpanStatusCode.ERROR, message: 'The model failed; see the server log' })
    expect(run.attributes).toMatchObject({ 'toolgate.run.outcome': 'error', 'toolgate.error.code': 'MODEL_ERROR' })
    for (const span of otel.spans()) expect(JSON.stringify([span.attributes, span.status, span.events])).not.toMatch(/SECRET|api\.example/)
    expect(await otel.metric('toolgate.runs')).toEqual([{ attributes: { 'toolgate.run.outcome': 'error' }, value: 1 }])
  })

  it('a call run under a grant: the approval’s wait names the grant it made, the later call’s span the grant it ran under and who gave it', async () => {
    const otel = recordTelemetry()
    const ran: unknown[] = []
    const server = await startServer({
      model: approvals,
      tools: [transferDef.server((input) => (ran.push(input), { receipt: 'r' }))],
      identify,
      telemetry: otel.telemetry({ recordInputs: true }),
    })
    const paused = await server.send('send 500 to Bob', undefined, as('alice'))
    const approved = await server.resume(paused.threadId, [{ interruptId: paused.interrupts[0]!.id, approved: true, grant: {} }], as('alice'))
    expect(approved.text).toBe('transfer: success')
    const covered = await server.send('send 300 to Ann', paused.threadId, as('alice'))
    expect(covered.interrupts).toEqual([])
    expect(covered.text).toBe('transfer: success')
    const grantId = covered.results[0]!.metadata.decision!.grantId!
    expect(grantId).toMatch(/^grant_/)

    await vi.waitFor(() => expect(otel.spans().filter((span) => span.name === 'execute_tool transfer_money')).toHaveLength(2))
    expect(otel.span('wait_for_approval transfer_money').attributes).toMatchObject({
      'toolgate.interrupt.decision': 'approved',
      'toolgate.decision.by.id': 'alice',
      'toolgate.decision.by.name': 'Alice Liddell', // recordInputs: the display name too
      'toolgate.decision.channel': 'chat',
      'toolgate.grant.id': grantId,
    })
    const [first, second] = otel.spans().filter((span) => span.name === 'execute_tool transfer_money').sort((a, b) => millis(a.startTime) - millis(b.startTime))
    expect(first!.attributes).toMatchObject({ 'toolgate.decision': 'approved', 'toolgate.decision.by.id': 'alice' })
    expect(first!.attributes['toolgate.grant.id']).toBeUndefined()
    expect(second!.attributes).toMatchObject({
      'toolgate.decision': 'granted',
      'toolgate.grant.id': grantId,
      'toolgate.decision.by.id': 'alice',
      'toolgate.decision.channel': 'api',
      'gen_ai.tool.call.id': covered.results[0]!.toolCallId,
    })
    expect(otel.spans().filter((span) => span.name.startsWith('wait_for'))).toHaveLength(1)
  })

  it('two approvals required: the first reviewer’s approval leaves the wait open; the second ends it, naming both', async () => {
    const otel = recordTelemetry()
    const server = await startServer({ model: approvals, tools: [payTool], identify, telemetry: otel.telemetry() })
    const paused = await server.send('pay INV-9 5000', undefined, as('alice'))
    const [interrupt] = paused.interrupts
    const half = await server.resume(paused.threadId, [{ interruptId: interrupt!.id, approved: true }], as('bob'))
    expect(half.status).toBe(202)
    await vi.waitFor(() => expect(otel.spans().filter((span) => span.name === 'POST resume')).toHaveLength(1))
    expect(otel.spans().filter((span) => span.name.startsWith('wait_for'))).toEqual([])

    const done = await server.resume(paused.threadId, [{ interruptId: interrupt!.id, approved: true }], as('carol'))
    expect(done.text).toBe('pay: success')
    await vi.waitFor(() => expect(otel.spans().map((span) => span.name)).toContain('execute_tool pay_invoice'))
    expect(otel.span('wait_for_approval pay_invoice').attributes).toMatchObject({
      'toolgate.interrupt.decision': 'approved',
      'toolgate.decision.by.id': 'carol',
      'toolgate.decision.approvers': ['bob', 'carol'],
    })
    // Names are personal data: ids only unless inputs are recorded.
    expect(allAttributes(otel)).not.toMatch(/Bob Marley|Carol King|Alice Liddell/)
  })

  it('a stop while a call waits: the wait ends cancelled, by whoever stopped', async () => {
    const otel = recordTelemetry()
    const server = await startServer({ model: approvals, tools: [transferDef.server(() => ({ receipt: 'r' }))], identify, telemetry: otel.telemetry() })
    const paused = await server.send('send 500 to Bob', undefined, as('alice'))
    const stopped = await server.post({ threadId: paused.threadId, stop: true }, as('alice'))
    expect(await stopped.json()).toEqual({ threadId: paused.threadId, stopped: false, cancelled: [paused.interrupts[0]!.id] })
    await vi.waitFor(() => expect(otel.spans().map((span) => span.name)).toContain('wait_for_approval transfer_money'))
    expect(otel.span('wait_for_approval transfer_money').attributes).toMatchObject({ 'toolgate.interrupt.decision': 'cancelled', 'toolgate.decision.by.id': 'alice' })
    expect(otel.span('wait_for_approval transfer_money').links.map((link) => link.context.spanId)).toEqual([otel.span('POST stop').spanContext().spanId])
    expect(await otel.metric('toolgate.tool.calls')).toEqual([{ attributes: { 'gen_ai.tool.name': 'transfer_money', 'toolgate.tool.outcome': 'cancelled' }, value: 1 }])
  })

  it('an AG-UI resume that answers part of a step: a partial_resume run that pauses again, linked to the run that asked', async () => {
    const otel = recordTelemetry()
    const server = await startServer({ model: approvals, tools: [transferDef.server(() => ({ receipt: 'r' }))], telemetry: otel.telemetry() })
    const paused = await server.send('two transfers')
    const [ann, ben] = paused.interrupts
    const aguiResume = (runId: string, interruptId: string) =>
      server.post({ threadId: paused.threadId, runId, messages: [], tools: [], context: [], state: {}, forwardedProps: {}, resume: [{ interruptId, status: 'resolved', payload: { approved: true } }] })
    const partial = await readTurn(await aguiResume('agui-1', ann!.id))
    expect(partial.finished?.outcome).toEqual({ type: 'interrupt', interrupts: [expect.objectContaining({ id: ben!.id })] })
    expect(partial.interrupts.map((interrupt) => interrupt.id)).toEqual([ben!.id])

    await vi.waitFor(() => expect(otel.spans().filter((span) => span.name === 'invoke_agent')).toHaveLength(2))
    const [asking, again] = otel.spans().filter((span) => span.name === 'invoke_agent').sort((a, b) => millis(a.startTime) - millis(b.startTime))
    const request = otel.spans().filter((span) => span.name === 'POST resume')[0]!
    expect(again!.attributes).toMatchObject({ 'toolgate.run.kind': 'partial_resume', 'toolgate.run.outcome': 'interrupt', 'toolgate.interrupt.open_count': 1, 'toolgate.run.id': partial.finished!.runId })
    expect(parentOf(again!)).toBe(request.spanContext().spanId)
    expect(again!.links.map((link) => [link.context.spanId, link.attributes])).toEqual([[asking!.spanContext().spanId, { 'toolgate.link.type': 'resumes' }]])
    const waits = otel.spans().filter((span) => span.name === 'wait_for_approval transfer_money')
    expect(waits.map((span) => span.attributes['toolgate.interrupt.id'])).toEqual([ann!.id])

    const done = await readTurn(await aguiResume('agui-2', ben!.id))
    expect(done.text).toBe('success,success')
    await vi.waitFor(() => expect(otel.spans().filter((span) => span.name === 'invoke_agent')).toHaveLength(3))
    const resumed = otel.spans().find((span) => span.name === 'invoke_agent' && span.attributes['toolgate.run.kind'] === 'resume')!
    expect(resumed.attributes['toolgate.run.outcome']).toBe('success')
    expect(otel.spans().filter((span) => span.name === 'wait_for_approval transfer_money')).toHaveLength(2)
    expect(otel.spans().filter((span) => span.name === 'execute_tool transfer_money')).toHaveLength(2)
  })

  it('an MCP tool call carries the trace in _meta: the MCP server’s span is a child of the chat’s execute_tool span', async () => {
    const otel = recordTelemetry()
    const mcp = new ToolgateMcpServer({ name: 'remote', version: '1.0.0' })
    await registerMcpTools(mcp, [weatherTool], { telemetry: otel.telemetry({ instanceId: 'mcp' }) })
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
    const client = new Client({ name: 'toolgate', version: '1.0.0' })
    // The 1.x client (what mcpToolDefinitions takes) and the 2.x server share the Transport contract.
    await Promise.all([mcp.connect(serverTransport as never), client.connect(clientTransport)])
    const imported = await mcpToolDefinitions(client)

    const server = await startServer({ model, tools: imported, telemetry: otel.telemetry({ instanceId: 'chat' }) })
    const turn = await server.send('weather in Lima')
    expect(turn.text).toContain('19')
    await vi.waitFor(() => expect(otel.spans().filter((span) => span.name === 'execute_tool get_weather')).toHaveLength(2))
    const [served] = otel.spans().filter((span) => span.name === 'execute_tool get_weather' && span.kind === SpanKind.SERVER)
    const [called] = otel.spans().filter((span) => span.name === 'execute_tool get_weather' && span.kind === SpanKind.INTERNAL)
    expect(served!.spanContext().traceId).toBe(called!.spanContext().traceId)
    expect(parentOf(served!)).toBe(called!.spanContext().spanId)
    expect(served!.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'toolgate.instance.id': 'mcp', 'toolgate.tool.outcome': 'success' })
    await client.close()
  })
})

describe('without telemetry', () => {
  it('runs turns and approvals with no OpenTelemetry module loadable: nothing imports it', async () => {
    const helpers = fileURLToPath(new URL('./helpers/', import.meta.url))
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@toolgate/source', '--import', 'tsx', '--import', `${helpers}blockOpenTelemetry.mjs`, `${helpers}withoutOpenTelemetry.ts`],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)) },
    )
    expect(JSON.parse(stdout)).toEqual({
      weather: 'weather: success',
      resumed: 'transfer: success',
      // The same process cannot load the telemetry entry: the block is real.
      telemetry: 'Cannot find package @opentelemetry/api (blocked)',
    })
  })
})

describe('an approval answered on another instance (shared Redis)', () => {
  let redis: RedisServer
  let client: ReturnType<typeof createClient>
  beforeAll(async () => {
    redis = await startRedis()
    client = createClient({ url: redis.url })
    await client.connect()
  })
  afterAll(async () => {
    await client.quit()
    await redis.stop()
  })

  it('the wait span ends on the answering instance from the stored start, in the asking run’s trace, and the resumed run links to the paused one', async () => {
    const otel = recordTelemetry()
    const ran: unknown[] = []
    const tools = [transferDef.server((input) => (ran.push(input), { receipt: 'r-1' }))]
    const store = () => redisStore({ client, prefix: 'otel:' })
    const a = await startServer({ model, tools, store: store(), telemetry: otel.telemetry({ instanceId: 'A' }) })
    const b = await startServer({ model, tools, store: store(), telemetry: otel.telemetry({ instanceId: 'B' }) })

    const paused = await a.send('send 250 to Bob')
    const [interrupt] = paused.interrupts
    const stored = (await store().head(paused.threadId))!.step!.interrupts[0] as StoredInterrupt
    await vi.waitFor(() => expect(otel.spans().map((span) => span.name)).toContain('invoke_agent'))
    const pausedRun = otel.span('invoke_agent')
    expect(stored.traceparent).toBe(`00-${pausedRun.spanContext().traceId}-${pausedRun.spanContext().spanId}-01`)
    expect(stored.askedAt).toBeGreaterThanOrEqual(millis(pausedRun.startTime) - 1)

    const resumed = await b.resume(paused.threadId, [{ interruptId: interrupt!.id, approved: true }])
    expect(resumed.text).toBe('transfer: success')
    expect(ran).toEqual([{ to: 'Bob', amount: 250 }])

    await vi.waitFor(() => expect(otel.spans().filter((span) => span.name === 'invoke_agent')).toHaveLength(2))
    const resumedRun = otel.spans().find((span) => span.name === 'invoke_agent' && span !== pausedRun)!
    const wait = otel.span('wait_for_approval transfer_money')
    const answer = otel.span('POST resume')
    expect(wait.spanContext().traceId).toBe(pausedRun.spanContext().traceId)
    expect(parentOf(wait)).toBe(pausedRun.spanContext().spanId)
    expect(millis(wait.startTime)).toBe(stored.askedAt)
    expect(millis(wait.endTime)).toBeGreaterThanOrEqual(stored.askedAt!)
    expect(wait.attributes).toMatchObject({ 'toolgate.interrupt.decision': 'approved', 'toolgate.instance.id': 'B', 'toolgate.thread.id': paused.threadId })
    expect(wait.links.map((link) => link.context.spanId)).toEqual([answer.spanContext().spanId])
    expect(pausedRun.attributes).toMatchObject({ 'toolgate.instance.id': 'A', 'toolgate.run.outcome': 'interrupt', 'toolgate.store': 'redis' })
    expect(resumedRun.attributes).toMatchObject({ 'toolgate.instance.id': 'B', 'toolgate.run.kind': 'resume', 'toolgate.run.outcome': 'success' })
    expect(parentOf(resumedRun)).toBe(answer.spanContext().spanId)
    expect(resumedRun.links.map((link) => [link.context.spanId, link.attributes])).toEqual([[pausedRun.spanContext().spanId, { 'toolgate.link.type': 'resumes' }]])
    const tool = otel.span('execute_tool transfer_money')
    expect(parentOf(tool)).toBe(resumedRun.spanContext().spanId)
    // Both runs' logs are complete before the client closes.
    for (const run of [pausedRun, resumedRun]) {
      await vi.waitFor(async () => expect((await store().events!.read(String(run.attributes['toolgate.run.id']), 0))?.ended).toBe(true))
    }
  })
  it('an approval a reviewer gives on another instance: the wait span says who decided (by id) and the tool’s span runs under it', async () => {
    const otel = recordTelemetry()
    const store = () => redisStore({ client, prefix: 'otel-who:' })
    const a = await startServer({ model: approvals, tools: [payTool], store: store(), identify, telemetry: otel.telemetry({ instanceId: 'A' }) })
    const b = await startServer({ model: approvals, tools: [payTool], store: store(), identify, telemetry: otel.telemetry({ instanceId: 'B' }) })

    const paused = await a.send('pay INV-7 500', undefined, as('alice'))
    const [interrupt] = paused.interrupts
    expect(interrupt!.reviewers).toEqual({ roles: ['finance'], required: 1 })
    const resumed = await b.resume(paused.threadId, [{ interruptId: interrupt!.id, approved: true, reason: 'budgeted' }], as('bob'))
    expect(resumed.text).toBe('pay: success')

    await vi.waitFor(() => expect(otel.spans().map((span) => span.name)).toContain('execute_tool pay_invoice'))
    const pausedRun = otel.spans().find((span) => span.name === 'invoke_agent' && span.attributes['toolgate.run.kind'] === 'message')!
    const wait = otel.span('wait_for_approval pay_invoice')
    expect(parentOf(wait)).toBe(pausedRun.spanContext().spanId)
    expect(pausedRun.attributes['toolgate.instance.id']).toBe('A')
    expect(wait.attributes).toMatchObject({
      'toolgate.instance.id': 'B',
      'toolgate.interrupt.decision': 'approved',
      'toolgate.decision.by.id': 'bob',
      'toolgate.decision.channel': 'chat',
    })
    expect(wait.attributes['toolgate.decision.by.name']).toBeUndefined()
    expect(otel.span('execute_tool pay_invoice').attributes).toMatchObject({ 'toolgate.decision': 'approved', 'toolgate.decision.by.id': 'bob' })
    // Neither the display names nor the reviewer's reason reach a span unless the app records inputs.
    expect(allAttributes(otel)).not.toMatch(/Bob Marley|Alice Liddell|budgeted/)
  })
})
