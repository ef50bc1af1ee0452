import { shortJson } from './json.ts'

/**
 * A keyword as a short sentence a model can follow, for dialects that cannot carry the keyword
 * itself. Sentences are plain and name the bound, so the model still respects it.
 */
export function describeKeyword(keyword: string, value: unknown, node: Readonly<Record<string, unknown>> = {}): string {
  switch (keyword) {
    case 'minimum': return `Minimum ${value}.`
    case 'maximum': return `Maximum ${value}.`
    case 'exclusiveMinimum': return `Greater than ${value === true ? node.minimum : value}.`
    case 'exclusiveMaximum': return `Less than ${value === true ? node.maximum : value}.`
    case 'multipleOf': return `A multiple of ${value}.`
    case 'minLength': return `At least ${count(value, 'character')}.`
    case 'maxLength': return `At most ${count(value, 'character')}.`
    case 'pattern': return `Matches the regular expression ${value}.`
    case 'format': return `Format: ${value}.`
    case 'minItems': return `At least ${count(value, 'item')}.`
    case 'maxItems': return `At most ${count(value, 'item')}.`
    case 'uniqueItems': return value === true ? 'Items must be unique.' : ''
    case 'contains': return `At least one item matches ${shortJson(value)}.`
    case 'minContains': return `At least ${count(value, 'item')} match the "contains" rule.`
    case 'maxContains': return `At most ${count(value, 'item')} match the "contains" rule.`
    case 'minProperties': return `At least ${count(value, 'entry', 'entries')}.`
    case 'maxProperties': return `At most ${count(value, 'entry', 'entries')}.`
    case 'propertyNames': return `Keys match ${shortJson(value)}.`
    case 'patternProperties': return `Keys matching a pattern take these values: ${shortJson(value)}.`
    case 'dependentRequired': return describeDependentRequired(value)
    case 'dependentSchemas': return `When a key is given, the object also matches: ${shortJson(value)}.`
    case 'dependencies': return describeDependencies(value)
    case 'not': return `Must not match ${shortJson(value)}.`
    case 'if': return describeConditional(node)
    case 'then':
    case 'else': return '' // told together with `if`
    case 'contentMediaType': return `Content type ${value}.`
    case 'contentEncoding': return `Encoded as ${value}.`
    case 'contentSchema': return `Its content matches ${shortJson(value)}.`
    case 'default': return `Default: ${shortJson(value)}.`
    case 'examples': return Array.isArray(value) && value.length > 0 ? `Example: ${shortJson(value[0])}.` : ''
    case 'example': return `Example: ${shortJson(value)}.`
    case 'deprecated': return value === true ? 'Deprecated.' : ''
    case 'const': return `Always ${shortJson(value)}.`
    default: return `${keyword}: ${shortJson(value)}.`
  }
}

function count(value: unknown, one: string, many = `${one}s`): string {
  return `${value} ${value === 1 ? one : many}`
}

function describeDependentRequired(value: unknown): string {
  if (typeof value !== 'object' || value === null) return ''
  return Object.entries(value)
    .filter(([, needed]) => Array.isArray(needed) && needed.length > 0)
    .map(([key, needed]) => `If "${key}" is given, also give ${(needed as unknown[]).map((n) => `"${String(n)}"`).join(', ')}.`)
    .join(' ')
}

/** draft-07 `dependencies`: lists of keys and schemas, mixed. */
function describeDependencies(value: unknown): string {
  if (typeof value !== 'object' || value === null) return ''
  const entries = Object.entries(value)
  const lists = Object.fromEntries(entries.filter(([, dependency]) => Array.isArray(dependency)))
  const schemas = Object.fromEntries(entries.filter(([, dependency]) => !Array.isArray(dependency)))
  return [describeDependentRequired(lists), Object.keys(schemas).length > 0 ? describeKeyword('dependentSchemas', schemas) : ''].filter(Boolean).join(' ')
}

function describeConditional(node: Readonly<Record<string, unknown>>): string {
  const then = node.then === undefined ? '' : ` it must match ${shortJson(node.then)}`
  const otherwise = node.else === undefined ? '' : `${then ? ';' : ''} otherwise it must match ${shortJson(node.else)}`
  return `If it matches ${shortJson(node.if)},${then}${otherwise}.`
}

/** Appends sentences to a description, keeping the author's text first. */
export function withNotes(description: unknown, notes: readonly string[]): string | undefined {
  const parts = [typeof description === 'string' ? description.trim() : '', ...notes].filter((part) => part !== '')
  if (parts.length === 0) return undefined
  return parts.map((part) => (/[.!?:)\]]$/.test(part) ? part : `${part}.`)).join(' ')
}
