import { execFileSync, type ExecFileSyncOptions } from 'node:child_process'
import { appendFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

// One way to find a free port for every test that starts a server.
export { freePort } from '../packages/ai/test/services/redis.ts'

export const repoRoot = fileURLToPath(new URL('..', import.meta.url))
export const bin = (name: string) => join(repoRoot, 'node_modules', '.bin', name)

/** Runs a command and returns its stdout; on failure the error carries stdout and stderr. */
export function run(command: string, args: readonly string[], options: ExecFileSyncOptions = {}): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: 'pipe', ...options }) as string
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error })
  }
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `toolgate-${prefix}-`))
}

/** `npm pack` of a workspace package (built already) into `destination`; returns the tarball's path. */
export function pack(workspace: 'ai' | 'ai-react', destination: string): string {
  run('npm', ['pack', '--silent', '--pack-destination', destination], { cwd: join(repoRoot, 'packages', workspace) })
  const tarball = readdirSync(destination).find((name) => name.startsWith(`toolgate-${workspace}-`) && name.endsWith('.tgz'))
  if (!tarball) throw new Error(`npm pack produced no tarball for ${workspace}`)
  return join(destination, tarball)
}

/**
 * Installs from the npm cache where it can (CI ran `npm ci` just before), the registry otherwise.
 * The project gets the repository's .npmrc beside its own settings: it lies outside the repository,
 * where a user's ~/.npmrc (install-strategy=linked, dry-run, ...) would decide how it installs.
 */
export function npmInstall(cwd: string): void {
  appendFileSync(join(cwd, '.npmrc'), readFileSync(join(repoRoot, '.npmrc'), 'utf8'))
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd })
}


/**
 * Type-checks `files` as an app that uses the published packages would (their `dist/` declarations,
 * strict, React JSX, DOM and Node types): the diagnostics, none when all is well.
 */
export function appTypeDiagnostics(files: readonly string[]): readonly ts.Diagnostic[] {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.ReactJSX,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: ['node'],
    typeRoots: [join(repoRoot, 'node_modules', '@types')],
  })
  return ts.getPreEmitDiagnostics(program)
}
