import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'
import { appTypeDiagnostics, repoRoot } from '../helpers.ts'
import { codeBlocks, guides, type CodeBlock } from './blocks.ts'

// The TypeScript blocks of the guides and the READMEs compile as written, against the published
// declarations (`dist/`), with nothing a reader cannot see:
// - A guide (docs/**/*.md, the package READMEs) stands on its own. Each block is a module; a block
//   fenced with `file=<path>` is that file, and the guide's blocks import one another by relative
//   path. Guides build on the starter of docs/getting-started.md: a block may import its files
//   (`./chat.ts`, `./src/tools.ts`), as that guide shows them. A name a block uses without
//   declaring or importing it fails the check.
// - The root README shows excerpts of an app. A name an excerpt uses without declaring or importing
//   it must be listed on a `// Defined elsewhere:` line of the block, which says where it comes from;
//   only those names are taken from prelude.ts (the app around the excerpts).
// - A block fenced with `file=<path>` of a file in this repository is that file, byte for byte.
// A line a document shows failing carries `// @ts-expect-error`.

const dir = join(repoRoot, 'node_modules', '.cache', 'toolgate-docs')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const typed = (block: CodeBlock) => block.lang === 'ts' || block.lang === 'tsx'

interface Written {
  readonly block: CodeBlock
  readonly path: string
  /** Lines added above the block's code. */
  readonly offset: number
}

const prelude = readFileSync(new URL('./prelude.ts', import.meta.url), 'utf8')

/** The names a README excerpt says come from elsewhere: `// Defined elsewhere: getWeather, send ("A first tool"), ...`. */
function definedElsewhere(code: string): string[] {
  return [...code.matchAll(/^\s*\/\/ Defined elsewhere: (.*)$/gm)].flatMap((m) =>
    m[1]!.replace(/\([^)]*\)/g, '').replace(/"[^"]*"/g, '').split(/[,;]/).map((name) => name.trim()).filter((name) => /^\w+$/.test(name)))
}

/** The starter's files as docs/getting-started.md shows them, by their path in the starter. */
const starterFiles = codeBlocks('docs/getting-started.md').flatMap((block) =>
  block.file?.startsWith('examples/starter/') && typed(block) ? [{ path: block.file.slice('examples/starter/'.length), code: block.code }] : [])

function writeGuide(document: string, blocks: readonly CodeBlock[]): Written[] {
  const root = join(dir, document.replace(/\W+/g, '_'))
  for (const file of starterFiles) {
    mkdirSync(dirname(join(root, file.path)), { recursive: true })
    writeFileSync(join(root, file.path), file.code)
  }
  return blocks.filter(typed).map((block, index) => {
    const path = join(root, block.file ?? `block_${String(index + 1).padStart(2, '0')}.${block.lang}`)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, block.file ? block.code : `${block.code}\nexport {}\n`)
    return { block, path, offset: 0 }
  })
}

function writeReadme(blocks: readonly CodeBlock[]): Written[] {
  const root = join(dir, 'README_md')
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'prelude.ts'), prelude)
  return blocks.filter(typed).map((block, index) => {
    const names = definedElsewhere(block.code)
    const header = names.length > 0 ? `import { ${names.join(', ')} } from './prelude.ts'\n` : ''
    const path = join(root, `block_${String(index + 1).padStart(2, '0')}.${block.lang}`)
    writeFileSync(path, `${header}${block.code}\nexport {}\n`)
    return { block, path, offset: header === '' ? 0 : 1 }
  })
}

function problems(written: readonly Written[]): string[] {
  return appTypeDiagnostics(written.map((w) => w.path)).map((diagnostic) => {
    const file = written.find((w) => w.path === diagnostic.file?.fileName)
    let text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
    if (diagnostic.code === 2304 || diagnostic.code === 2552) {
      text += file?.block.document === 'README.md'
        ? ' (declare or import it in the block, or list it on a `// Defined elsewhere:` line saying where it comes from)'
        : ' (the guide must define or import it: a reader copies only what the guide shows)'
    }
    if (!file || diagnostic.start === undefined) return `${diagnostic.file?.fileName ?? ''}: ${text}`
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start)
    return `${file.block.document}:${file.block.line + line - file.offset}: ${text}`
  })
}

describe('code blocks of the guides and the READMEs', () => {
  const guideBlocks = guides().map((document) => ({ document, blocks: codeBlocks(document) }))
  const readme = codeBlocks('README.md')

  it('type-check as written, each guide on its own, without a hidden prelude', () => {
    rmSync(dir, { recursive: true, force: true })
    const written = guideBlocks.flatMap(({ document, blocks }) => writeGuide(document, blocks))
    expect(written.filter((w) => w.block.document.startsWith('docs/')).length).toBeGreaterThan(10)
    expect(problems(written)).toEqual([])
  })

  it('README excerpts type-check, taking from elsewhere only the names they say come from elsewhere', () => {
    const written = writeReadme(readme)
    expect(written.length).toBeGreaterThan(10)
    expect(problems(written)).toEqual([])
  })

  it('a block marked file=<path> is that file of the repository, whole', () => {
    const marked = [...readme, ...guideBlocks.flatMap((g) => g.blocks)].filter((block) => block.file)
    expect(marked.length).toBeGreaterThan(5)
    const drift = marked.flatMap((block) => {
      const path = join(repoRoot, block.file!)
      if (!existsSync(path)) return block.file!.startsWith('examples/') ? [`${block.document}:${block.line}: ${block.file} does not exist`] : []
      return readFileSync(path, 'utf8') === block.code ? [] : [`${block.document}:${block.line}: differs from ${block.file}`]
    })
    expect(drift).toEqual([])
  })

  it('the getting-started guide shows every file of examples/starter', () => {
    const shown = new Set(codeBlocks('docs/getting-started.md').map((block) => block.file))
    const starter = join(repoRoot, 'examples', 'starter')
    const files = readdirSync(starter, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !/node_modules|dist/.test(entry.parentPath))
      .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)))
      .filter((path) => path !== 'examples/starter/README.md')
    expect(files.filter((path) => !shown.has(path))).toEqual([])
  })
})
