import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, type AnyTool } from '@toolgate/ai'
import { anthropicModel, toProviderTool, toProviderTools } from '@toolgate/ai/providers'
import { collect, modelTool, useAimock } from './adapters/helpers.ts'

// Anthropic strict tool use limits a whole request (docs/provider-rules.md AS-L1, AS9, AS10): 20
// strict tools, 24 optional properties and 16 unions over all of them. A list that would break
// them is still sent: the tools past the budget go non-strict, each with a warning.

function tool(name: string, optional = 0, unions = 0): AnyTool {
  const entries: Record<string, v.GenericSchema> = { id: v.string() }
  for (let index = 0; index < optional; index++) entries[`o${index}`] = v.optional(v.string())
  for (let index = 0; index < unions; index++) entries[`u${index}`] = v.union([v.string(), v.number()])
  return toolDefinition({ name, description: `Tool ${name}`, inputSchema: v.object(entries) })
}

const strictOf = (results: readonly { tool: { strict?: boolean } }[]) => results.map((result) => result.tool.strict === true)

describe('request-wide limits of Anthropic strict mode', () => {
  it('sends at most 20 tools strict; the rest go non-strict with a warning that says why', () => {
    const tools = Array.from({ length: 22 }, (_, index) => tool(`t${index}`))
    const results = toProviderTools(tools, 'anthropic', { strict: true })
    expect(strictOf(results)).toEqual([...Array(20).fill(true), false, false])
    expect(results[20]!.warnings[0]).toEqual({ path: '/inputSchema', code: 'STRICT_DISABLED', message: 'Sent with strict: false: Anthropic strict mode takes at most 20 strict tools per request' })
    expect(results[0]!.warnings).toEqual([])
    // Each tool alone fits: only the list is over.
    expect(toProviderTool(tools[21]!, 'anthropic', { strict: true }).tool.strict).toBe(true)
  })

  it('sums optional properties over the strict tools (24 per request)', () => {
    const results = toProviderTools([tool('a', 10), tool('b', 10), tool('c', 10), tool('d', 4)], 'anthropic', { strict: true })
    expect(strictOf(results)).toEqual([true, true, false, true])
    expect(results[2]!.warnings[0]!.message).toBe("Sent with strict: false: the request's strict tools would have 30 optional properties; Anthropic strict mode allows 24 per request")
  })

  it('sums unions over the strict tools (16 per request)', () => {
    const results = toProviderTools([tool('a', 0, 9), tool('b', 0, 9)], 'anthropic', { strict: true })
    expect(strictOf(results)).toEqual([true, false])
    expect(results[1]!.warnings[0]!.message).toContain('18 properties with anyOf or a type array; Anthropic strict mode allows 16 per request')
  })

  it('leaves other targets and non-strict requests alone', () => {
    const tools = Array.from({ length: 22 }, (_, index) => tool(`t${index}`, 3))
    expect(strictOf(toProviderTools(tools, 'anthropic')).some(Boolean)).toBe(false)
    expect(toProviderTools(tools, 'openai-chat', { strict: true }).every((result) => result.tool.function.strict)).toBe(true)
  })
})

describe('anthropicModel applies them to the tools of each request', () => {
  const aimock = useAimock()

  it('declares the tools past the budget non-strict and maps their calls back as sent', async () => {
    const tools = [tool('a', 20), tool('b', 10)]
    aimock.mock.onMessage('go', { toolCalls: [{ id: 'toolu_b', name: 'b', arguments: '{"id":"x","o3":"y"}' }] })
    const sent: any[] = []
    const model = anthropicModel({
      model: 'claude-test',
      baseURL: aimock.url,
      strict: true,
      fetch: (url, init) => {
        sent.push(JSON.parse(String(init?.body)))
        return fetch(url, init)
      },
    })
    const chunks = await collect(model, { messages: [{ role: 'user', id: 'u1', content: 'go' }], tools: tools.map(modelTool) })
    expect(sent[0].tools.map((declared: { strict?: boolean }) => declared.strict === true)).toEqual([true, false])
    expect(sent[0].tools[1].input_schema.required).toEqual(['id']) // non-strict: optional stays optional
    const args = chunks.flatMap((chunk) => (chunk.type === 'tool-call-delta' ? [chunk.delta] : [])).join('')
    expect(JSON.parse(args)).toEqual({ id: 'x', o3: 'y' })
  })
})
