import { ANTHROPIC_STRICT_BUDGET } from './dialects/anthropic.ts'
import { measure, type SchemaSize } from './limits.ts'
import type { DefLookup, Plan } from './plan.ts'
import type { ProviderTarget } from './targets.ts'
import type { ProviderToolResult } from './types.ts'
import type { JsonSchema } from '../schema/types.ts'
import { deepFreeze } from '../util/deepFreeze.ts'

// Limits a provider puts on a whole request rather than on one tool. Anthropic's strict tool use
// (docs/provider-rules.md AS-L1, AS9, AS10) allows 20 strict tools per request, and 24 optional
// properties and 16 unions summed over all of them: each tool may fit while the list does not.
// Tools past the budget go non-strict, in order, each with a warning saying why: a request the
// API refuses helps nobody.

/** A tool converted for one target: the envelope, and the plan and definitions it was made from. */
export interface ToolConversion {
  readonly result: ProviderToolResult
  readonly plan: Plan
  readonly defs: DefLookup
}

export interface RequestTool {
  readonly conversion: ToolConversion
  /** The tool converted with `strict: false`, asked for only when it does not fit. */
  readonly nonStrict: () => ToolConversion
}

/** The conversions to send in one request, strict ones past the provider's request-wide limits relaxed. */
export function fitRequestLimits(target: ProviderTarget, tools: readonly RequestTool[]): ToolConversion[] {
  if (target !== 'anthropic') return tools.map((tool) => tool.conversion)
  const used = { tools: 0, optional: 0, unions: 0 }
  return tools.map(({ conversion, nonStrict }) => {
    const envelope = conversion.result.tool as { readonly strict?: boolean; readonly input_schema?: JsonSchema }
    if (envelope.strict !== true || envelope.input_schema === undefined) return conversion
    const size = measured(envelope.input_schema)
    const over = overBudget(used, size)
    if (over === undefined) {
      used.tools += 1
      used.optional += size.optional
      used.unions += size.unions
      return conversion
    }
    const relaxed = nonStrict()
    const warning = { path: '/inputSchema', code: 'STRICT_DISABLED' as const, message: `Sent with strict: false: ${over}` }
    return { ...relaxed, result: deepFreeze({ ...relaxed.result, warnings: [warning, ...relaxed.result.warnings] }) }
  })
}

/** Conversions are cached and frozen: each schema is measured once, however many requests send it. */
const sizes = new WeakMap<object, SchemaSize>()

function measured(schema: JsonSchema): SchemaSize {
  let size = sizes.get(schema)
  if (!size) sizes.set(schema, (size = measure(schema)))
  return size
}

function overBudget(used: { tools: number; optional: number; unions: number }, size: { optional: number; unions: number }): string | undefined {
  const { tools, optional, unions } = ANTHROPIC_STRICT_BUDGET
  if (used.tools + 1 > tools) return `Anthropic strict mode takes at most ${tools} strict tools per request`
  if (used.optional + size.optional > optional) {
    return `the request's strict tools would have ${used.optional + size.optional} optional properties; Anthropic strict mode allows ${optional} per request`
  }
  if (used.unions + size.unions > unions) {
    return `the request's strict tools would have ${used.unions + size.unions} properties with anyOf or a type array; Anthropic strict mode allows ${unions} per request`
  }
  return undefined
}
