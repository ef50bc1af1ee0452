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

Prints the tool (or bare schema) in <file.json> converted for the target to stdout,
and the conversion warnings to stderr. Exit 1 on unusable input, 2 on wrong usage.`

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
  if (typeof parsed === 'string') {
    io.stderr(`${parsed}\n\n${USAGE}\n`)
    return parsed === '' ? 0 : 2
  }
  let input: unknown
  try {
    input = JSON.parse(io.readFile(parsed.file))
  } catch (error) {
    io.stderr(`error: cannot read ${parsed.file} as JSON: ${error instanceof Error ? error.message : String(error)}\n`)
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

/** The parsed arguments, or a message (empty for `--help`). */
function parseArguments(argv: readonly string[]): Arguments | string {
  let file: string | undefined
  let target: string | undefined
  let strict = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === '--help' || arg === '-h') return ''
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
