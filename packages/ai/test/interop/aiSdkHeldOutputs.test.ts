import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import * as ai6 from 'ai'
import type { AbstractChat, ChatInit, UIMessage } from 'ai'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { locationDef, transferDef } from '../server/fixtures.ts'
import { MemoryChatState, SDKS, type Sdk } from './helpers/aiSdkChats.ts'
import { closeAll, startServer, type TestServer } from '../server/helpers/server.ts'

afterEach(closeAll)

// A step that asks an approval (a server tool) and hands a browser tool to the page. The page runs
// the browser tool and sends its output while the approval waits (`lastAssistantMessageIsCompleteWithToolCalls`
// skips server calls), so the server holds it. The AI SDK's own chat (AbstractChat + DefaultChatTransport,
// as `useChat` runs it), versions 6 and 7, against a real HTTP server: the page that gave the output,
// and a page reloaded from `GET ?format=ai-sdk`, both approve and the run goes on, the tool run once.

let sdk: Sdk = ai6
type Chat = AbstractChat<UIMessage>


const model = scriptedModel([
  {
    when: 'pay and locate',
    call: () => [
      { tool: 'transfer_money', input: { to: 'Bob', amount: 500 } },
      { tool: 'get_location', input: {} },
    ],
    then: (results) => results.map((r) => `${r.tool}: ${r.ok ? JSON.stringify(r.output) : r.status}`).join(', '),
  },
  { when: 'hello', reply: 'Hello there.' },
])

let transfers: { to: string; amount: number }[] = []
/** Each run of the browser tool, by whichever page ran it. */
let located: string[] = []

async function setUp(): Promise<TestServer> {
  transfers = []
  located = []
  return startServer({ model, tools: [transferDef.server((input) => (transfers.push(input), { receipt: `r-${input.amount}` })), locationDef] })
}

/** A page's chat: runs `get_location` in `onToolCall` (recording each run) and sends answers as `useChat` pages do. */
function pageChat(server: TestServer, init: Partial<ChatInit<UIMessage>> & { page: string }): Chat {
  const { page, ...rest } = init
  class MemoryChat extends sdk.AbstractChat<UIMessage> {
    constructor({ messages, ...options }: ChatInit<UIMessage>) {
      super({ ...options, state: new MemoryChatState(messages) })
    }
  }
  const chat: Chat = new MemoryChat({
    id: `held-${Math.random().toString(36).slice(2)}`,
    transport: new sdk.DefaultChatTransport({ api: server.url }),
    sendAutomaticallyWhen: (options) => sdk.lastAssistantMessageIsCompleteWithApprovalResponses(options) || sdk.lastAssistantMessageIsCompleteWithToolCalls(options),
    onToolCall: ({ toolCall }) => {
      if (toolCall.toolName !== 'get_location') return
      located.push(page)
      void chat.addToolOutput({ tool: 'get_location', toolCallId: toolCall.toolCallId, output: { city: 'Lima' } })
    },
    ...rest,
  })
  return chat
}

function partsOf(chat: Chat) {
  return chat.messages.at(-1)!.parts.flatMap((part) => ('toolCallId' in part ? [part as { type: string; state: string; output?: unknown; approval?: { id: string } }] : []))
}
const text = (chat: Chat) => chat.messages.at(-1)!.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')
const settled = (chat: Chat) => vi.waitFor(() => expect(chat.status).toMatch(/^(ready|error)$/))

async function reload(server: TestServer, id: string): Promise<UIMessage[]> {
  const response = await fetch(`${server.url}?threadId=${encodeURIComponent(id)}&format=ai-sdk`)
  expect(response.status).toBe(200)
  return ((await response.json()) as { messages: UIMessage[] }).messages
}

for (const [version, thisSdk] of SDKS) describe(`AI SDK ${version}: a browser tool's output the server holds while an approval waits`, () => {
  beforeEach(() => {
    sdk = thisSdk
  })

  it('the page that gave the output approves: its record of the output goes with the approval and is not refused; the run goes on, the tool ran once', async () => {
    const server = await setUp()
    const chat = pageChat(server, { page: 'first' })
    await chat.sendMessage({ text: 'pay and locate' })
    await settled(chat)
    expect(chat.error).toBeUndefined()
    expect(located).toEqual(['first'])
    // The page sent the output on its own (the approval waits): the server holds it.
    await vi.waitFor(async () => expect((await server.get(chat.id)).answers ?? []).toHaveLength(1))
    const snapshot = await server.get(chat.id)
    expect(snapshot.interrupts.map((interrupt) => interrupt.reason)).toEqual(['tool_approval'])
    const approval = partsOf(chat).find((part) => part.type === 'tool-transfer_money')!
    expect(approval.state).toBe('approval-requested')

    await chat.addToolApprovalResponse({ id: approval.approval!.id, approved: true })
    await vi.waitFor(() => expect(text(chat)).toBe('transfer_money: {"receipt":"r-500"}, get_location: {"city":"Lima"}'))
    await settled(chat)
    expect(chat.error).toBeUndefined()
    expect(transfers).toEqual([{ to: 'Bob', amount: 500 }])
    expect(located).toEqual(['first'])
    expect(partsOf(chat).map((part) => `${part.type}:${part.state}`)).toEqual(['tool-transfer_money:output-available', 'tool-get_location:output-available'])
    // The next turn's history agrees with the thread.
    await chat.sendMessage({ text: 'hello' })
    expect(chat.error).toBeUndefined()
    expect(text(chat)).toBe('Hello there.')
  })

  it('a different output for the call the server holds one for is refused (409, the part\'s path), and nothing runs', async () => {
    const server = await setUp()
    const chat = pageChat(server, { page: 'first' })
    await chat.sendMessage({ text: 'pay and locate' })
    await settled(chat)
    await vi.waitFor(async () => expect((await server.get(chat.id)).answers ?? []).toHaveLength(1))
    const messages = structuredClone(chat.messages) as any[]
    const at = messages[1].parts.findIndex((part: any) => part.type === 'tool-get_location')
    const approval = messages[1].parts.find((part: any) => part.type === 'tool-transfer_money')
    // A page's own record, without the server's `answered` mark, giving another output.
    messages[1].parts[at] = { ...messages[1].parts[at], providerExecuted: undefined, callProviderMetadata: { toolgate: { ...messages[1].parts[at].callProviderMetadata.toolgate, answered: undefined } }, output: { city: 'Oslo' } }
    messages[1].parts[messages[1].parts.indexOf(approval)] = { ...approval, state: 'approval-responded', approval: { id: approval.approval.id, approved: true } }
    const response = await server.post({ id: chat.id, messages, trigger: 'submit-message' })
    expect(response.status).toBe(409)
    expect(((await response.json()) as { error: unknown }).error).toEqual({ code: 'INTERRUPT_ALREADY_ANSWERED', message: expect.any(String), path: `messages[1].parts[${at}].toolCallId` })
    // The same message sent alone (`prepareSendMessagesRequest` for servers that keep the history): the path is under `message`.
    const alone = await server.post({ id: chat.id, message: messages[1], trigger: 'submit-message' })
    expect(alone.status).toBe(409)
    expect(((await alone.json()) as { error: { path: string } }).error.path).toBe(`message.parts[${at}].toolCallId`)
    expect(transfers).toEqual([])
    expect((await server.get(chat.id)).answers).toEqual([expect.objectContaining({ output: { city: 'Lima' } })])
  })

  it('a page reloaded while the approval waits shows the output the server holds (the call done, not run again); approving continues the run, the tool ran once', async () => {
    const server = await setUp()
    const first = pageChat(server, { page: 'first' })
    await first.sendMessage({ text: 'pay and locate' })
    await settled(first)
    await vi.waitFor(async () => expect((await server.get(first.id)).answers ?? []).toHaveLength(1))

    const reloaded = pageChat(server, { page: 'reloaded', id: first.id, messages: await reload(server, first.id) })
    const parts = partsOf(reloaded)
    expect(parts.map((part) => `${part.type}:${part.state}`)).toEqual(['tool-transfer_money:approval-requested', 'tool-get_location:output-available'])
    expect(parts[1]!.output).toEqual({ city: 'Lima' })
    // The reloaded page holds the call as the page that gave the output does after the server's answer.
    expect(parts[1]).toEqual(partsOf(first)[1])
    await reloaded.addToolApprovalResponse({ id: parts[0]!.approval!.id, approved: true })
    await vi.waitFor(() => expect(text(reloaded)).toBe('transfer_money: {"receipt":"r-500"}, get_location: {"city":"Lima"}'))
    await settled(reloaded)
    expect(reloaded.error).toBeUndefined()
    expect(transfers).toEqual([{ to: 'Bob', amount: 500 }])
    expect(located).toEqual(['first'])
    await reloaded.sendMessage({ text: 'hello' })
    expect(reloaded.error).toBeUndefined()
    expect(text(reloaded)).toBe('Hello there.')
  })

  it('another tab gave the output (Toolgate client, `resume`): the reloaded AI SDK page shows it and approving continues the run', async () => {
    const server = await setUp()
    const first = pageChat(server, { page: 'first', onToolCall: () => undefined })
    await first.sendMessage({ text: 'pay and locate' })
    await settled(first)
    const waiting = (await server.get(first.id)).interrupts
    const browserCall = waiting.find((interrupt) => interrupt.reason === 'client_tool')!
    expect((await server.resume(first.id, [{ interruptId: browserCall.id, output: { city: 'Quito' } }])).status).toBe(202)

    const reloaded = pageChat(server, { page: 'reloaded', id: first.id, messages: await reload(server, first.id) })
    const parts = partsOf(reloaded)
    expect(parts.map((part) => `${part.type}:${part.state}`)).toEqual(['tool-transfer_money:approval-requested', 'tool-get_location:output-available'])
    expect(parts[1]!.output).toEqual({ city: 'Quito' })
    await reloaded.addToolApprovalResponse({ id: parts[0]!.approval!.id, approved: true })
    await vi.waitFor(() => expect(text(reloaded)).toBe('transfer_money: {"receipt":"r-500"}, get_location: {"city":"Quito"}'))
    await settled(reloaded)
    expect(reloaded.error).toBeUndefined()
    expect(transfers).toEqual([{ to: 'Bob', amount: 500 }])
    expect(located).toEqual([])
  })
})
