import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import * as ai6 from 'ai'
import type { AbstractChat, ChatInit, UIMessage } from 'ai'
import { researchChat } from './helpers/researchAgent.ts'
import { MemoryChatState, SDKS, type Sdk } from './helpers/aiSdkChats.ts'
import { closeAll, startServer } from '../server/helpers/server.ts'

afterEach(closeAll)

// The AI SDK's useChat knows no subagents: an agent tool's work reaches it as the call of the agent
// (its answer the call's output) and, when an inner call needs approval, as a plain approval of that
// inner call in the same message. Answered there, the subagent continues on the server.

let sdk: Sdk = ai6

function newChat(init: ChatInit<UIMessage>): AbstractChat<UIMessage> {
  class MemoryChat extends sdk.AbstractChat<UIMessage> {
    constructor({ messages, ...rest }: ChatInit<UIMessage>) {
      super({ ...rest, state: new MemoryChatState(messages) })
    }
  }
  return new MemoryChat(init)
}

function setUp() {
  const { sent, model, tools } = researchChat()
  return { sent, start: () => startServer({ model, tools }) }
}

for (const [version, thisSdk] of SDKS) describe(`AI SDK ${version}'s useChat with an agent tool`, () => {
  beforeEach(() => {
    sdk = thisSdk
  })

  it("shows the inner call's approval as a plain approval, without the subagent's text; approved, the subagent and the turn go on", async () => {
    const { sent, start } = setUp()
    const server = await start()
    const chat = newChat({
      id: `chat-${Math.random().toString(36).slice(2)}`,
      transport: new sdk.DefaultChatTransport({ api: server.url }),
      sendAutomaticallyWhen: (options) => sdk.lastAssistantMessageIsCompleteWithApprovalResponses(options),
    })
    await chat.sendMessage({ text: 'delegate' })
    await vi.waitFor(() => expect(chat.status).toMatch(/^(ready|error)$/))
    expect(chat.error).toBeUndefined()
    const message = chat.messages.at(-1)!
    // The subagent's own words are its own: the chat shows the calls, not its text.
    expect(message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')).toBe('')
    const inner = message.parts.find((part) => part.type === 'tool-send_email') as { state: string; input: unknown; approval: { id: string } }
    expect(inner).toMatchObject({ state: 'approval-requested', input: { to: 'bob' } })
    await chat.addToolApprovalResponse({ id: inner.approval.id, approved: true })
    await vi.waitFor(() => expect(chat.messages.at(-1)!.parts.some((part) => part.type === 'text' && part.text.startsWith('Agent'))).toBe(true))
    await vi.waitFor(() => expect(chat.status).toBe('ready'))
    expect(chat.error).toBeUndefined()
    expect(sent).toEqual(['bob'])
    const last = chat.messages.at(-1)!
    expect(last.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')).toBe('Agent: "email success"')
  })
})
