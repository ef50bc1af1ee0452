#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { ToolgateError } from '../errors.ts'
import { isPlainObject } from '../util/isPlainObject.ts'
import { isProviderTarget, PROVIDER_TARGETS, resolveOptions, type McpToolAnnotations, type ProviderTarget } from './targets.ts'
import { toProviderSchema } from './toProviderSchema.ts'
import { convertTool } from './toProviderTool.ts'
import type { ProviderWarning } from './warnings.ts'

/** Where the CLI reads and writes; the real process by default, strings in tests. */
export interface CliIo {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly readFile: (path: string) => string
}

const USAGE = `Usage: toolgate-schema <file.json> --target <${PROVIDER_TARGETS.join('|')}> [--strict]
       toolgate-schema --help | --version

Prints the tool (or bare schema) in <file.json> converted for the target to stdout,
and the conversion warnings to stderr. A tool file is { name, description, inputSchema,
outputSchema?, title?, annotations? }; any other object is read as a bare JSON Schema.
Exit 1 on unusable input, 2 on wrong usage.`

const nodeIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readFile: (path) => readFileSync(path, 'utf8'),
}

interface Arguments {
  readonly file: string
  readonly target: ProviderTarget
  readonly strict: boolean
}

/**
 * `toolgate-schema <file.json> --target <target> [--strict]`. The file holds a tool
 * (`{ name, description, inputSchema, outputSchema?, title?, annotations? }`) or a bare JSON
 * Schema. Returns the exit code.
 */
export function main(argv: readonly string[], io: CliIo = nodeIo): number {
  const parsed = parseArguments(argv)
  if (parsed === 'help') {
    io.stdout(`${USAGE}\n`)
    return 0
  }
  if (parsed === 'version') {
    io.stdout(`${packageVersion()}\n`)
    return 0
  }
  if (typeof parsed === 'string') {
    io.stderr(`${parsed}\n\n${USAGE}\n`)
    return 2
  }
  let input: unknown
  try {
    input = JSON.parse(io.readFile(parsed.file))
  } catch (error) {
    io.stderr(`error: cannot read ${parsed.file} as JSON: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  }
  const problem = toolFileProblem(input)
  if (problem) {
    io.stderr(`error: ${parsed.file}: ${problem}\n`)
    return 1
  }
  try {
    const { output, warnings } = convert(input, parsed)
    io.stdout(`${JSON.stringify(output, null, 2)}\n`)
    for (const warning of warnings) io.stderr(`warning ${warning.code} ${warning.path || '#'}: ${warning.message}\n`)
    return 0
  } catch (error) {
    if (!(error instanceof ToolgateError)) throw error
    io.stderr(`error ${error.code}: ${error.message}\n`)
    return 1
  }
}

function convert(input: unknown, { target, strict }: Arguments): { output: unknown; warnings: readonly ProviderWarning[] } {
  const options = resolveOptions(target, { strict })
  if (isToolFile(input)) {
    const { result } = convertTool(
      {
        name: input.name,
        description: typeof input.description === 'string' ? input.description : '',
        title: typeof input.title === 'string' ? input.title : undefined,
        inputSchema: input.inputSchema,
        outputSchema: () => input.outputSchema,
        annotations: isPlainObject(input.annotations) ? (input.annotations as McpToolAnnotations) : undefined,
      },
      target,
      options,
    )
    return { output: result.tool, warnings: result.warnings }
  }
  const result = toProviderSchema(input as boolean, target, { strict })
  return { output: result.schema, warnings: result.warnings }
}

function isToolFile(input: unknown): input is { name: string; inputSchema: unknown } & Record<string, unknown> {
  return isPlainObject(input) && typeof input.name === 'string' && 'inputSchema' in input
}

/**
 * Why an object that looks like a tool file is not one, or `undefined`. A bare schema has no
 * `name`, so a file with a `name` but no `inputSchema` (often a misspelt one) is a broken tool
 * file, not a schema that accepts anything.
 */
function toolFileProblem(input: unknown): string | undefined {
  if (!isPlainObject(input)) return undefined
  const misspelt = Object.keys(input).find((key) => key !== 'inputSchema' && looksLikeInputSchema(key))
  if ('inputSchema' in input) {
    if (typeof input.name !== 'string' || input.name === '') return 'a tool file needs a non-empty string `name`'
    return undefined
  }
  if (misspelt !== undefined) return `unknown key \`${misspelt}\`: did you mean \`inputSchema\`?`
  if ('name' in input) return 'a tool file needs an `inputSchema` (a file with a `name` is not read as a bare schema)'
  return undefined
}

/** `input_schema`, `inputschema`, `inputSchem`, `parameters`: what people write for `inputSchema`. */
function looksLikeInputSchema(key: string): boolean {
  const plain = key.toLowerCase().replace(/[_-]/g, '')
  return plain === 'parameters' || editDistance(plain, 'inputschema') <= 2
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

function packageVersion(): string {
  // src/providers/cli.ts and dist/providers/cli.js are both two levels below package.json.
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  return version
}

/** The parsed arguments, `help`, `version`, or an error message. */
function parseArguments(argv: readonly string[]): Arguments | string {
  let file: string | undefined
  let target: string | undefined
  let strict = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === '--help' || arg === '-h') return 'help'
    else if (arg === '--version' || arg === '-v') return 'version'
    else if (arg === '--strict') strict = true
    else if (arg === '--target') target = argv[++i]
    else if (arg.startsWith('--target=')) target = arg.slice('--target='.length)
    else if (arg.startsWith('-')) return `error: unknown option ${arg}`
    else if (file === undefined) file = arg
    else return `error: unexpected argument ${arg}`
  }
  if (file === undefined) return 'error: no input file'
  if (target === undefined) return 'error: --target is required'
  if (!isProviderTarget(target)) return `error: unknown target ${JSON.stringify(target)}`
  return { file, target, strict }
}

/** True when this module is the program being run (also through an npm bin symlink). */
function isMainModule(): boolean {
  const entry = process.argv[1]
  if (entry === undefined) return false
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (isMainModule()) process.exitCode = main(process.argv.slice(2))
