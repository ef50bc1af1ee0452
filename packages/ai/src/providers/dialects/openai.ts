import type { JsonSchema } from '../../schema/types.ts'
import { isPrimitive, PASS_THROUGH, type Dialect } from '../dialect.ts'
import { measure } from '../limits.ts'
import type { EnvelopeParts } from './envelope.ts'

/** docs/provider-rules.md OA-N1. */
export const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** docs/provider-rules.md OA6: no `uri`. */
const OPENAI_FORMATS: ReadonlySet<string> = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'])

/** OA-SO supported constraints; `default` is refused ("'default' is not permitted"). */
const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  'title', 'description', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'minItems', 'maxItems',
])

export function openAiDialect(target: 'openai-chat' | 'openai-responses', strict: boolean): Dialect {
  if (!strict) return { ...PASS_THROUGH, target, label: 'OpenAI', wrapRootUnion: true }
  return {
    ...PASS_THROUGH,
    target,
    label: 'OpenAI strict mode',
    strict: true,
    passThrough: false,
    keywords: STRICT_KEYWORDS,
    formatAllowed: (format) => OPENAI_FORMATS.has(format),
    enumValueAllowed: isPrimitive,
    constAllowed: false,
    typeArrays: false,
    closedObjects: true,
    allRequired: true,
    openValues: false,
    tuples: false,
    // "$ref cannot have keywords {'description'}"
    refSiblings: false,
    wrapRootUnion: true,
    strictLimitExceeded: openAiStrictLimitExceeded,
  }
}

/** OA7–OA10: 5000 properties, 10 levels, 1000 enum values, 15,000 characters per large enum, 120,000 in all. */
function openAiStrictLimitExceeded(schema: JsonSchema): string | undefined {
  const size = measure(schema)
  if (size.properties > 5000) return `${size.properties} properties (limit 5000)`
  if (size.nesting > 10) return `${size.nesting} levels of object nesting (limit 10)`
  if (size.enumValues > 1000) return `${size.enumValues} enum values (limit 1000)`
  if (size.largeEnumChars > 15_000) return `a string enum of ${size.largeEnumChars} characters (limit 15,000)`
  if (size.chars > 120_000) return `${size.chars} characters of names and values (limit 120,000)`
  return undefined
}

export function openAiChatTool(parts: EnvelopeParts) {
  return {
    type: 'function' as const,
    function: { name: parts.name, description: parts.description, parameters: parts.parameters, strict: parts.strict },
  }
}

export function openAiResponsesTool(parts: EnvelopeParts) {
  return { type: 'function' as const, name: parts.name, description: parts.description, parameters: parts.parameters, strict: parts.strict }
}
