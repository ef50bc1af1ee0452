import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { bin, repoRoot, run } from '../helpers.ts'
import { codeBlocks, guides } from './blocks.ts'

// A guide's test file runs as copied: every block whose first line names a test file
// (`// chat.test.ts: ...`) is written beside the starter's files (as docs/getting-started.md shows
// them) and run with vitest against the built packages.

const dir = join(repoRoot, 'node_modules', '.cache', 'toolgate-runnable')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const starter = codeBlocks('docs/getting-started.md').filter((block) => block.file?.startsWith('examples/starter/'))
const tests = guides().flatMap((document) =>
  codeBlocks(document).flatMap((block) => {
    const name = /^\/\/ ([\w.-]+\.test\.tsx?):/.exec(block.code)?.[1]
    return name ? [{ document, line: block.line, name, code: block.code }] : []
  }))

describe('test files shown in the guides', () => {
  it('are found', () => {
    expect(tests.map((test) => `${test.document} ${test.name}`)).toEqual(expect.arrayContaining(['docs/testing.md chat.test.ts', 'docs/testing.md provider.test.ts']))
  })

  it.each(tests)('$document:$line $name passes as copied', ({ document, name, code }) => {
    const root = join(dir, document.replace(/\W+/g, '_'))
    for (const block of starter) {
      mkdirSync(dirname(join(root, block.file!.slice('examples/starter/'.length))), { recursive: true })
      writeFileSync(join(root, block.file!.slice('examples/starter/'.length)), block.code)
    }
    writeFileSync(join(root, name), code)
    const output = run(bin('vitest'), ['run', '--root', root, name], { cwd: root, env: { ...process.env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' } })
    expect(output).toMatch(/Tests\s+\d+ passed/)
  })
})
