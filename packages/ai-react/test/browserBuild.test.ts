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

  // That a bundle without server code asks for jsonSchema() first is tested on a real bundle, where
  // tree-shaking applies: packages/ai/test/schema/exportConditions.test.ts.
  it('validates a plain JSON Schema wrapped with jsonSchema()', async () => {
    const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }
    const wrapped = toolDefinition({ name: 'copy', description: 'Copy', inputSchema: jsonSchema(schema) }).client(() => true)
    expect(await wrapped.execute({ text: 'a' })).toBe(true)
    await expect(wrapped.execute({})).rejects.toThrow('- text: Required')
  })
})
