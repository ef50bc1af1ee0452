import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Validator } from '@cfworker/json-schema'
import { describe, expect, it } from 'vitest'
import { validateJsonSchema, type JsonSchema } from '@toolgate/ai'

// The official JSON Schema Test Suite (test/fixtures/json-schema-test-suite), run through Toolgate's
// validator and, beside it, @cfworker/json-schema (eval-free too) as the reference. Skipped: remote
// references (nothing is fetched), `vocabulary.json` (custom meta-schemas) and `format.json` (format
// assertion is optional in 2020-12). The scores are printed; ours must not fall below the reference.

const SUITE = new URL('../fixtures/json-schema-test-suite/', import.meta.url).pathname
const SKIPPED = new Set(['refRemote.json', 'vocabulary.json', 'format.json'])

interface Case {
  readonly file: string
  readonly group: string
  readonly test: string
  readonly schema: JsonSchema | boolean
  readonly data: unknown
  readonly valid: boolean
}

/** The suite gives the draft by folder; a validator is told it by `$schema`, as users' schemas do. */
const DIALECTS: Record<string, string> = {
  draft7: 'http://json-schema.org/draft-07/schema#',
  'draft2020-12': 'https://json-schema.org/draft/2020-12/schema',
}

function casesOf(draft: string): Case[] {
  const folder = join(SUITE, draft)
  const withDialect = (schema: JsonSchema | boolean) => (typeof schema === 'object' && schema.$schema === undefined ? { $schema: DIALECTS[draft], ...schema } : schema)
  return readdirSync(folder)
    .filter((file) => file.endsWith('.json') && !SKIPPED.has(file))
    .flatMap((file) =>
      (JSON.parse(readFileSync(join(folder, file), 'utf8')) as { description: string; schema: JsonSchema | boolean; tests: { description: string; data: unknown; valid: boolean }[] }[]).flatMap((group) =>
        group.tests.map((test) => ({ file, group: group.description, test: test.description, schema: withDialect(group.schema), data: test.data, valid: test.valid })),
      ),
    )
}

function ours(schema: JsonSchema | boolean, data: unknown): boolean {
  return validateJsonSchema(schema, data).length === 0
}

function reference(draft: '2020-12' | '7') {
  return (schema: JsonSchema | boolean, data: unknown) => new Validator(schema as never, draft, false).validate(data).valid
}

function score(cases: readonly Case[], validate: (schema: JsonSchema | boolean, data: unknown) => boolean) {
  const failed: string[] = []
  for (const c of cases) {
    let verdict: boolean
    try {
      verdict = validate(c.schema, c.data)
    } catch {
      verdict = !c.valid // a throw counts as a miss
    }
    if (verdict !== c.valid) failed.push(`${c.file}: ${c.group} / ${c.test}`)
  }
  return { passed: cases.length - failed.length, total: cases.length, failed }
}

const percent = (s: { passed: number; total: number }) => `${((100 * s.passed) / s.total).toFixed(1)}%`

describe.each([
  { draft: 'draft2020-12', reference: reference('2020-12') },
  { draft: 'draft7', reference: reference('7') },
])('JSON Schema Test Suite, $draft', ({ draft, reference }) => {
  const cases = casesOf(draft)

  it('validates at least as the reference validator does', () => {
    const mine = score(cases, ours)
    const theirs = score(cases, reference)
    console.log(
      `${draft}: validateJsonSchema ${mine.passed}/${mine.total} (${percent(mine)}), @cfworker/json-schema ${theirs.passed}/${theirs.total} (${percent(theirs)})`,
    )
    expect(cases.length).toBeGreaterThan(700)
    expect(mine.passed, `misses the reference passes:\n${mine.failed.filter((test) => !theirs.failed.includes(test)).join('\n')}`).toBeGreaterThanOrEqual(theirs.passed)
  })
})
