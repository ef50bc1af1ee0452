import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { JsonSchema } from '../../../schema/types.ts'
import { validateJsonSchema } from '../../../schema/validateJsonSchema.ts'
import { isRecord } from '../../../util/isRecord.ts'
import { linearRegex, UnboundedPatternError, type LinearRegex } from './linearRegex.ts'

// Regular expressions in a client's JSON Schema are untrusted: the JSON Schema validator runs them
// with the platform's backtracking engine, where `^(a+)+$` takes seconds on 30 characters and
// `^a*a*a*$` grows with the cube of its input, blocking every client. So the server never hands
// them to it: each `pattern` the validator would meet is taken out of the schema it validates
// with, and run by a linear-time engine (linearRegex.ts) on the value at its place. Patterns where
// the place of their value depends on other keywords (under `anyOf`, `not`, `if`, a `$ref`, ...),
// `patternProperties`, and patterns that engine cannot run (backreferences, lookaround) are refused
// with a 400 naming their path; the app can still declare such a tool on the server, where its
// schema is trusted.

/** A step from a value to the values a pattern applies to. */
type Step =
  | { readonly key: string }
  | { readonly index: number }
  | { readonly each: true } // every item of an array
  | { readonly except: ReadonlySet<string> } // every property not among these (`additionalProperties`)
  | { readonly names: true } // every property name (`propertyNames`)

interface PatternCheck {
  readonly steps: readonly Step[]
  readonly pattern: string
  readonly regex: LinearRegex
}

/** A client schema whose patterns are not for the platform's engine: where it is not safe to run, and why. */
export class UnsafePatternError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(reason)
  }
}

/** Subschema keywords whose values apply at a place that depends on the value: a pattern under them is refused. */
const ELSEWHERE = ['anyOf', 'oneOf', 'not', 'if', 'then', 'else', '$defs', 'definitions', 'dependentSchemas', 'dependencies', 'contains', 'additionalItems', 'unevaluatedItems', 'unevaluatedProperties']

/**
 * The client's schema with its patterns run by the linear-time engine: a Standard Schema that
 * emits the schema as the client declared it (the model is told the patterns) and validates with
 * the platform's validator minus the patterns, then each pattern on the values at its place.
 * `undefined` when the schema holds no pattern. Throws `UnsafePatternError`.
 */
export function withLinearPatterns(schema: Record<string, unknown>, path: string): StandardSchemaV1 & { readonly '~standard': { readonly jsonSchema: object } } | undefined {
  const stripped = structuredClone(schema)
  const checks: PatternCheck[] = []
  collect(stripped, [], path, checks, 0)
  if (checks.length === 0) return undefined
  const emit = () => schema
  return {
    '~standard': {
      version: 1,
      vendor: 'toolgate',
      validate: (value) => {
        const issues = [...validateJsonSchema(stripped as JsonSchema, value)]
        for (const check of checks) visit(value, check, 0, [], issues)
        return issues.length > 0 ? { issues } : { value }
      },
      jsonSchema: { input: emit, output: emit },
    },
  } as StandardSchemaV1 & { readonly '~standard': { readonly jsonSchema: object } }
}

/** Records the patterns of `node` (and takes them out of it), reached from the value by `steps`. */
function collect(node: unknown, steps: readonly Step[], path: string, checks: PatternCheck[], depth: number): void {
  if (!isRecord(node)) return
  if (depth > 64) throw new UnsafePatternError(path, 'it nests deeper than 64 levels')
  if (typeof node.pattern === 'string') {
    checks.push({ steps, pattern: node.pattern, regex: compiled(node.pattern, `${path}.pattern`) })
    delete node.pattern
  }
  if (isRecord(node.patternProperties) && Object.keys(node.patternProperties).length > 0) {
    throw new UnsafePatternError(`${path}.patternProperties`, '`patternProperties` are run by a backtracking engine on the model’s property names (name them in `properties`)')
  }
  for (const keyword of ELSEWHERE) {
    const found = anyPattern(node[keyword], `${path}.${keyword}`, depth + 1)
    if (found) throw new UnsafePatternError(found, `a pattern under \`${keyword}\` applies where other keywords decide, and is not run for a client (use \`properties\`, \`items\` or \`allOf\`)`)
  }
  if (isRecord(node.properties)) {
    for (const [key, sub] of Object.entries(node.properties)) collect(sub, [...steps, { key }], `${path}.properties.${key}`, checks, depth + 1)
  }
  if (isRecord(node.additionalProperties)) {
    const known = new Set(isRecord(node.properties) ? Object.keys(node.properties) : [])
    collect(node.additionalProperties, [...steps, { except: known }], `${path}.additionalProperties`, checks, depth + 1)
  }
  if (isRecord(node.propertyNames)) collectNames(node.propertyNames, steps, `${path}.propertyNames`, checks, depth + 1)
  if (Array.isArray(node.prefixItems)) node.prefixItems.forEach((sub, index) => collect(sub, [...steps, { index }], `${path}.prefixItems[${index}]`, checks, depth + 1))
  if (Array.isArray(node.items)) node.items.forEach((sub, index) => collect(sub, [...steps, { index }], `${path}.items[${index}]`, checks, depth + 1))
  else if (isRecord(node.items)) {
    // After `prefixItems`, `items` applies to the rest only: its patterns are refused there rather than misplaced.
    if (Array.isArray(node.prefixItems)) {
      const found = anyPattern(node.items, `${path}.items`, depth + 1)
      if (found) throw new UnsafePatternError(found, 'a pattern under `items` beside `prefixItems` is not run for a client')
    } else collect(node.items, [...steps, { each: true }], `${path}.items`, checks, depth + 1)
  }
  if (Array.isArray(node.allOf)) node.allOf.forEach((sub, index) => collect(sub, steps, `${path}.allOf[${index}]`, checks, depth + 1))
}

/** `propertyNames`: its own `pattern` applies to each name; any deeper one is refused. */
function collectNames(node: Record<string, unknown>, steps: readonly Step[], path: string, checks: PatternCheck[], depth: number): void {
  const { pattern, ...rest } = node
  const found = anyPattern(rest, path, depth)
  if (found) throw new UnsafePatternError(found, 'a pattern under `propertyNames` other than its own is not run for a client')
  if (typeof pattern !== 'string') return
  checks.push({ steps: [...steps, { names: true }], pattern, regex: compiled(pattern, `${path}.pattern`) })
  delete node.pattern
}

function compiled(pattern: string, path: string): LinearRegex {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new UnsafePatternError(path, `it is longer than ${MAX_PATTERN_LENGTH} characters`)
  try {
    return linearRegex(pattern)
  } catch (error) {
    if (error instanceof UnboundedPatternError) throw new UnsafePatternError(path, error.message)
    throw new UnsafePatternError(path, `it is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`)
  }
}

const MAX_PATTERN_LENGTH = 1000

/** The path of the first `pattern` keyword (or `patternProperties`) anywhere under `node`, conservatively. */
function anyPattern(node: unknown, path: string, depth: number): string | undefined {
  if (node === null || typeof node !== 'object' || depth > 64) return undefined
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) {
      const found = anyPattern(item, `${path}[${index}]`, depth + 1)
      if (found) return found
    }
    return undefined
  }
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'pattern' && typeof value === 'string') || (key === 'patternProperties' && isRecord(value) && Object.keys(value).length > 0)) return `${path}.${key}`
    const found = anyPattern(value, `${path}.${key}`, depth + 1)
    if (found) return found
  }
  return undefined
}

/** Runs `check` on the values `steps` lead to from `value`, adding an issue for each that does not match. */
function visit(value: unknown, check: PatternCheck, at: number, path: (string | number)[], issues: StandardSchemaV1.Issue[]): void {
  const step = check.steps[at]
  if (step === undefined) {
    if (typeof value === 'string' && !check.regex.test(value)) issues.push({ message: `Expected to match the pattern ${check.pattern}`, path })
    return
  }
  if ('index' in step || 'each' in step) {
    if (!Array.isArray(value)) return
    if ('index' in step) return step.index < value.length ? visit(value[step.index], check, at + 1, [...path, step.index], issues) : undefined
    return value.forEach((item, index) => visit(item, check, at + 1, [...path, index], issues))
  }
  if (!isRecord(value)) return
  if ('key' in step) return Object.hasOwn(value, step.key) ? visit(value[step.key], check, at + 1, [...path, step.key], issues) : undefined
  for (const [key, item] of Object.entries(value)) {
    if ('except' in step && !step.except.has(key)) visit(item, check, at + 1, [...path, key], issues)
    if ('names' in step && !check.regex.test(key)) issues.push({ message: `Expected property names to match the pattern ${check.pattern}`, path: [...path, key] })
  }
}
