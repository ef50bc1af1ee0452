import { ProviderSchemaError } from './ProviderSchemaError.ts'

/** Every dialect a tool can be converted for. */
export type ProviderTarget = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'gemini-json-schema' | 'mcp'

export const PROVIDER_TARGETS: readonly ProviderTarget[] = Object.freeze([
  'openai-chat',
  'openai-responses',
  'anthropic',
  'gemini',
  'gemini-json-schema',
  'mcp',
])

export interface OpenAIOptions {
  /** Send `strict: true` (Structured Outputs). Default `false`. */
  readonly strict?: boolean
}

export interface AnthropicOptions {
  /** Send `strict: true` (strict tool use). Default `false`. */
  readonly strict?: boolean
}

export interface GeminiOptions {
  /** How often one recursive `$ref` is expanded on a path before it is cut. Default 3. */
  readonly recursionDepth?: number
}

export interface GeminiJsonSchemaOptions {}

/** MCP `Tool.annotations`: hints for clients, untrusted unless the server is. */
export interface McpToolAnnotations {
  readonly title?: string
  readonly readOnlyHint?: boolean
  readonly destructiveHint?: boolean
  readonly idempotentHint?: boolean
  readonly openWorldHint?: boolean
}

export interface McpOptions {
  /** Include the tool's `outputSchema` when it has one (and its root is an object). Default `true`. */
  readonly outputSchema?: boolean
  /** Overrides the annotations read from `tool.metadata.annotations`. */
  readonly annotations?: McpToolAnnotations
}

export interface ProviderOptionsMap {
  'openai-chat': OpenAIOptions
  'openai-responses': OpenAIOptions
  anthropic: AnthropicOptions
  gemini: GeminiOptions
  'gemini-json-schema': GeminiJsonSchemaOptions
  mcp: McpOptions
}

/** The options a target takes; for a target not known statically, any target's options. */
export type ProviderOptions<T extends ProviderTarget = ProviderTarget> = ProviderOptionsMap[T]

/** Every option resolved to its default, as the converter reads them. */
export interface ResolvedOptions {
  readonly strict: boolean
  readonly recursionDepth: number
  readonly outputSchema: boolean
  readonly annotations: McpToolAnnotations | undefined
}

const DEFAULT_RECURSION_DEPTH = 3

export function isProviderTarget(value: unknown): value is ProviderTarget {
  return typeof value === 'string' && (PROVIDER_TARGETS as readonly string[]).includes(value)
}

export function assertProviderTarget(value: unknown): asserts value is ProviderTarget {
  if (!isProviderTarget(value)) {
    throw new ProviderSchemaError('UNKNOWN_TARGET', '', `Unknown provider target ${JSON.stringify(value)}; expected one of ${PROVIDER_TARGETS.join(', ')}`)
  }
}

export function resolveOptions(target: ProviderTarget, options: ProviderOptions | undefined): ResolvedOptions {
  const given = (options ?? {}) as Partial<OpenAIOptions & GeminiOptions & McpOptions>
  const strictCapable = target === 'openai-chat' || target === 'openai-responses' || target === 'anthropic'
  const depth = given.recursionDepth
  return {
    strict: strictCapable && given.strict === true,
    recursionDepth: typeof depth === 'number' && Number.isInteger(depth) && depth >= 0 ? depth : DEFAULT_RECURSION_DEPTH,
    outputSchema: target === 'mcp' && given.outputSchema !== false,
    annotations: target === 'mcp' ? given.annotations : undefined,
  }
}

/** One cache key per target and effective options: equal options share one conversion. */
export function conversionKey(target: ProviderTarget, options: ResolvedOptions): string {
  const annotations = options.annotations ? JSON.stringify(options.annotations) : ''
  return `${target}|${options.strict}|${options.recursionDepth}|${options.outputSchema}|${annotations}`
}
