import { describe, expectTypeOf, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, type InferToolInput, type InferToolName, type InferToolOutput } from '@toolgate/ai'

const weatherInput = v.object({ city: v.string() })
const weatherOutput = v.object({ tempC: v.number() })

// Type tests: checked by `npm run typecheck` (tsc), not run by vitest.
describe('types flow from the definition', () => {
  it('infers name, input and output from schemas', () => {
    const definition = toolDefinition({
      name: 'get_weather',
      description: 'Weather',
      inputSchema: weatherInput,
      outputSchema: weatherOutput,
    })
    const tool = definition.server(async (input) => {
      expectTypeOf(input).toEqualTypeOf<{ city: string }>()
      return { tempC: 1 }
    })
    expectTypeOf<InferToolName<typeof tool>>().toEqualTypeOf<'get_weather'>()
    expectTypeOf<InferToolInput<typeof tool>>().toEqualTypeOf<{ city: string }>()
    expectTypeOf<InferToolOutput<typeof tool>>().toEqualTypeOf<{ tempC: number }>()
    expectTypeOf<InferToolInput<typeof definition>>().toEqualTypeOf<{ city: string }>()
    // @ts-expect-error: the output schema wants a number
    definition.server(() => ({ tempC: 'warm' }))
  })
})
