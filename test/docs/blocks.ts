import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from '../helpers.ts'

/** A fenced code block of a Markdown document. */
export interface CodeBlock {
  readonly document: string
  /** The fence's language: `ts`, `tsx`, `json`, `sh`, ... */
  readonly lang: string
  /** The repository file the block is, whole, when its fence says `file=<path>`. */
  readonly file: string | undefined
  /** The line of the block's first line of code. */
  readonly line: number
  readonly code: string
}

/** The code blocks of a document: ```` ```tsx file=examples/starter/src/App.tsx ```` marks a whole file. */
export function codeBlocks(document: string): CodeBlock[] {
  const text = readFileSync(join(repoRoot, document), 'utf8')
  return [...text.matchAll(/^```(\w*)([^\n]*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    document,
    lang: match[1]!,
    file: /\bfile=(\S+)/.exec(match[2]!)?.[1],
    line: text.slice(0, match.index).split('\n').length + 1,
    code: match[3]!,
  }))
}

/** Markdown files under `dir` (relative to the repository), recursively. */
export function markdownUnder(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md') && !entry.parentPath.includes('node_modules'))
    .map((entry) => join(entry.parentPath, entry.name).slice(repoRoot.length).replace(/^\//, ''))
    .sort()
}

/**
 * The guides whose code must stand on its own: every docs/**\/*.md (a guide added later is
 * included by the glob) and the package READMEs (their registry pages).
 */
export const guides = (): string[] => [
  ...markdownUnder('docs').filter((path) => !path.startsWith('docs/api/')),
  'packages/ai/README.md',
  'packages/ai-react/README.md',
]
