import { describe, expectTypeOf, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { createChatClient } from '@toolgate/ai/client'
import { scriptedModel, type ScriptedResult } from '@toolgate/ai/server/testing'

// The public types that used to leak `any` (issue 13): each must stay a real type, so a mistake in
// an app fails to compile instead of passing silently.

describe('no any in public types', () => {
  const tool = toolDefinition({ name: 'echo', description: 'Echo', inputSchema: v.object({ text: v.string() }) })

  it('ctx.context in executors and approval policies, without a contextSchema', () => {
    tool.server(async (_input, ctx) => {
      expectTypeOf(ctx.context).not.toBeAny()
      expectTypeOf(ctx.context).toBeUnknown()
      return null
    })
    toolDefinition({
      name: 'guarded',
      description: 'Guarded',
      inputSchema: v.object({ n: v.number() }),
      needsApproval: (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<{ n: number }>()
        expectTypeOf(ctx.context).not.toBeAny()
        return false
      },
    })
  })

  it("scripted results' input and output", () => {
    expectTypeOf<ScriptedResult['input']>().not.toBeAny()
    expectTypeOf<Extract<ScriptedResult, { status: 'success' }>['output']>().not.toBeAny()
    scriptedModel([{ when: 'x', call: () => ({ tool: 'echo', input: { text: 'a' } }), then: ([result]) => {
      expectTypeOf(result.input).not.toBeAny()
      return 'done'
    } }])
  })

  it('tool-call parts of a client without tools', () => {
    const client = createChatClient({ endpoint: '/chat' })
    type Part = Extract<ReturnType<typeof client.getSnapshot>['messages'][number]['parts'][number], { type: 'tool-call' }>
    expectTypeOf<Part['input']>().not.toBeAny()
    expectTypeOf<Part['output']>().not.toBeAny()
  })
})
