import { afterEach, describe, expect, expectTypeOf, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, ToolDefinitionError } from '@toolgate/ai'
import { type ChatModel, createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { closeAll, startServer } from './helpers/server.ts'

afterEach(closeAll)

const crmLookup = toolDefinition({
  name: 'crm_lookup',
  description: 'Looks a customer up in the tenant’s CRM',
  inputSchema: v.object({ email: v.string() }),
  contextSchema: v.object({ crmApiKey: v.string(), locale: v.optional(v.string(), 'en') }),
  needsApproval: (_input, ctx) => {
    expectTypeOf(ctx.context).toEqualTypeOf<{ crmApiKey: string; locale: string }>()
    return false
  },
})

const seen: unknown[] = []
const lookup = crmLookup.server(async ({ email }, ctx) => {
  expectTypeOf(ctx.context).toEqualTypeOf<{ crmApiKey: string; locale: string }>()
  seen.push(ctx.context)
  return { email, plan: 'pro' }
})

const echo = toolDefinition({ name: 'echo', description: 'Echoes', inputSchema: v.object({ text: v.string() }) }).server(({ text }) => text)

function countingModel(): { model: ChatModel; calls: () => number } {
  let calls = 0
  const inner = scriptedModel([{ when: /look up (\S+)/, call: (m) => ({ tool: 'crm_lookup', input: { email: m[1]! } }), then: () => 'Found.' }])
  return { model: { stream: (request) => (calls++, inner.stream(request)) }, calls: () => calls }
}

describe('contextSchema', () => {
  it('hands each tool its validated context (defaults applied)', async () => {
    seen.length = 0
    const { model } = countingModel()
    const server = await startServer({ model, tools: [lookup, echo], context: () => ({ crmApiKey: 'k-1', userId: 'u1' }) })
    const turn = await server.send('look up ada@example.com')
    expect(turn.results[0]!.content).toBe('{"email":"ada@example.com","plan":"pro"}')
    expect(seen).toEqual([{ crmApiKey: 'k-1', locale: 'en' }])
  })

  it('fails the turn before any model call, naming the tool and the key', async () => {
    const { model, calls } = countingModel()
    const errors: unknown[] = []
    const original = console.error
    console.error = (...args: unknown[]) => void errors.push(args.join(' '))
    try {
      const server = await startServer({ model, tools: [lookup], context: (() => ({ crmApiKey: 42 })) as never })
      const response = await server.post({ message: 'look up ada@example.com' })
      expect(response.status).toBe(500)
      const body = (await response.json()) as { error: { code: string; message: string } }
      expect(body.error.code).toBe('CONTEXT_INVALID')
      expect(body.error.message).toBe('The chat handler\'s context is incomplete: tool "crm_lookup" needs `context.crmApiKey`')
      // The value itself is never sent to the browser, only logged.
      expect(body.error.message).not.toContain('42')
      expect(String(errors[0])).toContain('crmApiKey')
    } finally {
      console.error = original
    }
    expect(calls()).toBe(0)
  })

  it('checks answers to interrupts too, and leaves the thread untouched', async () => {
    let key: string | undefined = 'k-1'
    const asking = toolDefinition({
      name: 'crm_lookup',
      description: 'Looks a customer up',
      inputSchema: v.object({ email: v.string() }),
      contextSchema: v.object({ crmApiKey: v.string() }),
      needsApproval: true,
    }).server(({ email }) => email)
    const { model, calls } = countingModel()
    const server = await startServer({ model, tools: [asking], context: () => ({ crmApiKey: key }) as never })
    const first = await server.send('look up ada@example.com')
    expect(first.interrupts).toHaveLength(1)
    key = undefined
    const original = console.error
    console.error = () => {}
    try {
      const second = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: true }])
      expect(second.status).toBe(500)
    } finally {
      console.error = original
    }
    expect(calls()).toBe(1)
    expect(await server.get(first.threadId)).toMatchObject({ status: 'interrupted' })
  })

  it('must be a Standard Schema', () => {
    expect(() => toolDefinition({ name: 'x', description: 'x', contextSchema: { type: 'object' } as never })).toThrow(ToolDefinitionError)
  })

  it('makes createChatHandler type-check its context against every tool', () => {
    const { model } = countingModel()
    createChatHandler({ model, tools: [lookup, echo], context: { crmApiKey: 'k' } })
    createChatHandler({ model, tools: [lookup], context: async () => ({ crmApiKey: 'k', locale: 'fr' }) })
    createChatHandler({ model, tools: [echo] })
    // @ts-expect-error the context lacks `crmApiKey`
    createChatHandler({ model, tools: [lookup, echo], context: { locale: 'fr' } })
    // @ts-expect-error `crmApiKey` must be a string
    createChatHandler({ model, tools: [lookup], context: () => ({ crmApiKey: 1 }) })
    // @ts-expect-error a tool needs context and none is given
    createChatHandler({ model, tools: [lookup, echo] })
  })
})

describe('a context object (not a function)', () => {
  it('is read again each turn: a tool sees what the app changed in it since the last turn', async () => {
    seen.length = 0
    const { model } = countingModel()
    const context = { crmApiKey: 'k-1' }
    const server = await startServer({ model, tools: [lookup], context })
    await server.send('look up ada@example.com')
    context.crmApiKey = 'k-2'
    await server.send('look up bob@example.com')
    expect(seen).toEqual([{ crmApiKey: 'k-1', locale: 'en' }, { crmApiKey: 'k-2', locale: 'en' }])
  })

  it('reaches a tool without a contextSchema as the app’s own object', async () => {
    const contexts: unknown[] = []
    const plain = toolDefinition({ name: 'crm_lookup', description: 'Looks a customer up', inputSchema: v.object({ email: v.string() }) }).server((_input, ctx) => {
      contexts.push(ctx.context)
      return 'ok'
    })
    const { model } = countingModel()
    const context = { tenant: 't-1' }
    const server = await startServer({ model, tools: [plain], context })
    await server.send('look up ada@example.com')
    await server.send('look up bob@example.com')
    expect(contexts).toHaveLength(2)
    expect(contexts[0]).toBe(context)
    expect(contexts[1]).toBe(context)
  })
})
