import type { JsonSchema } from '../schema/types.ts'
import { convertRoot } from './convert/root.ts'
import { ProviderSchemaError } from './ProviderSchemaError.ts'
import { StrictUnfit } from './convert/strictUnfit.ts'
import { DefTable, type ConvertContext, type OptionalProperty } from './convert/context.ts'
import type { Dialect } from './dialect.ts'
import { ANTHROPIC_STRICT_BUDGET } from './dialects/anthropic.ts'
import { upperCaseTypes } from './dialects/gemini.ts'
import { dialectFor } from './dialects/index.ts'
import { measure } from './limits.ts'
import { defLookup, type DefLookup, type Plan } from './plan.ts'
import { assertRefsResolve, RefResolver } from './refs.ts'
import type { ProviderTarget, ResolvedOptions } from './targets.ts'
import { WarningLog, type ProviderWarning } from './warnings.ts'

/** A converted schema with everything needed to map the model's values back. */
export interface SchemaConversion {
  readonly schema: JsonSchema
  readonly plan: Plan
  readonly defs: DefLookup
  readonly warnings: ProviderWarning[]
  /** Strict rules hold for `schema` (false when a limit forced non-strict). */
  readonly strict: boolean
}

interface Attempt extends SchemaConversion {
  readonly optionals: readonly OptionalProperty[]
}

const NOTHING_FORCED: ReadonlySet<string> = new Set()

/**
 * Converts a JSON Schema for a target. In strict mode it fits Anthropic's optional-property
 * budget when it can, and falls back to non-strict (with a `STRICT_DISABLED` warning) when a
 * strict-mode limit cannot be met: a non-strict tool works, a rejected one does not.
 */
export function convertSchema(schema: unknown, target: ProviderTarget, options: ResolvedOptions): SchemaConversion {
  const dialect = dialectFor(target, options)
  if (!dialect.strict) return attemptConversion(schema, dialect, NOTHING_FORCED)
  let attempt: Attempt
  try {
    attempt = attemptConversion(schema, dialect, NOTHING_FORCED)
  } catch (error) {
    if (error instanceof StrictUnfit) return nonStrict(schema, target, options, `${error.reason} (at ${error.path || '/'})`)
    // A recursive schema under a strict mode that forbids recursion (Anthropic's).
    if (!(error instanceof ProviderSchemaError) || error.code !== 'RECURSIVE_SCHEMA') throw error
    return nonStrict(schema, target, options, `${dialect.label} does not accept recursive schemas (at ${error.path})`)
  }
  if (target === 'anthropic') attempt = fitOptionalBudget(schema, dialect, attempt)
  const exceeded = dialect.strictLimitExceeded?.(attempt.schema)
  return exceeded === undefined ? attempt : nonStrict(schema, target, options, `the schema exceeds ${dialect.label} limits (${exceeded})`)
}

/** Strict mode cannot hold: the tool goes non-strict (a non-strict tool works, a rejected one does not). */
function nonStrict(schema: unknown, target: ProviderTarget, options: ResolvedOptions, why: string): SchemaConversion {
  const relaxed = attemptConversion(schema, dialectFor(target, { ...options, strict: false }), NOTHING_FORCED)
  return { ...relaxed, warnings: [{ path: '', code: 'STRICT_DISABLED', message: `Sent with strict: false: ${why}` }, ...relaxed.warnings] }
}

function attemptConversion(schema: unknown, dialect: Dialect, forceRequired: ReadonlySet<string>): Attempt {
  const refs = new RefResolver(schema)
  assertRefsResolve(schema, refs)
  const cx: ConvertContext = { dialect, refs, warnings: new WarningLog(), defs: new DefTable(), expanding: [], forceRequired, optionals: [], depth: 0, mergeDepth: 0 }
  const root = convertRoot(schema, cx)
  const defs = cx.defs.toJson()
  let out: JsonSchema = defs ? { ...root.schema, $defs: defs } : root.schema
  if (dialect.flavor === 'openapi') out = upperCaseTypes(out)
  return { schema: out, plan: root.plan, defs: defLookup(out), warnings: cx.warnings.list(), strict: dialect.strict, optionals: cx.optionals }
}

/**
 * AS9: at most 24 optional properties. Past that, some optional properties are made
 * required-and-nullable (as OpenAI strict does for all): first those that are unions already
 * (no cost against AS10's 16 unions), never-null ones before nullable ones, last ones first.
 */
function fitOptionalBudget(schema: unknown, dialect: Dialect, attempt: Attempt): Attempt {
  const excess = measure(attempt.schema).optional - ANTHROPIC_STRICT_BUDGET.optional
  if (excess <= 0) return attempt
  const unique = [...new Map(attempt.optionals.map((property) => [property.at, property])).values()].reverse()
  const cost = (property: OptionalProperty) => (property.nullable ? 2 : property.union ? 0 : 1)
  const chosen = unique.sort((a, b) => cost(a) - cost(b)).slice(0, excess)
  return attemptConversion(schema, dialect, new Set(chosen.map((property) => property.at)))
}
