import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../helpers.ts'

// docs/errors.md is true: the codes of the chat endpoint's table are exactly the codes a
// `ChatError` can carry (`ChatErrorCode`), and the library's table lists every code the library
// throws with a literal, each of them raised somewhere.

const source = join(repoRoot, 'packages', 'ai', 'src')
const doc = readFileSync(join(repoRoot, 'docs', 'errors.md'), 'utf8')
const [endpointSection, librarySection] = doc.split(/^## Thrown by the library$/m) as [string, string]

/** The codes in the first cell of each table row: `CODE` or `A` / `B` or `A`, `B`, ... */
const tableCodes = (section: string) =>
  [...section.matchAll(/^\| ([^|]+) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([A-Z][A-Z_]+)`/g)].map((c) => c[1]!))

/** The string literals of the union `ChatErrorCode`, as the compiler sees it. */
function chatErrorCodes(): string[] {
  const file = join(source, 'client', 'chatError.ts')
  const program = ts.createProgram([file], { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, allowImportingTsExtensions: true, noEmit: true, strict: true })
  const checker = program.getTypeChecker()
  const alias = program.getSourceFile(file)!.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === 'ChatErrorCode')!
  const type = checker.getTypeAtLocation(alias.name)
  return (type.isUnion() ? type.types : [type]).map((t) => (t as ts.StringLiteralType).value).sort()
}

const sources = readdirSync(source, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
  .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))

/** Codes given as literals to a ToolgateError: `super('CODE', ...)`, `new ToolgateError('CODE', ...)`, `code = 'CODE'`, `super(a, b, c, 'CODE')`. */
const thrownCodes = [...new Set(sources.flatMap((text) => [
  ...text.matchAll(/(?:super|new ToolgateError)\(\s*'([A-Z][A-Z_]+)'/g),
  ...text.matchAll(/\bcode = '([A-Z][A-Z_]+)'\)/g),
  ...text.matchAll(/super\([^()']*, '([A-Z][A-Z_]+)'\)/g),
].map((m) => m[1]!)))].sort()

describe('docs/errors.md', () => {
  it('lists exactly the codes a ChatError carries, in the endpoint table', () => {
    const codes = chatErrorCodes()
    expect(codes).toEqual(expect.arrayContaining(['INTERNAL', 'NETWORK', 'BAD_RESPONSE', 'UNREACHABLE']))
    expect([...new Set(tableCodes(endpointSection))].sort()).toEqual(codes)
  })

  it('lists every code the library throws', () => {
    expect(thrownCodes).toEqual(expect.arrayContaining(['TOOL_DEFINITION', 'INVALID_OPTION', 'TOOL_DENIED', 'SCHEMA_CONVERSION']))
    const documented = new Set([...tableCodes(endpointSection), ...tableCodes(librarySection)])
    expect(thrownCodes.filter((code) => !documented.has(code))).toEqual([])
  })

  it('lists no library code that is never raised', () => {
    const all = sources.join('\n')
    expect(tableCodes(librarySection).filter((code) => !all.includes(`'${code}'`))).toEqual([])
  })
})
