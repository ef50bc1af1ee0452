import { describe, expect, it, vi } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { fromProviderArgs, fromProviderName, PROVIDER_TARGETS, providerToolName, toProviderTool } from '@toolgate/ai/providers'
import { RULES, subjectOf } from './rules.ts'

const NAME_RULE = { 'openai-chat': 'OA-N1', 'openai-responses': 'OA-N1', anthropic: 'AN-N1', gemini: 'GM-N1', 'gemini-json-schema': 'GM-N1', mcp: 'MCP-N' } as const

vi.spyOn(console, 'warn').mockImplementation(() => {}) // toolDefinition warns about non-portable names

const adminList = toolDefinition({ name: 'admin.tools.list', description: 'List admin tools', inputSchema: v.object({ page: v.optional(v.number()) }) })
const adminUnderscore = toolDefinition({ name: 'admin_tools_list', description: 'Same readable name', inputSchema: v.object({}) })
const weird = ['admin.tools.list', 'files/read', 'résumé:parse', '9lives', 'x'.repeat(90), '...', 'ok-name_1']

describe('tool names', () => {
  it('keeps a name the target takes', () => {
    expect(providerToolName('get_me', 'openai-chat')).toBe('get_me')
    expect(providerToolName('admin.tools.list', 'mcp')).toBe('admin.tools.list')
    expect(providerToolName('admin.tools.list', 'gemini')).toBe('admin.tools.list')
  })

  it('maps admin.tools.list under OpenAI and Anthropic to a readable, deterministic name', () => {
    const name = providerToolName('admin.tools.list', 'openai-chat')
    expect(name).toMatch(/^admin_tools_list_[0-9a-z]{7}$/)
    expect(providerToolName('admin.tools.list', 'anthropic')).toBe(name)
    const result = toProviderTool(adminList, 'openai-responses', { strict: true })
    expect(result.tool.name).toBe(name)
    expect(result.warnings[0]).toMatchObject({ path: '/name', code: 'TOOL_RENAMED' })
  })

  it.each(PROVIDER_TARGETS)('every mapped name satisfies the rule of %s', (target) => {
    for (const name of weird) {
      const mapped = providerToolName(name, target)
      expect(RULES[NAME_RULE[target]]?.check({ name: mapped, schema: undefined, strict: false }), `${name} → ${mapped}`).toBeUndefined()
      expect(mapped.length).toBeLessThanOrEqual(target === 'gemini' || target === 'gemini-json-schema' || target === 'mcp' ? 128 : 64)
    }
  })

  it('gives different names different provider names', () => {
    const mapped = new Set(weird.map((name) => providerToolName(name, 'openai-chat')))
    expect(mapped.size).toBe(weird.length)
    expect(providerToolName('admin.tools.list', 'openai-chat')).not.toBe(providerToolName('admin_tools_list', 'openai-chat'))
  })

  it('routes a provider name back to its tool', () => {
    const tools = [adminList, adminUnderscore]
    for (const target of PROVIDER_TARGETS) {
      for (const tool of tools) {
        const sent = subjectOf(target, toProviderTool(tool, target).tool).name
        expect(fromProviderName(tools, target, sent)).toBe(tool)
      }
    }
    expect(fromProviderName(tools, 'openai-chat', 'nope')).toBeUndefined()
  })

  it('fromProviderArgs reports the original name', () => {
    expect(fromProviderArgs(adminList, 'openai-chat', '{"page":2}')).toEqual({ toolName: 'admin.tools.list', args: { page: 2 } })
  })

  it('refuses to route a name two tools share', () => {
    // A tool literally named like another tool's mapped name: the one case a lookup cannot decide.
    const mapped = providerToolName('admin.tools.list', 'openai-chat')
    const impostor = toolDefinition({ name: mapped, description: 'Impostor', inputSchema: v.object({}) })
    expect(() => fromProviderName([adminList, impostor], 'openai-chat', mapped)).toThrowError(expect.objectContaining({ code: 'NAME_COLLISION' }))
    expect(fromProviderName([adminList, impostor], 'mcp', mapped)).toBe(impostor)
    expect(() => providerToolName('', 'mcp')).toThrowError(expect.objectContaining({ code: 'INVALID_TOOL_NAME' }))
  })
})
