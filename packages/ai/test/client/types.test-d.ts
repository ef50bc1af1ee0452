import { describe, expectTypeOf, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { createChatClient, type ChatMessage, type DeepPartial, type MessagePart, type SubagentPart, type ToolCallPart } from '@toolgate/ai/client'
import type { GrantRequest } from '@toolgate/ai/protocol'
import { location, share, weather } from './helpers.ts'

const browserShare = share.client(async ({ file }) => ({ link: file }))
const client = createChatClient({ endpoint: '/chat', tools: [weather, location, browserShare] })
type Tools = readonly [typeof weather, typeof location, typeof browserShare]

describe('part types', () => {
  // Type-level only: checked by tsc, never run.
  function narrowing(message: ChatMessage<Tools>) {
    for (const part of message.parts) {
      if (part.type === 'text') {
        expectTypeOf(part.text).toEqualTypeOf<string>()
        continue
      }
      expectTypeOf(part.toolName).toEqualTypeOf<'get_weather' | 'get_location' | 'share_file'>()
      if (part.toolName === 'get_weather') {
        expectTypeOf(part.metadata).toEqualTypeOf<{ readonly icon: 'cloud' }>()
        if (part.state === 'input-streaming') expectTypeOf(part.input).toEqualTypeOf<DeepPartial<{ city: string }> | undefined>()
        if (part.state === 'approval-requested') expectTypeOf(part.input).toEqualTypeOf<{ city: string }>()
        if (part.state === 'output-available') expectTypeOf(part.output).toEqualTypeOf<{ city: string; tempC: number }>()
        if (part.state === 'output-error') expectTypeOf(part.error).toEqualTypeOf<string>()
      }
      if (part.toolName === 'share_file' && part.state === 'output-available') {
        expectTypeOf(part.input).toEqualTypeOf<{ file: string; with: string }>()
        expectTypeOf(part.output).toEqualTypeOf<{ link: string }>()
      }
    }
  }

  it('narrow input, output and metadata by tool name and state', () => {
    expectTypeOf(narrowing).parameter(0).toEqualTypeOf<ChatMessage<Tools>>()
    expectTypeOf(client.getSnapshot().messages).toEqualTypeOf<readonly ChatMessage<Tools>[]>()
  })

  it('type input as the model sends it: a field with a default may be missing', () => {
    const forecast = toolDefinition({
      name: 'forecast',
      description: 'Forecast',
      inputSchema: v.object({ city: v.string(), days: v.optional(v.number(), 3) }),
    })
    type Part = Extract<ToolCallPart<readonly [typeof forecast]>, { state: 'input-available' }>
    expectTypeOf<Part['input']>().toEqualTypeOf<{ city: string; days?: number | undefined }>()
  })

  it("type a subagent's work on its call: its own parts, their tools the subagent's (typed loosely), nested", () => {
    expectTypeOf<ToolCallPart<Tools>['subagent']>().toEqualTypeOf<SubagentPart | undefined>()
    expectTypeOf<SubagentPart['parts']>().toEqualTypeOf<readonly MessagePart[]>()
    expectTypeOf<SubagentPart['status']>().toEqualTypeOf<'running' | 'suspended' | 'finished' | 'error'>()
    type Inner = Extract<SubagentPart['parts'][number], { type: 'tool-call' }>
    expectTypeOf<Inner['toolName']>().toEqualTypeOf<string>()
    expectTypeOf<Inner['input']>().toEqualTypeOf<unknown>()
    expectTypeOf<Inner['subagent']>().toEqualTypeOf<SubagentPart | undefined>()
    type Pending = ReturnType<typeof client.getSnapshot>['pendingApprovals'][number]
    expectTypeOf<NonNullable<Pending['approval']>['path']>().toEqualTypeOf<readonly string[] | undefined>()
  })

  it('type pending approvals as parts in approval-requested', () => {
    type Pending = ReturnType<typeof client.getSnapshot>['pendingApprovals'][number]
    expectTypeOf<Pending['state']>().toEqualTypeOf<'approval-requested'>()
    expectTypeOf<Pending['toolName']>().toEqualTypeOf<'get_weather' | 'get_location' | 'share_file'>()
  })

  it('fall back to untyped parts without tools', () => {
    const untyped = createChatClient({ endpoint: '/chat' })
    expectTypeOf(untyped.getSnapshot().messages).toEqualTypeOf<readonly ChatMessage[]>()
    expectTypeOf<ToolCallPart<Tools>['toolName']>().toEqualTypeOf<'get_weather' | 'get_location' | 'share_file'>()
    expectTypeOf(client.approve).parameters.toEqualTypeOf<[toolCallId: string, options?: { readonly editedArgs?: unknown; readonly grant?: GrantRequest }]>()
  })
})
