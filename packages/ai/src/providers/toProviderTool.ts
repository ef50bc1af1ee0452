import type { JsonSchema } from '../schema/types.ts'
import { toolJsonSchema } from '../tools/toolJsonSchema.ts'
import type { AnyTool } from '../tools/types.ts'
import { conversionStats, memoize } from './cache.ts'
import { TARGET_SPECS } from './dialects/index.ts'
import { deepFreeze } from '../util/deepFreeze.ts'
import { isPlainObject } from '../util/isPlainObject.ts'
import { providerToolName } from './providerName.ts'
import { ProviderSchemaError } from './ProviderSchemaError.ts'
import { assertProviderTarget, conversionKey, resolveOptions, type McpToolAnnotations, type ProviderOptions, type ProviderTarget, type ResolvedOptions } from './targets.ts'
import { fitRequestLimits, type RequestTool, type ToolConversion } from './requestLimits.ts'
import { schemaConversion } from './toProviderSchema.ts'
import type { ProviderToolResult } from './types.ts'
import { isLossy, underPointer, type ProviderWarning } from './warnings.ts'

/** A tool as plain data: what a tool file or another toolkit provides. */
export interface ToolParts {
  readonly name: string
  readonly description: string
  readonly title?: string | undefined
  readonly inputSchema: unknown
  /** Read only for targets that publish it (MCP). */
  readonly outputSchema: () => unknown
  readonly annotations?: McpToolAnnotations | undefined
}

// Declared beside the request-wide limits that read it, so the two modules do not import each other.
export type { ToolConversion } from './requestLimits.ts'

const cache = new WeakMap<object, Map<string, ToolConversion>>()

/**
 * A tool in the exact envelope a provider's API takes, with warnings (paths into the tool:
 * `/name`, `/inputSchema/...`) and whether anything the model needs was lost. Cached per tool,
 * target and options: a chat turn converts each tool once, however often it is asked.
 */
export function toProviderTool<T extends ProviderTarget>(tool: AnyTool, target: T, options?: ProviderOptions<T>): ProviderToolResult<T> {
  const result = singleToolConversion(tool, target, options).result as ProviderToolResult<T>
  // @google/genai rewrites each declaration's `parameters` in place: it gets a copy it may edit
  // (the conversion itself stays cached; only the copy is paid for).
  return target === 'gemini' || target === 'gemini-json-schema' ? { ...result, tool: structuredClone(result.tool) } : result
}

/**
 * The tools of one request, each as `toProviderTool` gives it, with the provider's request-wide
 * limits applied over the list: under Anthropic strict, tools past 20 strict ones, 24 optional
 * properties or 16 unions in all are sent non-strict, each with a `STRICT_DISABLED` warning.
 * Map a call back with `fromProviderArgs(tool, target, args, { strict: result.tool.strict === true })`.
 */
export function toProviderTools<T extends ProviderTarget>(tools: readonly AnyTool[], target: T, options?: ProviderOptions<T>): ProviderToolResult<T>[] {
  const fitted = fitRequestLimits(
    target,
    tools.map((tool) => requestTool(tool, target, options)),
  )
  return fitted.map(({ result }) => (target === 'gemini' || target === 'gemini-json-schema' ? { ...result, tool: structuredClone(result.tool) } : result) as ProviderToolResult<T>)
}

/**
 * The conversion of a tool sent alone, which is a request of one: the request-wide limits hold
 * for it too. What `toProviderTool` sends and `fromProviderArgs` maps back from.
 */
export function singleToolConversion(tool: AnyTool, target: ProviderTarget, options: ProviderOptions | undefined): ToolConversion {
  return fitRequestLimits(target, [requestTool(tool, target, options)])[0] as ToolConversion
}

function requestTool<T extends ProviderTarget>(tool: AnyTool, target: T, options: ProviderOptions<T> | undefined): RequestTool {
  return { conversion: toolConversion(tool, target, options), nonStrict: () => toolConversion(tool, target, { ...options, strict: false } as ProviderOptions<T>) }
}

/** The memoized conversion behind `toProviderTool` and `fromProviderArgs`. */
export function toolConversion(tool: AnyTool, target: ProviderTarget, options: ProviderOptions | undefined): ToolConversion {
  assertProviderTarget(target)
  const resolved = resolveOptions(target, options)
  return memoize(cache, tool, conversionKey(target, resolved), () => convertTool(partsOf(tool), target, resolved))
}

function partsOf(tool: AnyTool): ToolParts {
  const annotations = isPlainObject(tool.metadata) ? tool.metadata.annotations : undefined
  return {
    name: tool.name,
    description: tool.description,
    title: tool.title,
    inputSchema: toolJsonSchema(tool),
    outputSchema: () => toolJsonSchema(tool, { io: 'output' }),
    annotations: isPlainObject(annotations) ? (annotations as McpToolAnnotations) : undefined,
  }
}

/** Converts a tool given as plain data (no caching: the data may change). */
export function convertTool(tool: ToolParts, target: ProviderTarget, options: ResolvedOptions): ToolConversion {
  conversionStats.tools++
  const input = schemaConversion(tool.inputSchema, target, options)
  const warnings: ProviderWarning[] = underPointer('/inputSchema', input.warnings)
  const name = providerToolName(tool.name, target)
  if (name !== tool.name) {
    warnings.unshift({ path: '/name', code: 'TOOL_RENAMED', message: `${target} does not accept the name "${tool.name}"; it is sent as "${name}" and mapped back` })
  }
  const envelope = TARGET_SPECS[target].envelope({
    name,
    description: tool.description,
    title: tool.title,
    parameters: input.schema,
    strict: input.strict,
    outputSchema: target === 'mcp' && options.outputSchema ? mcpOutputSchema(tool, options, warnings) : undefined,
    annotations: options.annotations ?? tool.annotations,
  })
  const result: ProviderToolResult = deepFreeze({ tool: envelope as ProviderToolResult['tool'], warnings, lossy: isLossy(warnings) })
  return { result, plan: input.plan, defs: input.defs }
}

/** MCP 2025-11-25 requires an object root here too; an output schema that cannot be one is left out. */
function mcpOutputSchema(tool: ToolParts, options: ResolvedOptions, warnings: ProviderWarning[]): JsonSchema | undefined {
  const schema = tool.outputSchema()
  if (schema === undefined) return undefined
  try {
    const output = schemaConversion(schema, 'mcp', options)
    warnings.push(...underPointer('/outputSchema', output.warnings))
    return output.schema
  } catch (error) {
    if (!(error instanceof ProviderSchemaError)) throw error
    warnings.push({ path: `/outputSchema${error.path}`, code: 'OUTPUT_SCHEMA_OMITTED', message: `The output schema is left out: ${error.message}` })
    return undefined
  }
}
