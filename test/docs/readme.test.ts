import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'
import { appTypeDiagnostics, repoRoot } from '../helpers.ts'

// The TypeScript blocks of the README and of the guides in docs/ compile as written, against the
// published declarations (`dist/`).
// Each block is a module; what it uses without declaring or importing (an app's own tools and
// helpers) comes from prelude.ts. A line the README shows failing carries `// @ts-expect-error`.

const documents = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]
const blocks = documents.flatMap((document) => {
  const text = readFileSync(join(repoRoot, document), 'utf8')
  return [...text.matchAll(/^```(ts|tsx)\n([\s\S]*?)^```$/gm)].map((match, index) => ({
    document,
    name: `${document.replace(/\W+/g, '_')}_${String(index + 1).padStart(2, '0')}.${match[1]}`,
    line: text.slice(0, match.index).split('\n').length + 1,
    code: match[2]!,
  }))
})

const prelude = readFileSync(new URL('./prelude.ts', import.meta.url), 'utf8')
const preludeNames = [...prelude.matchAll(/^export (?:declare )?(?:const|function) (\w+)/gm)].map((m) => m[1]!)
  .concat([...prelude.matchAll(/^export \{ ([^}]+) \}/gm)].flatMap((m) => m[1]!.split(',').map((name) => name.trim().replace(/^type /, ''))))

/** Names a block declares or imports itself: those it must not get from the prelude. */
function ownNames(code: string): Set<string> {
  const names = new Set<string>()
  for (const m of code.matchAll(/^\s*(?:export )?(?:const|let|function|class|type|interface) (\w+)/gm)) names.add(m[1]!)
  for (const m of code.matchAll(/^\s*(?:export )?const \{([^}]+)\}/gm)) for (const name of m[1]!.split(',')) names.add(name.split(':').at(-1)!.trim())
  for (const m of code.matchAll(/^import (?:type )?(?:\* as (\w+)|(\w+)|\{([^}]+)\})(?:, \{([^}]+)\})? from/gm)) {
    if (m[1]) names.add(m[1])
    if (m[2]) names.add(m[2])
    for (const list of [m[3], m[4]]) for (const name of list?.split(',') ?? []) names.add(name.trim().replace(/^type /, '').split(' as ').at(-1)!.trim())
  }
  return names
}

const dir = join(repoRoot, 'node_modules', '.cache', 'toolgate-readme')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('code blocks of the README and the guides', () => {
  it('type-check as written', () => {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'prelude.ts'), prelude)
    const files = blocks.map((block) => {
      const own = ownNames(block.code)
      const imported = preludeNames.filter((name) => !own.has(name) && new RegExp(`\\b${name}\\b`).test(block.code))
      const header = imported.length > 0 ? `import { ${imported.join(', ')} } from './prelude.ts'\n` : ''
      const file = join(dir, block.name)
      writeFileSync(file, `${header}${block.code}\nexport {}\n`)
      return { ...block, file, offset: header === '' ? 0 : 1 }
    })
    const problems = appTypeDiagnostics(files.map((f) => f.file)).map((diagnostic) => {
      const file = files.find((f) => f.file === diagnostic.file?.fileName)
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
      if (!file || diagnostic.start === undefined) return `${diagnostic.file?.fileName ?? ''}: ${text}`
      const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start)
      return `${file.document}:${file.line + line - file.offset}: ${text}`
    })
    expect(blocks.filter((block) => block.document === 'README.md').length).toBeGreaterThan(10)
    expect(blocks.filter((block) => block.document.startsWith('docs/')).length).toBeGreaterThan(10)
    expect(problems).toEqual([])
  })
})
