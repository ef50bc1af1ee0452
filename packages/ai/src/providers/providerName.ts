import type { AnyTool } from '../tools/types.ts'
import { TARGET_SPECS } from './dialects/index.ts'
import { ProviderSchemaError } from './ProviderSchemaError.ts'
import { assertProviderTarget, type ProviderTarget } from './targets.ts'

const memo = new Map<string, string>()

/**
 * The name a tool goes by under a target. A name the target accepts is kept; any other becomes
 * its readable part (`[A-Za-z0-9_]`, starting with a letter) plus `_` and a hash of the whole
 * name, e.g. `admin.tools.list` → `admin_tools_list_0m4zq7k` under OpenAI. Deterministic, and
 * the hash keeps two different names from meeting; map back with `fromProviderName`.
 */
export function providerToolName(name: string, target: ProviderTarget): string {
  assertProviderTarget(target)
  if (typeof name !== 'string' || name === '') throw new ProviderSchemaError('INVALID_TOOL_NAME', '/name', 'A tool needs a non-empty name')
  const key = `${target}\u0000${name}`
  let mapped = memo.get(key)
  if (mapped === undefined) {
    mapped = mapName(name, target)
    if (memo.size >= 10_000) memo.clear()
    memo.set(key, mapped)
  }
  return mapped
}

function mapName(name: string, target: ProviderTarget): string {
  const spec = TARGET_SPECS[target]
  if (spec.name.test(name)) return name
  const suffix = `_${hashName(name)}`
  let base = name.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '')
  if (base === '') base = 'tool'
  else if (!/^[A-Za-z]/.test(base)) base = `tool_${base}`
  return base.slice(0, spec.maxNameLength - suffix.length) + suffix
}

/** FNV-1a (32 bits) in base 36, always 7 characters. */
function hashName(name: string): string {
  let hash = 0x811c9dc5
  for (const char of name) {
    hash ^= char.codePointAt(0) as number
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0).toString(36).padStart(7, '0')
}

/**
 * The tool a provider's function name refers to, among the tools sent, or `undefined`.
 * Throws `NAME_COLLISION` when two of the tools go by that name.
 */
export function fromProviderName<TTool extends AnyTool>(tools: Iterable<TTool>, target: ProviderTarget, providerName: string): TTool | undefined {
  let found: TTool | undefined
  for (const tool of tools) {
    if (providerToolName(tool.name, target) !== providerName) continue
    if (found && found.name !== tool.name) {
      throw new ProviderSchemaError('NAME_COLLISION', '/name', `Tools "${found.name}" and "${tool.name}" both go by "${providerName}" under ${target}`)
    }
    found ??= tool
  }
  return found
}
