import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../helpers.ts'
import { markdownUnder } from './blocks.ts'

// Every relative link and heading anchor of the READMEs, ARCHITECTURE.md and the guides resolves.
// Links to this repository on GitHub (`https://github.com/toolgate/toolgate/blob/main/<path>`, the
// form the package READMEs use, since npm shows them away from the repository) are checked the
// same way, against the working tree.

const GITHUB = /^https:\/\/github\.com\/toolgate\/toolgate\/(?:blob|tree)\/main\/([^#?]*)(#.*)?$/

const documents = [
  'README.md',
  'ARCHITECTURE.md',
  ...markdownUnder('docs').filter((path) => !path.startsWith('docs/api/')),
  ...markdownUnder('examples').filter((path) => path.endsWith('README.md')),
  'packages/ai/README.md',
  'packages/ai-react/README.md',
]

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const result = new Set<string>()
  for (const [, heading] of withoutFences(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    result.add(count === 0 ? base : `${base}-${count}`)
  }
  for (const [, name] of markdown.matchAll(/<a (?:name|id)="([^"]+)"/g)) result.add(name!)
  return result
}

const withoutFences = (markdown: string) => markdown.replace(/^(```|~~~)[\s\S]*?^\1$/gm, '')

/** The text without fenced blocks and inline code, where a bracket is not a link. */
const withoutCode = (markdown: string) => withoutFences(markdown).replace(/`[^`\n]*`/g, '')

function links(markdown: string): string[] {
  const text = withoutCode(markdown)
  return [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!),
  ]
}

function problemsOf(document: string): string[] {
  const problems: string[] = []
  for (const link of links(readFileSync(join(repoRoot, document), 'utf8'))) {
    const github = GITHUB.exec(link)
    if (!github && /^[a-z][a-z+.-]*:/i.test(link)) continue // another site, mailto:
    const [target, anchor] = github ? [github[1]!, github[2]?.slice(1)] : link.split('#') as [string, string | undefined]
    const path = github ? join(repoRoot, target) : target === '' ? join(repoRoot, document) : join(dirname(join(repoRoot, document)), decodeURI(target))
    const shown = `${document}: ${link}`
    if (!path.startsWith(repoRoot)) problems.push(`${shown} leaves the repository`)
    else if (!existsSync(path)) problems.push(`${shown}: ${relative(repoRoot, path)} does not exist`)
    else if (anchor !== undefined && anchor !== '') {
      if (statSync(path).isDirectory() || !path.endsWith('.md')) problems.push(`${shown}: an anchor into a file that is not Markdown`)
      else if (!anchors(readFileSync(path, 'utf8')).has(decodeURIComponent(anchor))) problems.push(`${shown}: no heading "#${anchor}" in ${relative(repoRoot, path)}`)
    }
  }
  return problems
}

describe('links of the READMEs and the guides', () => {
  it('are found', () => {
    expect(documents).toEqual(expect.arrayContaining(['docs/react.md', 'examples/starter/README.md', 'packages/ai-react/README.md']))
  })

  it.each(documents)('%s: every relative link and anchor resolves', (document) => {
    expect(problemsOf(document)).toEqual([])
  })

  it('package READMEs link the repository by absolute URL (npm shows them away from it)', () => {
    const relativeLinks = ['packages/ai/README.md', 'packages/ai-react/README.md'].flatMap((document) =>
      links(readFileSync(join(repoRoot, document), 'utf8')).filter((link) => !/^[a-z][a-z+.-]*:/i.test(link)).map((link) => `${document}: ${link}`))
    expect(relativeLinks).toEqual([])
  })

  it('catch a broken anchor and a missing file', () => {
    expect(anchors('# Approval dialogs and tool cards, headless\n## `useChat`\n## A\n## A')).toEqual(new Set(['approval-dialogs-and-tool-cards-headless', 'usechat', 'a', 'a-1']))
    expect(links('[a](docs/x.md#y) `[b](c)` ![i](e2e/p.png)\n```\n[d](e)\n```')).toEqual(['docs/x.md#y', 'e2e/p.png'])
  })
})
