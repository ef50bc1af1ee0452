import { expect } from 'vitest'
import * as fc from 'fast-check'
import type { AnyTool, JsonSchema } from '@toolgate/ai'
import { fromProviderArgs, toProviderTool } from '@toolgate/ai/providers'
import { arbitraryFor } from './arbitrary.ts'
import type { Variant } from './corpus.ts'
import { convertedSchemaOf, enforceableOriginal, issuesOf } from './helpers.ts'
import { ruleFailures } from './rules.ts'

/**
 * The two properties every conversion must have: the output satisfies the target's ✔ rules,
 * and arguments valid under the output map back to arguments valid under the original (less
 * what the conversion reported it could only say in words).
 */
export function expectSoundConversion(tool: AnyTool, original: JsonSchema, variant: Variant, numRuns = 20): void {
  const { target, options } = variant
  const { tool: envelope, warnings } = toProviderTool(tool, target, options)
  expect(ruleFailures(target, envelope), variant.label).toEqual([])
  const converted = convertedSchemaOf(target, envelope)
  const enforceable = enforceableOriginal(original, warnings)
  const valid = arbitraryFor(converted).filter((value) => issuesOf(converted, value).length === 0)
  fc.assert(
    fc.property(valid, (value) => {
      const { args } = fromProviderArgs(tool, target, value, options)
      expect(issuesOf(enforceable, args), `${variant.label}: ${JSON.stringify(value)} → ${JSON.stringify(args)}`).toEqual([])
    }),
    { numRuns, seed: 7 },
  )
}
