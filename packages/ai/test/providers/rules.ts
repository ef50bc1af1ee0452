/**
 * The ✔ rules of docs/provider-rules.md (repository root) as predicates: one per rule ID, each
 * returning where the rule fails (a JSON Pointer into the parameter schema, or `/name`), or
 * `undefined` when it holds. Written independently of the converter, from the rule text.
 */
import type { ProviderTarget } from '@toolgate/ai/providers'

type Schema = Record<string, unknown>

export interface RuleFailure {
  readonly rule: string
  readonly path: string
  readonly message: string
}

/** What a rule looks at: the envelope's name and parameter schema, and whether strict mode is on. */
export interface RuleSubject {
  readonly name: string
  /** Undefined when the envelope sends no parameters (Gemini, a tool without any). */
  readonly schema: Schema | undefined
  readonly strict: boolean
}

export interface Rule {
  readonly id: string
  readonly check: (subject: RuleSubject) => Omit<RuleFailure, 'rule'> | undefined
}

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value)
const esc = (token: string | number) => String(token).replace(/~/g, '~0').replace(/\//g, '~1')

interface Visited {
  readonly node: Schema
  readonly path: string
}

/** Every node, as the rules define it: reachable through the listed keywords, `$ref` not followed. */
export function everyNode(schema: Schema | undefined): Visited[] {
  const out: Visited[] = []
  const visit = (node: unknown, path: string) => {
    if (!isObject(node)) return
    out.push({ node, path })
    for (const keyword of ['properties', '$defs', 'definitions', 'patternProperties']) {
      const map = node[keyword]
      if (isObject(map)) for (const [key, child] of Object.entries(map)) visit(child, `${path}/${keyword}/${esc(key)}`)
    }
    if (Array.isArray(node.items)) node.items.forEach((child, i) => visit(child, `${path}/items/${i}`))
    else visit(node.items, `${path}/items`)
    for (const keyword of ['prefixItems', 'anyOf', 'oneOf', 'allOf']) {
      const list = node[keyword]
      if (Array.isArray(list)) list.forEach((child, i) => visit(child, `${path}/${keyword}/${i}`))
    }
    for (const keyword of ['additionalProperties', 'not', 'if', 'then', 'else']) visit(node[keyword], `${path}/${keyword}`)
  }
  visit(schema, '')
  return out
}

function isObjectNode(node: Schema): boolean {
  const type = node.type
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || isObject(node.properties)
}

/** The first node failing `bad`, as a failure. */
function firstNode(schema: Schema | undefined, bad: (node: Schema) => string | undefined, suffix = ''): Omit<RuleFailure, 'rule'> | undefined {
  for (const { node, path } of everyNode(schema)) {
    const message = bad(node)
    if (message !== undefined) return { path: path + suffix, message }
  }
  return undefined
}

function nameRule(id: string, pattern: RegExp): Rule {
  return { id, check: ({ name }) => (pattern.test(name) ? undefined : { path: '/name', message: `name ${JSON.stringify(name)} does not match ${pattern}` }) }
}

function rootType(id: string, expected: string): Rule {
  return {
    id,
    check: ({ schema }) => (schema === undefined || schema.type === expected ? undefined : { path: '/type', message: `root type is ${JSON.stringify(schema.type)}, expected ${expected}` }),
  }
}

function noKeywords(id: string, keywords: readonly string[]): Rule {
  return {
    id,
    check: ({ schema }) => {
      for (const { node, path } of everyNode(schema)) {
        const found = keywords.find((keyword) => keyword in node)
        if (found) return { path: `${path}/${found}`, message: `"${found}" is not allowed` }
      }
      return undefined
    },
  }
}

function formatRule(id: string, formats: readonly string[]): Rule {
  return {
    id,
    check: ({ schema }) =>
      firstNode(schema, (node) => (node.format === undefined || formats.includes(node.format as string) ? undefined : `format ${JSON.stringify(node.format)} is not in the list`)),
  }
}

/** Property keys anywhere in the schema. */
function propertyNameRule(id: string, pattern: RegExp): Rule {
  return {
    id,
    check: ({ schema }) => {
      for (const { node, path } of everyNode(schema)) {
        if (!isObject(node.properties)) continue
        const bad = Object.keys(node.properties).find((key) => !pattern.test(key))
        if (bad !== undefined) return { path: `${path}/properties/${esc(bad)}`, message: `property name ${JSON.stringify(bad)} does not match ${pattern}` }
      }
      return undefined
    },
  }
}

/** Counts over all `properties` maps. */
function countProperties(schema: Schema | undefined, counts: (node: Schema, key: string, child: unknown) => boolean): number {
  let total = 0
  for (const { node } of everyNode(schema)) {
    if (isObject(node.properties)) for (const [key, child] of Object.entries(node.properties)) if (counts(node, key, child)) total++
  }
  return total
}

function objectNesting(node: unknown, depth = 0): number {
  if (!isObject(node)) return depth
  const here = depth + (isObjectNode(node) ? 1 : 0)
  let deepest = here
  const children: unknown[] = []
  if (isObject(node.properties)) children.push(...Object.values(node.properties))
  if (isObject(node.$defs)) children.push(...Object.values(node.$defs))
  for (const keyword of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) if (Array.isArray(node[keyword])) children.push(...(node[keyword] as unknown[]))
  children.push(node.items, node.additionalProperties)
  for (const child of children) deepest = Math.max(deepest, objectNesting(child, here))
  return deepest
}

/** Local `$ref` targets, for the recursion rule. */
function resolveLocal(root: Schema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined
  let node: unknown = root
  for (const token of ref.slice(1).split('/').slice(1)) node = isObject(node) ? node[token.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined
  return node
}

function findCycle(root: Schema | undefined): string | undefined {
  if (!root) return undefined
  const refsUnder = (node: unknown) => everyNode(isObject(node) ? node : undefined).filter(({ node: n }) => typeof n.$ref === 'string')
  const visiting = new Set<unknown>()
  const done = new Set<unknown>()
  const dfs = (node: unknown): string | undefined => {
    if (done.has(node)) return undefined
    if (visiting.has(node)) return ''
    visiting.add(node)
    for (const { node: refNode, path } of refsUnder(node)) {
      const target = resolveLocal(root, refNode.$ref as string)
      if (target === undefined) continue
      const found = dfs(target)
      if (found !== undefined) return `${path}/$ref`
    }
    visiting.delete(node)
    done.add(node)
    return undefined
  }
  return dfs(root)
}

const OPENAI_FORMATS = ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']
const ANTHROPIC_FORMATS = [...OPENAI_FORMATS, 'uri']
const GEMINI_FIELDS = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required', 'minProperties', 'maxProperties',
  'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering', 'default', 'items', 'minimum', 'maximum',
])
const GEMINI_TYPES = ['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL']

const ALL_RULES: readonly Rule[] = [
  // A. OpenAI
  nameRule('OA-N1', /^[a-zA-Z0-9_-]{1,64}$/),
  rootType('OA1', 'object'),
  { id: 'OA2', check: ({ schema }) => (schema?.anyOf === undefined ? undefined : { path: '/anyOf', message: 'root anyOf' }) },
  { id: 'OA3', check: ({ schema }) => firstNode(schema, (n) => (isObjectNode(n) && n.additionalProperties !== false ? 'object node without additionalProperties: false' : undefined)) },
  {
    id: 'OA4',
    check: ({ schema }) =>
      firstNode(schema, (n) => {
        if (!isObjectNode(n) || !isObject(n.properties)) return undefined
        const required = new Set(Array.isArray(n.required) ? n.required : [])
        const missing = Object.keys(n.properties).find((key) => !required.has(key))
        return missing === undefined ? undefined : `property "${missing}" is not required`
      }),
  },
  noKeywords('OA5', ['allOf', 'not', 'dependentRequired', 'dependentSchemas', 'if', 'then', 'else']),
  noKeywords('OA5b', ['oneOf']),
  formatRule('OA6', OPENAI_FORMATS),
  { id: 'OA7', check: ({ schema }) => { const n = countProperties(schema, () => true); return n <= 5000 ? undefined : { path: '', message: `${n} properties` } } },
  { id: 'OA8', check: ({ schema }) => { const n = objectNesting(schema); return n <= 10 ? undefined : { path: '', message: `${n} levels of nesting` } } },
  {
    id: 'OA9',
    check: ({ schema }) => {
      let total = 0
      for (const { node, path } of everyNode(schema)) {
        if (!Array.isArray(node.enum)) continue
        total += node.enum.length
        const strings = node.enum.filter((v): v is string => typeof v === 'string')
        if (strings.length > 250 && strings.reduce((s, v) => s + v.length, 0) > 15_000) return { path: `${path}/enum`, message: 'large string enum over 15,000 characters' }
      }
      return total <= 1000 ? undefined : { path: '', message: `${total} enum values` }
    },
  },
  {
    id: 'OA10',
    check: ({ schema }) => {
      let total = 0
      for (const { node } of everyNode(schema)) {
        if (isObject(node.properties)) total += Object.keys(node.properties).reduce((s, k) => s + k.length, 0)
        for (const defs of [node.$defs, node.definitions]) if (isObject(defs)) total += Object.keys(defs).reduce((s, k) => s + k.length, 0)
        if (Array.isArray(node.enum)) total += node.enum.reduce((s: number, v) => s + (typeof v === 'string' ? v.length : 0), 0)
        if (typeof node.const === 'string') total += node.const.length
      }
      return total <= 120_000 ? undefined : { path: '', message: `${total} characters` }
    },
  },
  // B. Anthropic
  nameRule('AN-N1', /^[a-zA-Z0-9_-]{1,64}$/),
  rootType('AN1', 'object'),
  // Not in the reference: the API's own error "Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'".
  propertyNameRule('AN-P1', /^[a-zA-Z0-9_.-]{1,64}$/),
  { id: 'AS1', check: ({ schema }) => firstNode(schema, (n) => (isObjectNode(n) && n.additionalProperties !== false ? 'object node without additionalProperties: false' : undefined)) },
  noKeywords('AS2', ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains']),
  { id: 'AS3', check: ({ schema }) => firstNode(schema, (n) => (n.minItems === undefined || n.minItems === 0 || n.minItems === 1 ? undefined : `minItems ${n.minItems}`), '/minItems') },
  {
    id: 'AS4',
    check: ({ schema }) =>
      firstNode(schema, (n) => (Array.isArray(n.enum) && n.enum.some((v) => typeof v === 'object' && v !== null) ? 'enum value that is not a primitive' : undefined), '/enum'),
  },
  formatRule('AS5', ANTHROPIC_FORMATS),
  { id: 'AS6', check: ({ schema }) => firstNode(schema, (n) => (typeof n.$ref === 'string' && !n.$ref.startsWith('#') ? `external $ref ${n.$ref}` : undefined), '/$ref') },
  { id: 'AS7', check: ({ schema }) => { const at = findCycle(schema); return at === undefined ? undefined : { path: at, message: 'recursive schema' } } },
  {
    id: 'AS8',
    check: ({ schema }) =>
      firstNode(schema, (n) => (Array.isArray(n.allOf) && n.allOf.some((b) => everyNode(isObject(b) ? b : undefined).some(({ node }) => '$ref' in node)) ? 'allOf with $ref' : undefined), '/allOf'),
  },
  {
    id: 'AS9',
    check: ({ schema }) => {
      const n = countProperties(schema, (node, key) => !(Array.isArray(node.required) && node.required.includes(key)))
      return n <= 24 ? undefined : { path: '', message: `${n} optional properties` }
    },
  },
  {
    id: 'AS10',
    check: ({ schema }) => {
      const n = countProperties(schema, (_, __, child) => isObject(child) && (Array.isArray(child.anyOf) || Array.isArray(child.type)))
      return n <= 16 ? undefined : { path: '', message: `${n} properties with anyOf or a type array` }
    },
  },
  // C. Gemini
  nameRule('GM-N1', /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/),
  propertyNameRule('GA6', /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/),
  rootType('GA1', 'OBJECT'),
  {
    id: 'GA2',
    check: ({ schema }) => {
      for (const { node, path } of everyNode(schema)) {
        const extra = Object.keys(node).find((key) => !GEMINI_FIELDS.has(key))
        if (extra !== undefined) return { path: `${path}/${esc(extra)}`, message: `"${extra}" is not a field of Schema` }
      }
      return undefined
    },
  },
  { id: 'GA3', check: ({ schema }) => firstNode(schema, (n) => (n.type === undefined || (typeof n.type === 'string' && GEMINI_TYPES.includes(n.type)) ? undefined : `type ${JSON.stringify(n.type)}`), '/type') },
  {
    id: 'GA-I',
    check: ({ schema }) =>
      firstNode(schema, (n) => {
        const bad = ['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties'].find((key) => n[key] !== undefined && !(typeof n[key] === 'string' && /^\d+$/.test(n[key])))
        return bad === undefined ? undefined : `${bad} is not an int64 string`
      }, ''),
  },
  { id: 'GA4', check: ({ schema }) => firstNode(schema, (n) => (n.enum === undefined || (Array.isArray(n.enum) && n.enum.every((v) => typeof v === 'string')) ? undefined : 'enum is not string[]'), '/enum') },
  {
    id: 'GA5',
    check: ({ schema }) =>
      firstNode(schema, (n) => {
        if (n.type !== undefined && n.anyOf !== undefined) return 'type and anyOf both set'
        if (n.type === 'NULL') return 'type NULL as the only type'
        return undefined
      }),
  },
  rootType('GB1', 'object'),
  {
    id: 'GB2',
    check: ({ schema }) => firstNode(schema, (n) => (typeof n.$ref === 'string' && Object.keys(n).some((key) => !key.startsWith('$')) ? '$ref with sibling keywords' : undefined)),
  },
  {
    id: 'GB3',
    check: ({ schema }) =>
      firstNode(schema, (n) => (n.enum === undefined || (Array.isArray(n.enum) && n.enum.every((v) => typeof v === 'string' || typeof v === 'number')) ? undefined : 'enum value neither string nor number'), '/enum'),
  },
  // D. MCP
  { id: 'MCP1', check: ({ schema }) => (isObject(schema) ? undefined : { path: '', message: 'inputSchema is not an object' }) },
  rootType('MCP2', 'object'),
  nameRule('MCP-N', /^[A-Za-z0-9_.-]{1,128}$/),
]

/** Every rule, by ID. */
export const RULES: Readonly<Record<string, Rule>> = Object.fromEntries(ALL_RULES.map((rule) => [rule.id, rule]))

const STRICT_OPENAI = ['OA3', 'OA4', 'OA5', 'OA5b', 'OA6', 'OA7', 'OA8', 'OA9', 'OA10']
const STRICT_ANTHROPIC = ['AS1', 'AS2', 'AS3', 'AS4', 'AS5', 'AS6', 'AS7', 'AS8', 'AS9', 'AS10']

/** The rule IDs that hold for every output of a target (strict rules only when strict is on). */
export function ruleIdsFor(target: ProviderTarget, strict: boolean): string[] {
  switch (target) {
    case 'openai-chat':
    case 'openai-responses': return ['OA-N1', 'OA1', 'OA2', ...(strict ? STRICT_OPENAI : [])]
    case 'anthropic': return ['AN-N1', 'AN1', 'AN-P1', ...(strict ? STRICT_ANTHROPIC : [])]
    case 'gemini': return ['GM-N1', 'GA6', 'GA1', 'GA2', 'GA3', 'GA-I', 'GA4', 'GA5']
    case 'gemini-json-schema': return ['GM-N1', 'GA6', 'GB1', 'GB2', 'GB3']
    case 'mcp': return ['MCP1', 'MCP2', 'MCP-N']
  }
}

/** The name, parameter schema and strictness of any target's envelope. */
export function subjectOf(target: ProviderTarget, envelope: unknown): RuleSubject {
  const tool = envelope as Schema
  switch (target) {
    case 'openai-chat': {
      const fn = tool.function as Schema
      return { name: fn.name as string, schema: fn.parameters as Schema, strict: fn.strict === true }
    }
    case 'openai-responses': return { name: tool.name as string, schema: tool.parameters as Schema, strict: tool.strict === true }
    case 'anthropic': return { name: tool.name as string, schema: tool.input_schema as Schema, strict: tool.strict === true }
    case 'gemini': return { name: tool.name as string, schema: tool.parameters as Schema | undefined, strict: false }
    case 'gemini-json-schema': return { name: tool.name as string, schema: tool.parametersJsonSchema as Schema | undefined, strict: false }
    case 'mcp': return { name: tool.name as string, schema: tool.inputSchema as Schema, strict: false }
  }
}

/** Every rule of the target that fails for this envelope. */
export function ruleFailures(target: ProviderTarget, envelope: unknown): RuleFailure[] {
  const subject = subjectOf(target, envelope)
  const failures: RuleFailure[] = []
  for (const id of ruleIdsFor(target, subject.strict)) {
    const failure = (RULES[id] as Rule).check(subject)
    if (failure) failures.push({ rule: id, ...failure })
  }
  return failures
}
