import { afterEach, describe, expect, it, vi } from 'vitest'
import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import type { UIMessage } from '@tanstack/ai'
import { researchChat } from './helpers/researchAgent.ts'
import { closeAll, startServer } from '../server/helpers/server.ts'

afterEach(closeAll)

// TanStack AI's ChatClient knows no subagents: a subagent's events stay out of its messages (they
// would go back as calls the thread never stored), and an inner approval is asked on the agent's
// call, with the inner call's name and input, answered through its normal API.

function textOf(messages: readonly UIMessage[]): string {
  return messages.flatMap((m) => (m.role !== 'assistant' ? [] : m.parts.flatMap((p) => (p.type === 'text' ? [p.content] : [])))).join('')
}

function toolCallPart(messages: readonly UIMessage[], name: string) {
  for (const message of messages) for (const part of message.parts) if (part.type === 'tool-call' && part.name === name) return part
  return undefined
}

describe("TanStack AI's ChatClient with an agent tool", () => {
  it("asks the inner call's approval on the agent's call; approved, the subagent and the turn go on", async () => {
    const { sent, model, tools } = researchChat()
    const server = await startServer({ model, tools })
    const client = new ChatClient({ connection: fetchServerSentEvents(`${server.url}?client=tanstack`), threadId: `t-${Math.random().toString(36).slice(2)}` })
    await client.sendMessage('delegate')
    // Asked on the agent's call (the one TanStack holds), with the inner call's name and input.
    const part = toolCallPart(client.getMessages(), 'research')
    expect(part).toMatchObject({ state: 'approval-requested', approval: { needsApproval: true } })
    expect(toolCallPart(client.getMessages(), 'send_email')).toBeUndefined()
    expect(client.getInterrupts()).toEqual([expect.objectContaining({ canResolve: true, metadata: expect.objectContaining({ toolName: 'send_email', input: { to: 'bob' } }) })])
    expect(textOf(client.getMessages())).not.toContain('Looking into it.')
    await client.addToolApprovalResponse({ id: part!.approval!.id, approved: true })
    await vi.waitFor(() => expect(textOf(client.getMessages())).toContain('Agent: "email success"'))
    expect(sent).toEqual(['bob'])
  })
})
