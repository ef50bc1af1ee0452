import { expect } from 'vitest'
import { HttpAgent } from '@ag-ui/client'
import type { BaseEvent, RunAgentInput } from '@ag-ui/core'
import { EventSchemas } from '@ag-ui/core/schemas'
import type { TestServer } from '../../server/helpers/server.ts'

// A page that reloads is a new stock AG-UI agent on the same thread id: CopilotKit v2 calls its
// `connect` on mount, which the docs' `ToolgateAgent` makes a run with nothing new.

export class ToolgateAgent extends HttpAgent {
  protected override connect(input: RunAgentInput) {
    this.abortController = new AbortController() // as `runAgent` does: after `abortRun()` the old one is aborted
    return this.run(input)
  }
}

/** Connects a fresh agent (a reloaded page) and returns it with the events it got, each checked against @ag-ui/core. */
export async function reload(server: TestServer, threadId: string, onFirstEvent?: () => void, headers?: Record<string, string>) {
  const agent = new ToolgateAgent({ url: server.url, threadId, ...(headers ? { headers } : {}) })
  const events: BaseEvent[] = []
  await agent.connectAgent({}, {
    onEvent: ({ event }) => {
      expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true)
      if (events.push(event) === 1) onFirstEvent?.()
    },
  })
  return { agent, events, types: events.map((event) => event.type) }
}

/** What a page shows of its messages: id, role, content and calls, in order. */
export function shape(messages: readonly { id: string; role: string; content?: unknown; toolCalls?: readonly { id: string }[] }[]) {
  return messages.map((message) => ({ id: message.id, role: message.role, content: message.content ?? '', ...(message.toolCalls ? { calls: message.toolCalls.map((call) => call.id) } : {}) }))
}
