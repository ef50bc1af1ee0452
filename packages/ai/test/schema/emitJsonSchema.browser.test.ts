import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { SchemaConversionError } from '@toolgate/ai'
// The browser build of emission is chosen by an export condition; tested here as a module.
import { emitJsonSchema } from '../../src/schema/emitJsonSchema.browser.ts'

describe('JSON Schema emission in browser builds', () => {
  const schema = v.object({ city: v.string() })

  it('is left out, with an error that names the tool, the side and what to do', () => {
    const emit = () => emitJsonSchema(schema, 'input', 'draft-2020-12', { toolName: 'weather', io: 'input', hook: undefined })
    expect(emit).toThrow(SchemaConversionError)
    expect(emit).toThrow(/input of tool "weather": this is a browser build.*emit JSON Schema on the server/)
  })

  it("still uses the tool's own hook", () => {
    const hook = () => ({ type: 'object' })
    expect(emitJsonSchema(schema, 'input', 'draft-07', { toolName: 'weather', io: 'input', hook })).toEqual({ type: 'object' })
  })
})
