import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { jsonSchema, toolDefinition } from '@toolgate/ai'

// This project resolves the `browser` export condition, as a browser bundle does (JSON Schema
// emission excepted: vite.config.ts gives it the server build for the in-process chat server).
describe('the browser build of @toolgate/ai', () => {
  it('validates schema-library tools', async () => {
    const definition = toolDefinition({ name: 'loc', description: 'Location', inputSchema: v.object({ precise: v.boolean() }) })
    const tool = definition.client(({ precise }) => (precise ? 'here' : 'somewhere'))
    expect(await tool.execute({ precise: true })).toBe('here')
    await expect(tool.execute({ precise: 'yes' } as never)).rejects.toThrow('- precise: ')
  })

  it('asks for jsonSchema() before validating a plain JSON Schema, and validates once wrapped', async () => {
    const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }
    const plain = toolDefinition({ name: 'copy', description: 'Copy', inputSchema: schema }).client(() => true)
    await expect(plain.execute({ text: 'a' })).rejects.toThrow(/Wrap the plain JSON Schema with jsonSchema\(\)/)
    const wrapped = toolDefinition({ name: 'copy', description: 'Copy', inputSchema: jsonSchema(schema) }).client(() => true)
    expect(await wrapped.execute({ text: 'a' })).toBe(true)
    await expect(wrapped.execute({})).rejects.toThrow('- text: Required')
  })
})
