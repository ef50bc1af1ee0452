import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { validateToolInput } from '../../src/tools/validateToolValue.ts'
import { fromProviderArgs, toProviderTool } from '@toolgate/ai/providers'

const createIssue = toolDefinition({
  name: 'create_issue',
  description: 'Create an issue',
  inputSchema: v.object({
    title: v.string(),
    body: v.optional(v.string()),
    labels: v.optional(v.array(v.string())),
    milestone: v.optional(v.nullable(v.number())),
    assignee: v.optional(v.object({ login: v.string(), team: v.optional(v.string()) })),
  }),
})

describe('fromProviderArgs', () => {
  it('turns the nulls strict mode forced on optional properties back into absence', async () => {
    const sent = { title: 'Bug', body: null, labels: null, milestone: null, assignee: { login: 'ada', team: null } }
    const { args } = fromProviderArgs(createIssue, 'openai-chat', sent, { strict: true })
    // milestone accepts null itself, so its null is a real value.
    expect(args).toEqual({ title: 'Bug', milestone: null, assignee: { login: 'ada' } })
    await expect(validateToolInput(createIssue, args)).resolves.toEqual(args)
    await expect(validateToolInput(createIssue, sent)).rejects.toThrow()
  })

  it('leaves values alone where the conversion changed nothing', () => {
    const sent = { title: 'Bug', body: null }
    expect(fromProviderArgs(createIssue, 'mcp', sent).args).toBe(sent)
    expect(fromProviderArgs(createIssue, 'openai-chat', sent).args).toBe(sent)
  })

  it('parses the JSON string OpenAI sends, and takes missing arguments as {}', () => {
    expect(fromProviderArgs(createIssue, 'openai-chat', '{"title":"x","body":null}', { strict: true }).args).toEqual({ title: 'x' })
    expect(fromProviderArgs(createIssue, 'gemini', undefined).args).toEqual({})
    expect(fromProviderArgs(createIssue, 'openai-chat', 'not json').args).toBe('not json')
  })

  it('uses the options the tool was converted with: non-strict mode forced nothing', () => {
    expect(fromProviderArgs(createIssue, 'openai-chat', { title: 'x', body: null }).args).toEqual({ title: 'x', body: null })
  })

  it('routes union members by shape before mapping them', () => {
    const tool = toolDefinition({
      name: 'set_field',
      description: 'Set a field',
      inputSchema: {
        type: 'object',
        properties: {
          target: {
            anyOf: [
              { type: 'object', properties: { id: { type: 'integer' }, note: { type: 'string' } }, required: ['id'] },
              { type: 'object', properties: { name: { type: 'string' }, level: { type: 'integer', enum: [1, 2] } }, required: ['name'] },
            ],
          },
        },
        required: ['target'],
      },
    })
    expect(fromProviderArgs(tool, 'openai-chat', { target: { id: 1, note: null } }, { strict: true }).args).toEqual({ target: { id: 1 } })
    expect(fromProviderArgs(tool, 'gemini', { target: { name: 'a', level: '2' } }).args).toEqual({ target: { name: 'a', level: 2 } })
    expect(toProviderTool(tool, 'gemini').tool.parameters?.properties?.target?.anyOf?.[1]?.properties?.level).toEqual({ type: 'STRING', format: 'enum', enum: ['1', '2'] })
  })

  it('maps back through $ref definitions', () => {
    const tool = toolDefinition({
      name: 'tree',
      description: 'A tree',
      inputSchema: {
        type: 'object',
        $defs: { Node: { type: 'object', properties: { $label: { type: 'string' }, kids: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
        properties: { root: { $ref: '#/$defs/Node' } },
      },
    })
    const sent = { root: { _label: 'a', kids: [{ _label: 'b', kids: null }] } }
    expect(fromProviderArgs(tool, 'anthropic', sent).args).toEqual({ root: { $label: 'a', kids: [{ $label: 'b', kids: null }] } })
    expect(fromProviderArgs(tool, 'gemini-json-schema', sent).args).toEqual({ root: { $label: 'a', kids: [{ $label: 'b', kids: null }] } })
  })
})

describe('fromProviderArgs and hostile keys', () => {
  it('keeps a "__proto__" key an own property, so it cannot smuggle values past validation', async () => {
    const guarded = toolDefinition({
      name: 'guarded',
      description: 'Guarded',
      inputSchema: {
        type: 'object',
        properties: { to: { type: 'string' }, note: { type: 'string' }, admin: { type: 'boolean', const: false } },
        required: ['to'],
        additionalProperties: false,
      },
    })
    const { args } = fromProviderArgs(guarded, 'openai-chat', '{"to":"bob","note":null,"admin":null,"__proto__":{"admin":true}}', { strict: true })
    const record = args as Record<string, unknown>
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype)
    expect(record.admin).toBeUndefined()
    expect(Object.hasOwn(record, '__proto__')).toBe(true)
    await expect(guarded.server(() => 'ran').execute(args as never)).rejects.toThrow('Unknown property "__proto__"')
  })
})
