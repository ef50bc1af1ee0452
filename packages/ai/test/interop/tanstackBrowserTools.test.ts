import { afterEach, describe, expect, it, vi } from 'vitest'
import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { toolDefinition as tanStackTool, type UIMessage } from '@tanstack/ai'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { locationDef, transferDef } from '../server/fixtures.ts'
import { closeAll, startServer, type TestServer } from '../server/helpers/server.ts'

afterEach(closeAll)

// A Toolgate browser tool (a bare definition on the server) run by TanStack AI's own ChatClient as one
// of its client tools, over its stock SSE connection at `?client=tanstack`, against a real server.

let transfers: { to: string; amount: number }[] = []
let located = 0

/** What the page's browser tool does, counted. */
function locate() {
  located++
  return { city: 'Oslo' }
}

/** The page's client tool: TanStack runs it when the server hands the call over. */
const getLocation = tanStackTool({ name: 'get_location', description: "The user's location, from the browser" }).client(locate)

async function setUp(): Promise<TestServer> {
  transfers = []
  located = 0
  const model = scriptedModel([
    {
      when: 'pay and locate',
      call: () => [
        { tool: 'transfer_money', input: { to: 'Bob', amount: 500 } },
        { tool: 'get_location' },
      ],
      then: (results) => results.map((r) => `${r.tool}: ${r.status} ${r.ok ? JSON.stringify(r.output) : r.content}`).join('; '),
    },
    { when: 'where', call: () => ({ tool: 'get_location' }), then: ([r]) => (r.ok ? `You are in ${JSON.stringify(r.output)}.` : `No location: ${r.content}`) },
  ])
  return startServer({ model, tools: [transferDef.server((input) => (transfers.push(input), { receipt: `r-${input.amount}` })), locationDef] })
}

const newThread = () => `t-${Math.random().toString(36).slice(2)}`
const connection = (server: TestServer) => fetchServerSentEvents(`${server.url}?client=tanstack`)

function textOf(messages: readonly UIMessage[]): string {
  return messages.flatMap((m) => (m.role !== 'assistant' ? [] : m.parts.flatMap((p) => (p.type === 'text' ? [p.content] : [])))).join('')
}

function toolCallPart(messages: readonly UIMessage[], name: string) {
  for (const message of messages) for (const part of message.parts) if (part.type === 'tool-call' && part.name === name) return part
  return undefined
}

describe("a Toolgate browser tool in TanStack AI's ChatClient", () => {
  it('runs once in the page, and the turn goes on with its output', async () => {
    const server = await setUp()
    const client = new ChatClient({ connection: connection(server), threadId: newThread(), tools: [getLocation] })
    await client.sendMessage('where am I')
    await vi.waitFor(() => expect(textOf(client.getMessages())).toBe('You are in {"city":"Oslo"}.'))
    expect(located).toBe(1)
    expect(toolCallPart(client.getMessages(), 'get_location')).toMatchObject({ state: 'complete' })
  })

  it('beside an approval: the approval is asked first; once approved the page runs the tool once and the turn goes on', async () => {
    const server = await setUp()
    const client = new ChatClient({ connection: connection(server), threadId: newThread(), tools: [getLocation] })
    await client.sendMessage('pay and locate')
    await vi.waitFor(() => expect(toolCallPart(client.getMessages(), 'transfer_money')).toMatchObject({ state: 'approval-requested' }))
    expect(located).toBe(0)
    await client.addToolApprovalResponse({ id: toolCallPart(client.getMessages(), 'transfer_money')!.approval!.id, approved: true })
    await vi.waitFor(() => expect(textOf(client.getMessages())).toBe('transfer_money: success {"receipt":"r-500"}; get_location: success {"city":"Oslo"}'))
    expect(transfers).toEqual([{ to: 'Bob', amount: 500 }])
    expect(located).toBe(1)
  })

  it('beside an approval, across a reload: the reloaded page asks again, and approving runs the tool once and goes on', async () => {
    const server = await setUp()
    const threadId = newThread()
    const client = new ChatClient({ connection: connection(server), threadId, tools: [getLocation] })
    await client.sendMessage('pay and locate')
    await vi.waitFor(() => expect(toolCallPart(client.getMessages(), 'transfer_money')).toMatchObject({ state: 'approval-requested' }))

    const reloaded = new ChatClient({ connection: connection(server), threadId, persistence: true, tools: [getLocation] })
    reloaded.attach()
    await vi.waitFor(() => expect(toolCallPart(reloaded.getMessages(), 'transfer_money')).toMatchObject({ state: 'approval-requested' }))
    expect(toolCallPart(reloaded.getMessages(), 'get_location')).toMatchObject({ state: 'input-complete' })
    await reloaded.addToolApprovalResponse({ id: toolCallPart(reloaded.getMessages(), 'transfer_money')!.approval!.id, approved: true })
    await vi.waitFor(() => expect(textOf(reloaded.getMessages())).toBe('transfer_money: success {"receipt":"r-500"}; get_location: success {"city":"Oslo"}'))
    expect(transfers).toEqual([{ to: 'Bob', amount: 500 }])
    expect(located).toBe(1)
  })

  it('held by the server while an approval waits (another tab answered it): a reload shows its output, the page does not run it, and approving continues the run', async () => {
    const server = await setUp()
    const { threadId } = await server.send('pay and locate')
    const waiting = (await server.get(threadId)).interrupts
    const call = waiting.find((interrupt) => interrupt.toolName === 'get_location')!
    // Toolgate's own client (or the AI SDK page) on the same thread gives the browser tool's output; the approval still waits.
    expect((await server.post({ threadId, resume: [{ interruptId: call.id, output: { city: 'Lima' } }] })).status).toBe(202)

    const reloaded = new ChatClient({ connection: connection(server), threadId, persistence: true, tools: [getLocation] })
    reloaded.attach()
    await vi.waitFor(() => expect(toolCallPart(reloaded.getMessages(), 'transfer_money')).toMatchObject({ state: 'approval-requested' }))
    expect(toolCallPart(reloaded.getMessages(), 'get_location')).toMatchObject({ state: 'complete', output: { city: 'Lima' } })
    expect(reloaded.getMessages().at(-1)!.parts).toContainEqual({ type: 'tool-result', toolCallId: call.toolCallId, content: '{"city":"Lima"}', state: 'complete' })
    expect(reloaded.getInterrupts().map((interrupt) => interrupt.id)).toEqual(waiting.filter((interrupt) => interrupt !== call).map((interrupt) => interrupt.id))
    expect(located).toBe(0)
    expect(transfers).toEqual([])
    // TanStack resumes with its own record of the held output beside the decision: a restatement, not a second answer.
    await reloaded.addToolApprovalResponse({ id: toolCallPart(reloaded.getMessages(), 'transfer_money')!.approval!.id, approved: true })
    await vi.waitFor(() => expect(textOf(reloaded.getMessages())).toBe('transfer_money: success {"receipt":"r-500"}; get_location: success {"city":"Lima"}'))
    expect(transfers).toEqual([{ to: 'Bob', amount: 500 }])
    expect(located).toBe(0)
  })

  it('waiting across a reload (approved in another tab): TanStack does not run it on hydration; the page answers it with addToolResult, once', async () => {
    const server = await setUp()
    const { threadId } = await server.send('pay and locate')
    const approval = (await server.get(threadId)).interrupts.find((interrupt) => interrupt.toolName === 'transfer_money')!
    expect((await server.post({ threadId, resume: [{ interruptId: approval.id, approved: true }] })).status).toBe(202)

    const reloaded = new ChatClient({ connection: connection(server), threadId, persistence: true, tools: [getLocation] })
    reloaded.attach()
    await vi.waitFor(() => expect(reloaded.getInterrupts()).toEqual([expect.objectContaining({ reason: 'client_tool_input', canResolve: true })]))
    expect(toolCallPart(reloaded.getMessages(), 'transfer_money')).toMatchObject({ state: 'approval-responded', approval: { approved: true } })
    expect(located).toBe(0)
    const call = toolCallPart(reloaded.getMessages(), 'get_location')!
    await reloaded.addToolResult({ tool: 'get_location', toolCallId: call.id, output: locate() })
    await vi.waitFor(() => expect(textOf(reloaded.getMessages())).toBe('transfer_money: success {"receipt":"r-500"}; get_location: success {"city":"Oslo"}'))
    expect(transfers).toEqual([{ to: 'Bob', amount: 500 }])
    expect(located).toBe(1)
  })

  it("a client tool that throws: the call fails with the page's error, which the model reads", async () => {
    const server = await setUp()
    // Asynchronous, as a browser API is: TanStack 0.33 drops the failure of a tool that throws synchronously, before it took the interrupt in.
    const failing = tanStackTool({ name: 'get_location', description: "The user's location, from the browser" }).client(async () => {
      await Promise.resolve()
      throw new Error('location permission denied')
    })
    const client = new ChatClient({ connection: connection(server), threadId: newThread(), tools: [failing] })
    await client.sendMessage('where am I')
    await vi.waitFor(() => expect(textOf(client.getMessages())).toBe('No location: Tool "get_location" failed in the browser: location permission denied'))
  })
})
