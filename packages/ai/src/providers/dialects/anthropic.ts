import type { JsonSchema } from '../../schema/types.ts'
import { isPrimitive, PASS_THROUGH, type Dialect } from '../dialect.ts'
import { measure } from '../limits.ts'
import type { EnvelopeParts } from './envelope.ts'

/** docs/provider-rules.md AN-N1. */
export const ANTHROPIC_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** The API answers other keys with "Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'". */
const PROPERTY_NAME = /^[a-zA-Z0-9_.-]{1,64}$/

/** AS5. */
const STRICT_FORMATS: ReadonlySet<string> = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid'])

/** AS2/AS3 leave only these (and `minItems` up to 1). */
const STRICT_KEYWORDS: ReadonlySet<string> = new Set(['title', 'description', 'default', 'pattern', 'format', 'minItems'])

/** AS-L1, AS9 and AS10, over all strict tools of a request; one tool may use them all. */
export const ANTHROPIC_STRICT_BUDGET = { tools: 20, optional: 24, unions: 16 } as const

export function anthropicDialect(strict: boolean): Dialect {
  if (!strict) return { ...PASS_THROUGH, target: 'anthropic', label: 'Anthropic', propertyName: PROPERTY_NAME }
  return {
    ...PASS_THROUGH,
    target: 'anthropic',
    label: 'Anthropic strict mode',
    strict: true,
    passThrough: false,
    recursion: 'forbid',
    keywords: STRICT_KEYWORDS,
    formatAllowed: (format) => STRICT_FORMATS.has(format),
    enumValueAllowed: isPrimitive,
    closedObjects: true,
    openValues: false,
    tuples: false,
    propertyName: PROPERTY_NAME,
    wrapRootUnion: true,
    minItemsCap: 1,
    patternAllowed: isSimplePattern,
    strictLimitExceeded: anthropicStrictLimitExceeded,
  }
}

function anthropicStrictLimitExceeded(schema: JsonSchema): string | undefined {
  const size = measure(schema)
  if (size.optional > ANTHROPIC_STRICT_BUDGET.optional) return `${size.optional} optional properties (limit ${ANTHROPIC_STRICT_BUDGET.optional})`
  if (size.unions > ANTHROPIC_STRICT_BUDGET.unions) return `${size.unions} properties with anyOf or a type array (limit ${ANTHROPIC_STRICT_BUDGET.unions})`
  return undefined
}

/** AS-RX: no backreferences, lookaround, word boundaries or large repetition counts. */
function isSimplePattern(pattern: string): boolean {
  if (/\\[1-9]|\\k<|\(\?<?[=!]|\\[bB]/.test(pattern)) return false
  for (const match of pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) {
    if (Number(match[1]) > 100 || (match[2] !== undefined && match[2] !== '' && Number(match[2]) > 100)) return false
  }
  return true
}

export function anthropicTool(parts: EnvelopeParts) {
  return {
    name: parts.name,
    description: parts.description,
    input_schema: parts.parameters as JsonSchema & { readonly type: 'object' },
    ...(parts.strict ? { strict: true as const } : {}),
  }
}
