import { join } from 'node:path'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'
import { describe, expect, it } from 'vitest'
import { bin, repoRoot, run } from '../helpers.ts'

// The same handler (test/fixtures/turn) answers a turn with a server tool and an approval on each
// runtime, importing the built package (`dist/`) as users do. Deno and Next.js (Node and Edge) are
// in next-deno.test.ts: they are installed at test time, not as devDependencies.
const main = join(repoRoot, 'test', 'fixtures', 'turn', 'main.js')
const answer = '{"city":"Paris","tempC":18} {"receipt":"r-Bob-250"}'

describe('runtime matrix', () => {
  it('Node', () => {
    expect(run(process.execPath, [main], { cwd: repoRoot }).trim()).toBe(answer)
  })
  it('Bun', () => {
    expect(run(bin('bun'), [main], { cwd: repoRoot }).trim()).toBe(answer)
  })
  it('workerd (Miniflare), bundled with the browser condition as Wrangler does', async () => {
    const bundle = await build({
      entryPoints: [join(repoRoot, 'test', 'fixtures', 'turn', 'worker.js')],
      bundle: true, format: 'esm', write: false, platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'], mainFields: ['module', 'main'],
    })
    const worker = new Miniflare({ modules: true, script: bundle.outputFiles[0]!.text, compatibilityDate: '2025-01-01' })
    try {
      expect(await (await worker.dispatchFetch('http://worker.test/')).text()).toBe(answer)
    } finally {
      await worker.dispose()
    }
  })
})
