import { describe, expect, it } from 'vitest'
import * as fc from 'fast-check'
import { toolDefinition, type AnyTool, type JsonSchema } from '@toolgate/ai'
import { fromProviderArgs, toProviderTool } from '@toolgate/ai/providers'
import { arbitraryFor } from './arbitrary.ts'
import { loadCorpus, VARIANTS } from './corpus.ts'
import { convertedSchemaOf, enforceableOriginal, issuesOf } from './helpers.ts'
import { ruleFailures } from './rules.ts'

const corpus = loadCorpus()
const tools = corpus.map((entry) => ({
  entry,
  tool: toolDefinition({ name: entry.name, description: entry.description, inputSchema: entry.inputSchema, metadata: { annotations: entry.annotations } }) as AnyTool,
}))

describe('github-mcp-server corpus', () => {
  it('has all 117 tools', () => {
    expect(corpus).toHaveLength(117)
  })

  describe.each(VARIANTS)('$label', ({ target, options }) => {
    it('satisfies every ✔ rule of the target for every tool', () => {
      const failures = tools.flatMap(({ entry, tool }) => ruleFailures(target, toProviderTool(tool, target, options).tool).map((failure) => ({ tool: entry.name, ...failure })))
      expect(failures).toEqual([])
    })

    it('maps arguments valid under the converted schema back to arguments valid under the original', () => {
      for (const { entry, tool } of tools) {
        const { tool: envelope, warnings } = toProviderTool(tool, target, options)
        const converted = convertedSchemaOf(target, envelope)
        const original = enforceableOriginal(entry.inputSchema as JsonSchema, warnings)
        const valid = arbitraryFor(converted).filter((value) => issuesOf(converted, value).length === 0)
        fc.assert(
          fc.property(valid, (value) => {
            const { toolName, args } = fromProviderArgs(tool, target, value, options)
            expect(toolName).toBe(entry.name)
            expect(issuesOf(original, args), `${entry.name}: ${JSON.stringify(value)} → ${JSON.stringify(args)}`).toEqual([])
          }),
          { numRuns: 6, seed: 42 },
        )
      }
    })
  })
})
