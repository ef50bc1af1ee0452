/**
 * The public surface: every name each package.json export entry of @toolgate/ai and
 * @toolgate/ai-react exports (types and values, as the TypeScript checker resolves them), the
 * deprecated ones (`@deprecated`), and the names several entries export.
 *
 * Run: npx tsx scripts/count-exports.ts  (`--names` lists every entry's names)
 * `packages/ai/test/surface.test.ts` holds the total under its ceiling.
 */
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const PACKAGES = ['packages/ai', 'packages/ai-react'] as const

export interface EntryExports {
  /** `@toolgate/ai/server`, `@toolgate/ai-react`, … */
  readonly entry: string
  readonly names: readonly string[]
  readonly deprecated: readonly string[]
}

export interface Surface {
  readonly entries: readonly EntryExports[]
  /** Exported names over all entries (a name exported by two entries counts twice). */
  readonly total: number
  readonly distinct: number
  /** Names exported by two or more entries, with those entries. */
  readonly shared: ReadonlyMap<string, readonly string[]>
}

/** The source file of each export entry (its `@toolgate/source` condition), keyed by the entry's import path. */
function entryFiles(): Map<string, string> {
  const files = new Map<string, string>()
  for (const dir of PACKAGES) {
    const manifest = JSON.parse(readFileSync(join(repoRoot, dir, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> }
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      const source = typeof target === 'object' && target !== null ? (target as Record<string, unknown>)['@toolgate/source'] : undefined
      if (typeof source !== 'string') continue // ./package.json
      files.set(`${manifest.name}${subpath.slice(1)}`, join(repoRoot, dir, source))
    }
  }
  return files
}

export function countExports(): Surface {
  const files = entryFiles()
  const config = ts.getParsedCommandLineOfConfigFile(join(repoRoot, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })
  const program = ts.createProgram([...files.values()], { ...config?.options, noEmit: true })
  const checker = program.getTypeChecker()
  const entries: EntryExports[] = []
  for (const [entry, file] of files) {
    const source = program.getSourceFile(file)
    const module = source && checker.getSymbolAtLocation(source)
    if (!module) throw new Error(`${entry}: no module at ${file}`)
    const symbols = checker.getExportsOfModule(module)
    const deprecated = symbols.filter((symbol) => isDeprecated(checker, symbol)).map((symbol) => symbol.name)
    entries.push({ entry, names: symbols.map((symbol) => symbol.name).sort(), deprecated: deprecated.sort() })
  }
  const byName = new Map<string, string[]>()
  for (const { entry, names } of entries) for (const name of names) byName.set(name, [...(byName.get(name) ?? []), entry])
  return {
    entries,
    total: entries.reduce((sum, { names }) => sum + names.length, 0),
    distinct: byName.size,
    shared: new Map([...byName].filter(([, where]) => where.length > 1)),
  }
}

/** Deprecated where it is declared (`@deprecated` on the original, or on the re-export itself). */
function isDeprecated(checker: ts.TypeChecker, symbol: ts.Symbol): boolean {
  const tagged = (s: ts.Symbol) => s.getJsDocTags(checker).some((tag) => tag.name === 'deprecated')
  if (tagged(symbol)) return true
  return symbol.flags & ts.SymbolFlags.Alias ? tagged(checker.getAliasedSymbol(symbol)) : false
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const surface = countExports()
  for (const { entry, names, deprecated } of surface.entries) {
    console.log(`${entry.padEnd(34)} ${String(names.length).padStart(4)}${deprecated.length ? `  (${deprecated.length} deprecated: ${deprecated.join(', ')})` : ''}`)
    if (process.argv.includes('--names')) console.log(`  ${names.join(', ')}`)
  }
  console.log(`\n${surface.total} exported names over ${surface.entries.length} entry points (${surface.distinct} distinct; ${surface.shared.size} exported from two or more entries)`)
  for (const [name, where] of surface.shared) console.log(`  ${name}: ${where.join(', ')}`)
}
